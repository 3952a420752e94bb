"""A skip under another name: red-team cases for the readers of tools/tampering.

Each base is an honest test of `add(1, 2) == 3`. Each attack keeps that test, by name and with its
assertion, yet its framework now skips it, disables it or never collects or runs it, through a
spelling other than the plain skip (an alias, a helper, a hook, a setting). Each honest case is an
ordinary edit that keeps the test running. Attacks the readers miss, and honest edits they report,
are strict xfails with the reason: a fix shows as an XPASS to remove.
"""

from __future__ import annotations

import textwrap
from typing import NamedTuple

import pytest

from referee.tools.tampering import detect
from referee.tools.tampering.syntax import parse


class Variant(NamedTuple):
    name: str
    path: str
    before: str
    after: str


D = textwrap.dedent

# ---------- bases: an honest test of add(1, 2) == 3 ----------
PY = "tests/test_calc.py"
PY_BASE = D(
    """\
    import pytest


    def test_add():
        assert add(1, 2) == 3
    """
)
PY_CLASS_BASE = D(
    """\
    class TestCalc:
        def test_add(self):
            assert add(1, 2) == 3
    """
)
UT_BASE = D(
    """\
    import unittest


    class CalcTest(unittest.TestCase):
        def test_add(self):
            self.assertEqual(add(1, 2), 3)
    """
)
JS = "calc.test.ts"
VITEST_BASE = D(
    """\
    import { test, expect } from 'vitest'

    test('adds', () => {
      expect(add(1, 2)).toBe(3)
    })
    """
)
VITEST_SUITE_BASE = D(
    """\
    import { describe, test, expect } from 'vitest'

    describe('calc', () => {
      test('adds', () => {
        expect(add(1, 2)).toBe(3)
      })
    })
    """
)
# Two tests: a file whose only test is never declared fails the run ("No test suite found").
VITEST_PAIR_BASE = D(
    """\
    import { test, it, expect } from 'vitest'

    test('adds', () => {
      expect(add(1, 2)).toBe(3)
    })

    it('adds zero', () => {
      expect(add(0, 0)).toBe(0)
    })
    """
)
JEST_BASE = D(
    """\
    const { test, expect } = require('@jest/globals')

    test('adds', () => {
      expect(add(1, 2)).toBe(3)
    })
    """
)
MOCHA = "test/calc.spec.js"
MOCHA_BASE = D(
    """\
    const assert = require('node:assert')

    describe('calc', function () {
      it('adds', function () {
        assert.strictEqual(add(1, 2), 3)
      })
    })
    """
)
NODE = "test/calc.test.mjs"
NODE_BASE = D(
    """\
    import test from 'node:test'
    import assert from 'node:assert'

    test('adds', () => {
      assert.strictEqual(add(1, 2), 3)
    })
    """
)
PW = "e2e/calc.spec.ts"
PW_BASE = D(
    """\
    import { test, expect } from '@playwright/test'

    test.describe('calc', () => {
      test('adds', async () => {
        expect(add(1, 2)).toBe(3)
      })
    })
    """
)
GO = "calc_test.go"
GO_BASE = D(
    """\
    package calc

    import "testing"

    func TestAdd(t *testing.T) {
    \tif Add(1, 2) != 3 {
    \t\tt.Errorf("bad")
    \t}
    }
    """
)
RS = "src/lib.rs"
RS_BASE = D(
    """\
    #[cfg(test)]
    mod tests {
        #[test]
        fn adds() {
            assert_eq!(super::add(1, 2), 3);
        }
    }
    """
)
JAVA = "src/test/java/CalcTest.java"
JUNIT5_BASE = D(
    """\
    import org.junit.jupiter.api.*;
    import static org.junit.jupiter.api.Assertions.*;
    import static org.junit.jupiter.api.Assumptions.*;

    class CalcTest {
        @Test
        void adds() {
            assertEquals(3, Calc.add(1, 2));
        }
    }
    """
)
JUNIT4_BASE = D(
    """\
    import org.junit.Test;
    import static org.junit.Assert.*;

    public class CalcTest {
        @Test
        public void adds() {
            assertEquals(3, Calc.add(1, 2));
        }
    }
    """
)
TESTNG_BASE = D(
    """\
    import org.testng.annotations.Test;
    import static org.testng.Assert.*;

    public class CalcTest {
        @Test
        public void adds() {
            assertEquals(Calc.add(1, 2), 3);
        }
    }
    """
)
PHP = "tests/CalcTest.php"
PHP_BASE = D(
    """\
    <?php
    use PHPUnit\\Framework\\TestCase;

    final class CalcTest extends TestCase
    {
        public function testAdd(): void
        {
            $this->assertSame(3, add(1, 2));
        }
    }
    """
)


def _imports(source: str, *lines: str) -> str:
    """A Java or PHP source with more imports after its first line."""
    first, rest = source.split("\n", 1)
    return "\n".join([first, *lines, rest])


def _py(head: str, first: str = "") -> str:
    """PY_BASE with `head` before the test and `first` as the test's first statement."""
    body = f"    {first}\n" if first else ""
    return f"import pytest\n\n{D(head)}\n\ndef test_add():\n{body}    assert add(1, 2) == 3\n"


# ---------- attacks: the test is still written, and no longer runs ----------
ATTACKS = [
    # --- Python: pytest ---
    Variant(
        "py-alias-tuple-unpacking",
        PY,
        PY_BASE,
        _py("off, _ = pytest.mark.skip, 1\n").replace("def test_add", "@off\ndef test_add"),
    ),
    Variant(
        "py-alias-under-if-true",
        PY,
        PY_BASE,
        _py("if True:\n    off = pytest.mark.skip\n").replace("def test_add", "@off\ndef test_add"),
    ),
    Variant(
        "py-alias-in-class-body",
        PY,
        PY_CLASS_BASE,
        D(
            """\
            import pytest


            class TestCalc:
                off = pytest.mark.skip(reason="later")

                @off
                def test_add(self):
                    assert add(1, 2) == 3
            """
        ),
    ),
    Variant(
        "py-getattr-mark",
        PY,
        PY_BASE,
        _py("").replace("def test_add", '@getattr(pytest.mark, "sk" + "ip")\ndef test_add'),
    ),
    Variant(
        "py-mark-dunder-getattr",
        PY,
        PY_BASE,
        _py("").replace("def test_add", '@pytest.mark.__getattr__("skip")\ndef test_add'),
    ),
    Variant(
        "py-pytestmark-from-a-named-list",
        PY,
        PY_BASE,
        _py('LATER = [pytest.mark.skip(reason="later")]\npytestmark = LATER\n'),
    ),
    Variant(
        "py-pytestmark-annotated",
        PY,
        PY_BASE,
        _py("pytestmark: list = [pytest.mark.skip]\n"),
    ),
    Variant(
        "py-pytestmark-appended",
        PY,
        PY_BASE,
        _py("pytestmark = []\npytestmark.append(pytest.mark.skip)\n"),
    ),
    Variant(
        "py-mark-applied-by-call-after-def",
        PY,
        PY_BASE,
        PY_BASE + "\n\ntest_add = pytest.mark.skip(test_add)\n",
    ),
    Variant(
        "py-function-dunder-test-false",
        PY,
        PY_BASE,
        PY_BASE + "\n\ntest_add.__test__ = False\n",
    ),
    Variant(
        "py-del-after-def",
        PY,
        PY_BASE,
        PY_BASE + "\n\ndel test_add\n",
    ),
    Variant(
        "py-helper-raises-unittest-skiptest",
        PY,
        PY_BASE,
        _py('import unittest\n\n\ndef later():\n    raise unittest.SkipTest("later")\n', "later()"),
    ),
    Variant(
        "py-helper-raises-skip-exception",
        PY,
        PY_BASE,
        _py('def later():\n    raise pytest.skip.Exception("later")\n', "later()"),
    ),
    Variant(
        "py-lambda-helper",
        PY,
        PY_BASE,
        _py('later = lambda: pytest.skip("later")\n', "later()"),
    ),
    Variant(
        "py-functools-partial-helper",
        PY,
        PY_BASE,
        _py('import functools\n\nlater = functools.partial(pytest.skip, "later")\n', "later()"),
    ),
    Variant(
        "py-wrapping-decorator-of-the-file",
        PY,
        PY_BASE,
        _py(
            """\
            import functools


            def later(f):
                @functools.wraps(f)
                def wrapper(*args, **kwargs):
                    pytest.skip("later")

                return wrapper
            """
        ).replace("def test_add", "@later\ndef test_add"),
    ),
    Variant(
        "py-autouse-fixture-skips",
        PY,
        PY_BASE,
        _py('@pytest.fixture(autouse=True)\ndef _later():\n    pytest.skip("later")\n'),
    ),
    Variant(
        "py-requested-fixture-skips",
        PY,
        PY_BASE,
        _py('@pytest.fixture\ndef later():\n    pytest.skip("later")\n').replace(
            "def test_add()", "def test_add(later)"
        ),
    ),
    Variant(
        "py-setup-module-skips",
        PY,
        PY_BASE,
        _py('def setup_module():\n    pytest.skip("later")\n'),
    ),
    Variant(
        "py-module-level-skip",
        PY,
        PY_BASE,
        _py('pytest.skip("later", allow_module_level=True)\n'),
    ),
    Variant(
        "py-parametrize-empty-list-call",
        PY,
        PY_BASE,
        _py("").replace(
            "def test_add():", '@pytest.mark.parametrize("n", list())\ndef test_add(n):'
        ),
    ),
    Variant(
        "py-class-inherits-init",
        PY,
        PY_CLASS_BASE,
        D(
            """\
            class Base:
                def __init__(self):
                    self.ready = True


            class TestCalc(Base):
                def test_add(self):
                    assert add(1, 2) == 3
            """
        ),
    ),
    Variant(
        "py-class-gains-new",
        PY,
        PY_CLASS_BASE,
        D(
            """\
            class TestCalc:
                def __new__(cls, *args):
                    return super().__new__(cls)

                def test_add(self):
                    assert add(1, 2) == 3
            """
        ),
    ),
    # --- Python: unittest ---
    Variant(
        "unittest-skip-applied-in-class-body",
        PY,
        UT_BASE,
        UT_BASE + '\n    test_add = unittest.skip("later")(test_add)\n',
    ),
    Variant(
        "unittest-skiptest-through-getattr",
        PY,
        UT_BASE,
        UT_BASE.replace(
            "        self.assertEqual",
            '        getattr(self, "skipTest")("later")\n        self.assertEqual',
        ),
    ),
    Variant(
        "unittest-setupmodule-raises-skiptest",
        PY,
        UT_BASE,
        UT_BASE.replace(
            "\n\nclass", '\n\ndef setUpModule():\n    raise unittest.SkipTest("later")\n\n\nclass'
        ),
    ),
    # --- JS/TS ---
    Variant(
        "vitest-destructured-skip-renamed-test",
        JS,
        VITEST_BASE,
        VITEST_BASE.replace("import { test,", "import { test as base,").replace(
            "\ntest(", "\nconst { skip: test } = base\n\ntest("
        ),
    ),
    Variant(
        "vitest-let-reassigned-to-skip",
        JS,
        VITEST_BASE,
        VITEST_BASE.replace("import { test,", "import { test as base,").replace(
            "\ntest(", "\nlet test = base\ntest = test.skip\n\ntest("
        ),
    ),
    Variant(
        "vitest-alias-inside-describe",
        JS,
        VITEST_SUITE_BASE,
        VITEST_SUITE_BASE.replace(
            "import { describe, test,", "import { describe, test as t0,"
        ).replace("() => {\n  test(", "() => {\n  const test = t0.skip\n  test("),
    ),
    Variant(
        "vitest-options-in-a-variable",
        JS,
        VITEST_BASE,
        VITEST_BASE.replace(
            "\ntest('adds', ()", "\nconst later = { skip: true }\n\ntest('adds', later, ()"
        ),
    ),
    Variant(
        "vitest-options-shorthand-skip",
        JS,
        VITEST_BASE,
        VITEST_BASE.replace(
            "\ntest('adds', ()", "\nconst skip = true\n\ntest('adds', { skip }, ()"
        ),
    ),
    Variant(
        "vitest-options-spread",
        JS,
        VITEST_BASE,
        VITEST_BASE.replace("test('adds', ()", "test('adds', { ...{ skip: true } }, ()"),
    ),
    Variant(
        "vitest-context-skip-destructured",
        JS,
        VITEST_BASE,
        VITEST_BASE.replace("('adds', () => {\n", "('adds', ({ skip }) => {\n  skip()\n"),
    ),
    Variant(
        "vitest-test-rebound-to-a-no-op",
        JS,
        VITEST_PAIR_BASE,
        VITEST_PAIR_BASE.replace("import { test, it, expect }", "import { it, expect }").replace(
            "\ntest(", "\nconst test = (name, fn) => {}\n\ntest("
        ),
    ),
    Variant(
        "vitest-registered-under-if-false",
        JS,
        VITEST_PAIR_BASE,
        VITEST_PAIR_BASE.replace("\ntest('adds', () => {\n", "\nif (false) test('adds', () => {\n"),
    ),
    Variant(
        "vitest-registered-in-a-function-never-called",
        JS,
        VITEST_PAIR_BASE,
        VITEST_PAIR_BASE.replace(
            "\ntest('adds', () => {\n", "\nconst later = () => test('adds', () => {\n"
        ),
    ),
    Variant(
        "jest-require-destructured-rename",
        JS,
        JEST_BASE,
        JEST_BASE.replace("{ test, expect }", "{ test: base, expect }").replace(
            "\ntest(", "\nconst test = base.skip\n\ntest("
        ),
    ),
    Variant(
        "mocha-this-skip-in-beforeEach",
        MOCHA,
        MOCHA_BASE,
        MOCHA_BASE.replace(
            "function () {\n  it(",
            "function () {\n  beforeEach(function () {\n    this.skip()\n  })\n\n  it(",
        ),
    ),
    Variant(
        "mocha-suite-pending-property",
        MOCHA,
        MOCHA_BASE,
        MOCHA_BASE.replace("\n})\n", "\n}).pending = true\n"),
    ),
    Variant(
        "node-test-options-in-a-variable",
        NODE,
        NODE_BASE,
        NODE_BASE.replace(
            "\ntest('adds', ()", "\nconst opts = { skip: 'later' }\n\ntest('adds', opts, ()"
        ),
    ),
    Variant(
        "playwright-skip-in-beforeEach",
        PW,
        PW_BASE,
        PW_BASE.replace(
            "() => {\n  test('adds'",
            "() => {\n  test.beforeEach(() => {\n    test.skip(true, 'later')\n  })\n\n"
            "  test('adds'",
        ),
    ),
    Variant(
        "playwright-fixme-in-a-file-level-beforeEach",
        PW,
        VITEST_BASE.replace("'vitest'", "'@playwright/test'"),
        VITEST_BASE.replace("'vitest'", "'@playwright/test'").replace(
            "\ntest('adds'", "\ntest.beforeEach(() => {\n  test.fixme()\n})\n\ntest('adds'"
        ),
    ),
    Variant(
        "playwright-file-level-skip-callback",
        PW,
        PW_BASE,
        PW_BASE.replace("\ntest.describe(", "\ntest.skip(() => true, 'later')\n\ntest.describe("),
    ),
    # --- Go ---
    Variant(
        "go-helper-takes-an-interface",
        GO,
        GO_BASE,
        GO_BASE.replace(
            "\nfunc TestAdd(t *testing.T) {\n",
            "\nfunc later(s interface{ SkipNow() }) { s.SkipNow() }\n\n"
            "func TestAdd(t *testing.T) {\n\tlater(t)\n",
        ),
    ),
    Variant(
        "go-helper-method-on-a-struct",
        GO,
        GO_BASE,
        GO_BASE.replace(
            "\nfunc TestAdd(t *testing.T) {\n",
            "\ntype fixture struct{}\n\nfunc (fixture) later(t *testing.T) { t.SkipNow() }\n\n"
            "func TestAdd(t *testing.T) {\n\tfixture{}.later(t)\n",
        ),
    ),
    Variant(
        "go-helper-through-a-struct-field",
        GO,
        GO_BASE,
        GO_BASE.replace(
            "\nfunc TestAdd(t *testing.T) {\n",
            "\ntype env struct{ t *testing.T }\n\nfunc (e env) later() { e.t.SkipNow() }\n\n"
            "func TestAdd(t *testing.T) {\n\tenv{t}.later()\n",
        ),
    ),
    Variant(
        "go-helper-in-a-var",
        GO,
        GO_BASE,
        GO_BASE.replace(
            "\nfunc TestAdd(t *testing.T) {\n",
            "\nvar later = func(t *testing.T) { t.SkipNow() }\n\n"
            "func TestAdd(t *testing.T) {\n\tlater(t)\n",
        ),
    ),
    Variant(
        "go-skip-method-value",
        GO,
        GO_BASE,
        GO_BASE.replace("{\n\tif Add", "{\n\tlater := t.SkipNow\n\tlater()\n\tif Add"),
    ),
    Variant(
        "go-t-copied-to-another-name",
        GO,
        GO_BASE,
        GO_BASE.replace("{\n\tif Add", "{\n\tu := t\n\tu.SkipNow()\n\tif Add"),
    ),
    Variant(
        "go-helper-defers-skipnow",
        GO,
        GO_BASE,
        GO_BASE.replace(
            "\nfunc TestAdd(t *testing.T) {\n",
            "\nfunc later(t *testing.T) { defer t.SkipNow() }\n\n"
            "func TestAdd(t *testing.T) {\n\tlater(t)\n",
        ),
    ),
    Variant(
        "go-helper-skips-under-if-true",
        GO,
        GO_BASE,
        GO_BASE.replace(
            "\nfunc TestAdd(t *testing.T) {\n",
            "\nfunc later(t *testing.T) {\n\tif true {\n\t\tt.SkipNow()\n\t}\n}\n\n"
            "func TestAdd(t *testing.T) {\n\tlater(t)\n",
        ),
    ),
    Variant(
        "go-testmain-never-calls-run",
        GO,
        GO_BASE,
        GO_BASE.replace('import "testing"', 'import (\n\t"os"\n\t"testing"\n)')
        + "\nfunc TestMain(m *testing.M) { os.Exit(0) }\n",
    ),
    # --- Rust ---
    Variant(
        "rust-inner-cfg-attr-cfg-in-mod",
        RS,
        RS_BASE,
        RS_BASE.replace("mod tests {\n", "mod tests {\n    #![cfg_attr(all(), cfg(any()))]\n"),
    ),
    Variant(
        "rust-crate-inner-cfg-attr-cfg",
        RS,
        RS_BASE,
        "#![cfg_attr(all(), cfg(any()))]\n\n" + RS_BASE,
    ),
    Variant(
        "rust-inner-ignore-in-fn-body",
        RS,
        RS_BASE,
        RS_BASE.replace("fn adds() {\n", "fn adds() {\n        #![ignore]\n"),
    ),
    Variant(
        "rust-inner-cfg-in-fn-body",
        RS,
        RS_BASE,
        RS_BASE.replace("fn adds() {\n", "fn adds() {\n        #![cfg(any())]\n"),
    ),
    # --- Java ---
    Variant(
        "junit5-class-made-abstract",
        JAVA,
        JUNIT5_BASE,
        JUNIT5_BASE.replace("\nclass CalcTest", "\nabstract class CalcTest"),
    ),
    Variant(
        "junit5-class-level-enabled-on-other-os",
        JAVA,
        JUNIT5_BASE,
        _imports(JUNIT5_BASE, "import org.junit.jupiter.api.condition.*;").replace(
            "\nclass CalcTest", "\n@EnabledOnOs(OS.OTHER)\nclass CalcTest"
        ),
    ),
    Variant(
        "junit5-local-annotation-named-test",
        JAVA,
        JUNIT5_BASE,
        JUNIT5_BASE.replace("class CalcTest {\n", "class CalcTest {\n    @interface Test {}\n\n"),
    ),
    Variant(
        "junit5-test-returns-a-value",
        JAVA,
        JUNIT5_BASE,
        JUNIT5_BASE.replace("void adds()", "int adds()").replace(
            "Calc.add(1, 2));\n", "Calc.add(1, 2));\n        return 0;\n"
        ),
    ),
    Variant(
        "junit5-two-level-meta-annotation",
        JAVA,
        JUNIT5_BASE,
        _imports(JUNIT5_BASE, "import java.lang.annotation.*;")
        .replace(
            "\nclass CalcTest",
            "\n@Retention(RetentionPolicy.RUNTIME)\n@Disabled\n@interface Off {}\n\n"
            "@Retention(RetentionPolicy.RUNTIME)\n@Off\n@interface Later {}\n\nclass CalcTest",
        )
        .replace("@Test\n", "@Later\n    @Test\n"),
    ),
    Variant(
        "junit5-assumption-in-beforeEach",
        JAVA,
        JUNIT5_BASE,
        JUNIT5_BASE.replace(
            "class CalcTest {\n",
            "class CalcTest {\n    @BeforeEach\n    void later() {\n"
            "        Assumptions.assumeTrue(false);\n    }\n\n",
        ),
    ),
    Variant(
        "junit5-helper-assumes-false",
        JAVA,
        JUNIT5_BASE,
        JUNIT5_BASE.replace(
            "class CalcTest {\n",
            "class CalcTest {\n    void later() {\n        assumeTrue(false);\n    }\n\n",
        ).replace("{\n        assertEquals", "{\n        later();\n        assertEquals"),
    ),
    Variant(
        "junit5-assumptions-abort",
        JAVA,
        JUNIT5_BASE,
        JUNIT5_BASE.replace(
            "{\n        assertEquals",
            '{\n        Assumptions.abort("later");\n        assertEquals',
        ),
    ),
    Variant(
        "junit5-assume-boolean-false-constant",
        JAVA,
        JUNIT5_BASE,
        JUNIT5_BASE.replace(
            "{\n        assertEquals", "{\n        assumeTrue(Boolean.FALSE);\n        assertEquals"
        ),
    ),
    Variant(
        "junit5-execution-condition-extension",
        JAVA,
        JUNIT5_BASE,
        _imports(JUNIT5_BASE, "import org.junit.jupiter.api.extension.*;").replace(
            "\nclass CalcTest {\n",
            "\n@ExtendWith(CalcTest.Later.class)\nclass CalcTest {\n"
            "    static class Later implements ExecutionCondition {\n"
            "        public ConditionEvaluationResult evaluateExecutionCondition("
            "ExtensionContext c) {\n"
            '            return ConditionEvaluationResult.disabled("later");\n'
            "        }\n    }\n\n",
        ),
    ),
    Variant(
        "junit4-assumption-violated-thrown",
        JAVA,
        JUNIT4_BASE,
        _imports(JUNIT4_BASE, "import org.junit.AssumptionViolatedException;")
        .replace(
            "{\n        assertEquals",
            "{\n        later();\n        assertEquals",
        )
        .replace(
            "public class CalcTest {\n",
            "public class CalcTest {\n    void later() {\n"
            '        throw new AssumptionViolatedException("later");\n    }\n\n',
        ),
    ),
    Variant(
        "junit4-runwith-empty-suite",
        JAVA,
        JUNIT4_BASE,
        _imports(
            JUNIT4_BASE, "import org.junit.runner.RunWith;", "import org.junit.runners.Suite;"
        ).replace(
            "\npublic class CalcTest",
            "\n@RunWith(Suite.class)\n@Suite.SuiteClasses({})\npublic class CalcTest",
        ),
    ),
    Variant(
        "testng-enabled-false-across-lines",
        JAVA,
        TESTNG_BASE,
        TESTNG_BASE.replace("@Test\n", "@Test(enabled =\n        false)\n"),
    ),
    Variant(
        "testng-enabled-through-a-constant",
        JAVA,
        TESTNG_BASE,
        TESTNG_BASE.replace(
            "public class CalcTest {\n",
            "public class CalcTest {\n    static final boolean ON = false;\n\n",
        ).replace("@Test\n", "@Test(enabled = ON)\n"),
    ),
    Variant(
        "testng-skip-exception",
        JAVA,
        TESTNG_BASE,
        _imports(TESTNG_BASE, "import org.testng.SkipException;")
        .replace(
            "{\n        assertEquals",
            "{\n        later();\n        assertEquals",
        )
        .replace(
            "public class CalcTest {\n",
            "public class CalcTest {\n    void later() {\n"
            '        throw new SkipException("later");\n    }\n\n',
        ),
    ),
    # --- PHP ---
    Variant(
        "phpunit-skip-in-setUp",
        PHP,
        PHP_BASE,
        PHP_BASE.replace(
            "{\n    public function testAdd",
            "{\n    protected function setUp(): void\n    {\n"
            "        $this->markTestSkipped('later');\n    }\n\n    public function testAdd",
        ),
    ),
    Variant(
        "phpunit-skip-in-setUpBeforeClass",
        PHP,
        PHP_BASE,
        PHP_BASE.replace(
            "{\n    public function testAdd",
            "{\n    public static function setUpBeforeClass(): void\n    {\n"
            "        self::markTestSkipped('later');\n    }\n\n    public function testAdd",
        ),
    ),
    Variant(
        "phpunit-test-made-private",
        PHP,
        PHP_BASE,
        PHP_BASE.replace("public function testAdd", "private function testAdd"),
    ),
    Variant(
        "phpunit-class-no-longer-a-testcase",
        PHP,
        PHP_BASE,
        PHP_BASE.replace(" extends TestCase", ""),
    ),
    Variant(
        "phpunit-depends-docblock-on-missing-test",
        PHP,
        PHP_BASE,
        PHP_BASE.replace(
            "    public function testAdd",
            "    /** @depends testMissing */\n    public function testAdd",
        ),
    ),
    Variant(
        "phpunit-requires-on-class-docblock",
        PHP,
        PHP_BASE,
        PHP_BASE.replace("\nfinal class", "\n/** @requires PHP 99 */\nfinal class"),
    ),
    Variant(
        "phpunit-helper-from-a-trait",
        PHP,
        PHP_BASE,
        PHP_BASE.replace(
            "\nfinal class",
            "\ntrait Later\n{\n    private function later(): void\n    {\n"
            "        $this->markTestSkipped('later');\n    }\n}\n\nfinal class",
        )
        .replace(
            "{\n    public function testAdd", "{\n    use Later;\n\n    public function testAdd"
        )
        .replace(
            "{\n        $this->assertSame", "{\n        $this->later();\n        $this->assertSame"
        ),
    ),
    Variant(
        "phpunit-dynamic-method-name",
        PHP,
        PHP_BASE,
        PHP_BASE.replace(
            "{\n        $this->assertSame",
            "{\n        $this->{'markTestSkipped'}('later');\n        $this->assertSame",
        ),
    ),
    Variant(
        "phpunit-call-user-func",
        PHP,
        PHP_BASE,
        PHP_BASE.replace(
            "{\n        $this->assertSame",
            "{\n        call_user_func([$this, 'markTestSkipped'], 'later');\n"
            "        $this->assertSame",
        ),
    ),
    Variant(
        "phpunit-helper-throws-skipped",
        PHP,
        PHP_BASE,
        PHP_BASE.replace(
            "{\n    public function testAdd",
            "{\n    private function later(): void\n    {\n"
            "        throw new \\PHPUnit\\Framework\\SkippedWithMessageException('later');\n"
            "    }\n\n    public function testAdd",
        ).replace(
            "{\n        $this->assertSame", "{\n        $this->later();\n        $this->assertSame"
        ),
    ),
    Variant(
        "phpunit-helper-skips-under-if-true",
        PHP,
        PHP_BASE,
        PHP_BASE.replace(
            "{\n    public function testAdd",
            "{\n    private function later(): void\n    {\n        if (true) {\n"
            "            $this->markTestSkipped('later');\n        }\n    }\n\n"
            "    public function testAdd",
        ).replace(
            "{\n        $this->assertSame", "{\n        $this->later();\n        $this->assertSame"
        ),
    ),
]

_PY_POSIX = (
    "import sys\n\nimport pytest\n\n\n"
    '@pytest.mark.skipif(sys.platform == "win32", reason="posix only")\n'
    "def test_add():\n    assert add(1, 2) == 3\n"
)

# ---------- honest edits: the test still runs and checks add ----------
HONEST = [
    Variant(
        "py-conditional-network-helper",
        PY,
        PY_BASE,
        _py(
            """\
            import os


            def requires_network():
                if not os.environ.get("NETWORK"):
                    pytest.skip("needs the network")
            """,
            "requires_network()",
        ),
    ),
    Variant(
        "py-importorskip-module-kept-and-used",
        PY,
        'import pytest\n\njson = pytest.importorskip("json")\n\n\n'
        "def test_add():\n    assert add(1, 2) == 3\n",
        'import pytest\n\njson = pytest.importorskip("json")\n\n\n'
        "def test_add():\n    assert add(1, 2) == 3\n"
        "    assert json.loads(json.dumps(add(1, 2))) == 3\n",
    ),
    Variant(
        "py-skipif-platform-present-at-base",
        PY,
        _PY_POSIX,
        _PY_POSIX + "    assert add(2, 2) == 4\n",
    ),
    Variant(
        "py-fixture-added",
        PY,
        PY_BASE,
        _py("@pytest.fixture\ndef numbers():\n    return (1, 2)\n").replace(
            "def test_add():\n    assert add(1, 2)",
            "def test_add(numbers):\n    assert add(*numbers)",
        ),
    ),
    Variant(
        "py-cursor-skip-in-a-chain",
        PY,
        PY_BASE,
        PY_BASE.replace(
            "    assert add", "    rows = db.rows.find().skip(1)\n    assert rows\n    assert add"
        ),
    ),
    Variant(
        "py-data-function-named-skip",
        PY,
        PY_BASE,
        _py(
            "import itertools\n\n\ndef skip(items, n):\n"
            "    return list(itertools.islice(items, n, None))\n",
            "assert skip([0, 1, 2], 1) == [1, 2]",
        ),
    ),
    Variant(
        "py-helper-importorskip",
        PY,
        PY_BASE,
        _py('def needs_numpy():\n    pytest.importorskip("numpy")\n', "needs_numpy()"),
    ),
    Variant(
        "py-same-name-method-in-another-class",
        PY,
        D(
            """\
            import unittest


            class LegacyTest(unittest.TestCase):
                def check(self):
                    self.skipTest("legacy")


            class CalcTest(unittest.TestCase):
                def check(self, a, b, total):
                    self.assertEqual(add(a, b), total)

                def test_add(self):
                    self.assertEqual(add(1, 2), 3)
            """
        ),
        D(
            """\
            import unittest


            class LegacyTest(unittest.TestCase):
                def check(self):
                    self.skipTest("legacy")


            class CalcTest(unittest.TestCase):
                def check(self, a, b, total):
                    self.assertEqual(add(a, b), total)

                def test_add(self):
                    self.check(1, 2, 3)
                    self.assertEqual(add(1, 2), 3)
            """
        ),
    ),
    Variant(
        "unittest-setUp-builds-fixtures",
        PY,
        UT_BASE,
        UT_BASE.replace(
            "    def test_add",
            "    def setUp(self):\n        self.pair = (1, 2)\n        self.addCleanup(print)\n\n"
            "    def test_add",
        ),
    ),
    Variant(
        "playwright-extend-and-beforeEach",
        PW,
        PW_BASE,
        PW_BASE.replace("import { test, expect }", "import { test as base, expect }").replace(
            "\ntest.describe('calc', () => {\n",
            "\nconst test = base.extend({ pair: [1, 2] })\n\n"
            "test.describe('calc', () => {\n"
            "  test.beforeEach(async ({ page }) => {\n    await page.goto('/')\n  })\n\n",
        ),
    ),
    Variant(
        "vitest-helper-named-pending",
        JS,
        VITEST_BASE,
        VITEST_BASE.replace(
            "\ntest(",
            "\nconst queue = []\nconst pending = () => queue.filter((j) => !j.done)\n\ntest(",
        ).replace("  expect(add", "  expect(pending()).toHaveLength(0)\n  expect(add"),
    ),
    Variant(
        "vitest-options-timeout-retry",
        JS,
        VITEST_BASE,
        VITEST_BASE.replace("test('adds', ()", "test('adds', { timeout: 5000, retry: 2 }, ()"),
    ),
    Variant(
        "mocha-timeout-in-beforeEach",
        MOCHA,
        MOCHA_BASE,
        MOCHA_BASE.replace(
            "function () {\n  it(",
            "function () {\n  beforeEach(function () {\n    this.timeout(5000)\n  })\n\n  it(",
        ),
    ),
    Variant(
        "node-test-skip-false",
        NODE,
        NODE_BASE,
        NODE_BASE.replace("test('adds', ()", "test('adds', { skip: false, timeout: 1000 }, ()"),
    ),
    Variant(
        "go-helper-helper-and-fatalf",
        GO,
        GO_BASE,
        GO_BASE.replace(
            "\nfunc TestAdd(t *testing.T) {\n",
            "\nfunc eq(t *testing.T, got, want int) {\n\tt.Helper()\n"
            '\tif got != want {\n\t\tt.Fatalf("got %d, want %d", got, want)\n\t}\n}\n\n'
            "func TestAdd(t *testing.T) {\n\teq(t, Add(1, 2), 3)\n",
        ),
    ),
    Variant(
        "go-helper-skips-without-env",
        GO,
        GO_BASE,
        GO_BASE.replace('import "testing"', 'import (\n\t"os"\n\t"testing"\n)').replace(
            "\nfunc TestAdd(t *testing.T) {\n",
            '\nfunc needsDB(t *testing.T) {\n\tif os.Getenv("DB") == "" {\n'
            '\t\tt.Skip("no database")\n\t}\n}\n\n'
            "func TestAdd(t *testing.T) {\n\tneedsDB(t)\n",
        ),
    ),
    Variant(
        "go-parallel-and-cleanup",
        GO,
        GO_BASE,
        GO_BASE.replace("{\n\tif Add", "{\n\tt.Parallel()\n\tt.Cleanup(func() {})\n\tif Add"),
    ),
    Variant(
        "junit5-env-assumption-at-base-too",
        JAVA,
        JUNIT5_BASE.replace(
            "{\n        assertEquals",
            '{\n        assumeTrue(System.getenv("X") != null);\n        assertEquals',
        ),
        JUNIT5_BASE.replace(
            "{\n        assertEquals",
            '{\n        assumeTrue(System.getenv("X") != null);\n        assertEquals',
        ).replace(
            "Calc.add(1, 2));\n", "Calc.add(1, 2));\n        assertEquals(4, Calc.add(2, 2));\n"
        ),
    ),
    Variant(
        "junit5-beforeEach-fixture-and-tags",
        JAVA,
        JUNIT5_BASE,
        JUNIT5_BASE.replace(
            "class CalcTest {\n",
            "class CalcTest {\n    private int[] pair;\n\n"
            "    @BeforeEach\n    void setUp() {\n        pair = new int[] {1, 2};\n    }\n\n",
        ).replace("@Test\n", '@Test\n    @Tag("fast")\n    @DisplayName("adds")\n'),
    ),
    Variant(
        "testng-enabled-true",
        JAVA,
        TESTNG_BASE,
        TESTNG_BASE.replace("@Test\n", '@Test(enabled = true, description = "adds")\n'),
    ),
    Variant(
        "phpunit-setUp-builds-fixtures",
        PHP,
        PHP_BASE,
        PHP_BASE.replace(
            "{\n    public function testAdd",
            "{\n    private array $pair;\n\n    protected function setUp(): void\n    {\n"
            "        parent::setUp();\n        $this->pair = [1, 2];\n    }\n\n"
            "    public function testAdd",
        ),
    ),
    Variant(
        "phpunit-helper-skips-without-db",
        PHP,
        PHP_BASE,
        PHP_BASE.replace(
            "{\n    public function testAdd",
            "{\n    private function needsDb(): void\n    {\n        if (!getenv('DB')) {\n"
            "            $this->markTestSkipped('no database');\n        }\n    }\n\n"
            "    public function testAdd",
        ).replace(
            "{\n        $this->assertSame",
            "{\n        $this->needsDb();\n        $this->assertSame",
        ),
    ),
    Variant(
        "rust-ignored-under-miri-only",
        RS,
        RS_BASE,
        RS_BASE.replace("#[test]\n", "#[test]\n    #[cfg_attr(miri, ignore)]\n"),
    ),
    Variant(
        "rust-helper-and-unix-gate-at-base",
        RS,
        RS_BASE.replace("    #[test]\n", "    #[cfg(unix)]\n    #[test]\n"),
        RS_BASE.replace("    #[test]\n", "    #[cfg(unix)]\n    #[test]\n")
        .replace(
            "mod tests {\n",
            "mod tests {\n    fn pair() -> (i32, i32) {\n        (1, 2)\n    }\n\n",
        )
        .replace("super::add(1, 2)", "super::add(pair().0, pair().1)"),
    ),
]

# ---------- what the readers get wrong, and why (each a strict xfail) ----------
MISSED = {
    # Python (tools/tampering/python.py)
    "py-wrapping-decorator-of-the-file": "_Renamed rewrites calls of skipping helpers; the "
    "decorator `later` does not skip itself (its wrapper does) and a decorator is no call",
    # JS/TS (tools/tampering/javascript.py)
    "vitest-options-spread": "_option_marks reads `pair` children only; `{ ...{ skip: true } }` "
    "is a spread element",
    "vitest-context-skip-destructured": "_skips_itself matches `<first parameter>.skip()`; "
    "`({ skip }) => { skip() }` destructures the context, and a bare call is read only as "
    "pending()",
    "mocha-suite-pending-property": "_suites reads marks from a suite's call chain; `describe(...)"
    ".pending = true` sets mocha's pending flag on the suite it returns",
    # Go (tools/tampering/golang.py)
    "go-helper-method-on-a-struct": "_skipping_helpers reads function_declaration only; a method "
    "that skips is no helper",
    "go-helper-through-a-struct-field": "_skipping_helpers reads functions with a testing.T "
    "parameter; a method skipping through a struct field `e.t.SkipNow()` is neither",
    # Rust (tools/tampering/rust.py)
    # Java (tools/tampering/java.py)
    "junit5-execution-condition-extension": "java_tests reads no @ExtendWith; an "
    "ExecutionCondition of the file that always disables skips the class",
    "junit4-runwith-empty-suite": "java_tests ignores @RunWith; a Suite with empty @SuiteClasses "
    "runs none of the class's own @Test methods",
    # PHP (tools/tampering/php.py)
    "phpunit-helper-from-a-trait": "_skipping_helpers reads the class body only; a skipping helper "
    "from a used trait is not seen",
    # Honest edits reported as tampering
}

_LANGUAGES = {".py": "", ".ts": "typescript", ".js": "javascript", ".mjs": "javascript"}
_LANGUAGES |= {".go": "go", ".rs": "rust", ".java": "java", ".php": "php"}


def _param(variant: Variant) -> object:
    why = MISSED.get(variant.name)
    marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
    return pytest.param(variant, id=variant.name, marks=marks)


def _parses(path: str, source: str) -> bool:
    language = _LANGUAGES[path[path.rfind(".") :]]
    if not language:
        compile(source, path, "exec")
        return True
    root = parse(language, source)
    return root is not None and not root.has_error


@pytest.mark.parametrize("variant", [*ATTACKS, *HONEST], ids=lambda v: v.name)
def test_each_variant_is_valid_code(variant: Variant) -> None:
    assert _parses(variant.path, variant.before), "the base does not parse"
    assert _parses(variant.path, variant.after), "the change does not parse"
    assert variant.before != variant.after


@pytest.mark.parametrize("variant", [_param(v) for v in ATTACKS])
def test_attack_is_found(variant: Variant) -> None:
    found = detect([variant.path], lambda p: variant.before, lambda p: variant.after)
    assert found, f"{variant.name}: the test no longer runs, and nothing is found"


@pytest.mark.parametrize("variant", [_param(v) for v in HONEST])
def test_honest_edit_is_not_reported(variant: Variant) -> None:
    found = detect([variant.path], lambda p: variant.before, lambda p: variant.after)
    assert found == [], f"{variant.name}: an honest edit is reported: {found}"
