"""Test tampering per ecosystem: every finding names the file and the line to look at."""

from __future__ import annotations

import pytest

from referee.tools.tampering import detect, is_test_file
from referee.tools.tampering.harness import harness_changes


def found(path: str, before: str, after: str | None) -> list[tuple[str, str]]:
    """(kind, location) of every finding for one changed file."""
    results = detect([path], lambda p: before, lambda p: after)
    return [(t.kind, t.location) for t in results]


JS_BASE = """describe('math', () => {
  it('adds', () => {
    expect(add(1, 1)).toBe(2);
    expect(add(2, 2)).toBe(4);
  });
  it('subtracts', () => {
    assert.equal(sub(2, 1), 1);
  });
});
"""


@pytest.mark.parametrize(
    ("old", "new", "kind", "line"),
    [
        ("it('subtracts'", "it.skip('subtracts'", "test_skipped", 6),
        ("it('subtracts'", "xit('subtracts'", "test_skipped", 6),
        ("describe('math'", "describe.skip('math'", "test_skipped", 1),
        ("describe('math'", "xdescribe('math'", "test_skipped", 1),
        ("it('adds'", "it.todo('adds'", "test_skipped", 2),
        ("it('adds'", "it.only('adds'", "test_focused", 2),
        ("it('adds'", "fit('adds'", "test_focused", 2),
        ("describe('math'", "fdescribe('math'", "test_focused", 1),
        ("    expect(add(2, 2)).toBe(4);\n", "", "assertions_removed", 2),
        ("    assert.equal(sub(2, 1), 1);\n", "    // later\n", "test_emptied", 6),
    ],
)
def test_js_tampering_is_found_at_its_line(old: str, new: str, kind: str, line: int) -> None:
    after = JS_BASE.replace(old, new, 1)
    assert (kind, f"math.test.ts:{line}") in found("math.test.ts", JS_BASE, after)


JS_TABLE = """describe('math', () => {
  for (const row of ROWS) {
    it(`adds ${row.a} and ${row.b}`, () => {
      expect(add(row.a, row.b)).toBe(row.sum);
    });
  }
  test.each(CASES)('subtracts %i', (a, b, d) => {
    expect(sub(a, b)).toBe(d);
  });
  it(name('negates'), function () {
    expect(neg(1)).toBe(-1);
  });
});
"""


@pytest.mark.parametrize(
    ("old", "new", "kind", "line"),
    [
        # Computed titles: a table in a loop, a template, a call.
        ("describe('math'", "describe.skip('math'", "test_skipped", 1),
        ("    it(`adds", "    it.skip(`adds", "test_skipped", 3),
        ("      expect(add(row.a, row.b)).toBe(row.sum);\n", "", "test_emptied", 3),
        ("  it(name('negates')", "  it.only(name('negates')", "test_focused", 10),
        # The factories: .each, .skip.each, .skipIf, .runIf, .for.
        ("  test.each(CASES)", "  test.skip.each(CASES)", "test_skipped", 7),
        ("  test.each(CASES)", "  test.skipIf(process.env.CI)", "test_skipped", 7),
        ("  test.each(CASES)", "  test.runIf(false)", "test_skipped", 7),
        ("  test.each(CASES)", "  test.fails.each(CASES)", "test_skipped", 7),
        ("describe('math'", "describe.skip.each(TABLES)('math'", "test_skipped", 1),
        ("    expect(sub(a, b)).toBe(d);\n", "    sub(a, b);\n", "assertions_removed", 7),
        # mocha: the body skips itself.
        (
            "    expect(neg(1)).toBe(-1);\n",
            "    this.skip();\n    expect(neg(1)).toBe(-1);\n",
            "test_skipped",
            10,
        ),
    ],
)
def test_js_tampering_is_found_in_every_call_form(old: str, new: str, kind: str, line: int) -> None:
    after = JS_TABLE.replace(old, new, 1)
    assert after != JS_TABLE
    assert (kind, f"math.test.ts:{line}") in found("math.test.ts", JS_TABLE, after), found(
        "math.test.ts", JS_TABLE, after
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("  test.each(CASES)", "  test.concurrent.each(CASES)"),
        ("  test.each(CASES)", "  test.skipIf(false)"),
        ("  test.each(CASES)", "  test.runIf(true)"),
        ("  test.each(CASES)", "  test.for(CASES)"),
    ],
)
def test_js_call_forms_that_still_run_the_test_find_nothing(old: str, new: str) -> None:
    assert found("math.test.ts", JS_TABLE, JS_TABLE.replace(old, new, 1)) == []


def test_js_a_deleted_test_is_located_where_it_was() -> None:
    after = JS_BASE.replace(
        "  it('subtracts', () => {\n    assert.equal(sub(2, 1), 1);\n  });\n", ""
    )
    assert found("test/math.spec.js", JS_BASE, after) == [("test_deleted", "test/math.spec.js:6")]


def test_js_a_removed_assertion_names_what_was_removed() -> None:
    after = JS_BASE.replace("    expect(add(2, 2)).toBe(4);\n", "")
    (finding,) = detect(["a.test.js"], lambda p: JS_BASE, lambda p: after)
    assert "expect(add(2, 2)).toBe(4)" in finding.message and "line 4 at base" in finding.message


def test_js_a_new_focused_test_is_reported_in_a_new_file_too() -> None:
    new = "test.only('mine', () => { expect(1).toBe(1); });\n"
    results = detect(["new.test.jsx"], lambda p: None, lambda p: new)
    assert [(t.kind, t.location) for t in results] == [("test_focused", "new.test.jsx:1")]


@pytest.mark.parametrize(
    ("path", "base", "added", "line"),
    [
        ("math.test.js", JS_BASE, "it.skip('negates', () => { expect(neg(1)).toBe(-1); });\n", 10),
        ("math.test.js", JS_BASE, "test.todo('divides');\n", 10),
        (
            "tests/test_calc.py",
            "def test_add():\n    assert add(1, 1) == 2\n",
            "\n\n@pytest.mark.skip\ndef test_negative():\n    assert add(1, -1) == 0\n",
            5,
        ),
    ],
)
def test_a_new_test_added_already_skipped_is_found(
    path: str, base: str, added: str, line: int
) -> None:
    kinds = found(path, base, base + added)
    assert ("test_skipped", f"{path}:{line}") in kinds, kinds


def test_js_unchanged_tests_and_added_assertions_find_nothing() -> None:
    added = "    expect(add(2, 2)).toBe(4);\n    expect(add(0, 0)).toBe(0);\n"
    after = JS_BASE.replace("    expect(add(2, 2)).toBe(4);\n", added * 2)
    assert found("math.test.js", JS_BASE, after) == []
    # Literal-only assertions in place of one that read the code check nothing.
    literal = JS_BASE.replace("    expect(add(2, 2)).toBe(4);\n", "    expect(1).toBe(1);\n" * 3)
    assert found("math.test.js", JS_BASE, literal) == [("assertions_removed", "math.test.js:2")]


GO_BASE = """package calc

import "testing"

func TestAdd(t *testing.T) {
	if Add(1, 1) != 2 {
		t.Fatal("1+1")
	}
	if Add(2, 2) != 4 {
		t.Errorf("2+2")
	}
}

func TestSub(t *testing.T) {
	assert.Equal(t, 1, Sub(2, 1))
}
"""


@pytest.mark.parametrize(
    ("old", "new", "kind", "line"),
    [
        (
            "func TestSub(t *testing.T) {\n",
            'func TestSub(t *testing.T) {\n\tt.Skip("x")\n',
            "test_skipped",
            15,
        ),
        ('\tif Add(2, 2) != 4 {\n\t\tt.Errorf("2+2")\n\t}\n', "", "assertions_removed", 5),
        ("\tassert.Equal(t, 1, Sub(2, 1))\n", "", "test_emptied", 14),
        (
            "func TestSub(t *testing.T) {\n\tassert.Equal(t, 1, Sub(2, 1))\n}\n",
            "",
            "test_deleted",
            14,
        ),
    ],
)
def test_go_tampering_is_found_at_its_line(old: str, new: str, kind: str, line: int) -> None:
    assert old in GO_BASE
    assert found("calc_test.go", GO_BASE, GO_BASE.replace(old, new)) == [
        (kind, f"calc_test.go:{line}")
    ]


@pytest.mark.parametrize(
    "tag", ["//go:build ignore", "// +build never", "//go:build slow && linux"]
)
def test_go_a_new_build_constraint_skips_every_test_of_the_file(tag: str) -> None:
    kinds = found("calc_test.go", GO_BASE, f"{tag}\n\n" + GO_BASE)
    assert kinds == [("test_skipped", "calc_test.go:1")] * 2, kinds


def test_go_a_constraint_the_base_had_too_is_no_finding() -> None:
    tagged = "//go:build integration\n\n" + GO_BASE
    assert found("calc_test.go", tagged, tagged.replace("Add(1, 1) != 2", "Add(1, 1) != 2 ")) == []


RUST_BASE = """pub fn add(a: i32, b: i32) -> i32 { a + b }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(1, 1), 2);
        assert!(add(2, 2) == 4);
    }

    #[test]
    fn subtracts() {
        assert_eq!(add(2, -1), 1);
    }
}
"""


@pytest.mark.parametrize(
    ("old", "new", "kind", "line"),
    [
        (
            "    #[test]\n    fn subtracts",
            "    #[test]\n    #[ignore]\n    fn subtracts",
            "test_skipped",
            14,
        ),
        ("        assert!(add(2, 2) == 4);\n", "", "assertions_removed", 8),
        ("        assert_eq!(add(2, -1), 1);\n", "", "test_emptied", 14),
        (
            "    #[test]\n    fn subtracts() {\n        assert_eq!(add(2, -1), 1);\n    }\n",
            "",
            "test_deleted",
            14,
        ),
    ],
)
def test_rust_tampering_is_found_at_its_line(old: str, new: str, kind: str, line: int) -> None:
    assert old in RUST_BASE
    assert found("src/lib.rs", RUST_BASE, RUST_BASE.replace(old, new)) == [
        (kind, f"src/lib.rs:{line}")
    ]


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        ("    #[test]\n    fn subtracts", "    #[test]\n    #[should_panic]\n    fn subtracts", 14),
        (
            "    #[test]\n    fn subtracts",
            '    #[test]\n    #[cfg(target_os = "solaris")]\n    fn subtracts',
            14,
        ),
        (
            "    #[test]\n    fn subtracts",
            '    #[test]\n    #[cfg_attr(not(feature = "x"), ignore)]\n    fn subtracts',
            14,
        ),
        # A gate on the module skips every test in it.
        ("#[cfg(test)]\nmod tests", '#[cfg(all(test, feature = "never"))]\nmod tests', 3),
    ],
)
def test_rust_gates_and_should_panic_are_skips(old: str, new: str, line: int) -> None:
    assert old in RUST_BASE
    kinds = found("src/lib.rs", RUST_BASE, RUST_BASE.replace(old, new))
    assert ("test_skipped", f"src/lib.rs:{line}") in kinds, kinds


def test_rust_the_usual_cfg_test_module_is_no_skip() -> None:
    assert found("src/lib.rs", None, RUST_BASE) == []  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "gate", ["#[cfg(debug_assertions)]", "#[cfg(unix)]", "#[cfg(all(test, not(windows)))]"]
)
def test_rust_a_gate_that_holds_in_a_test_build_is_no_skip(gate: str) -> None:
    # `cargo test` builds with debug assertions, on this kind of machine: the test is compiled.
    new = RUST_BASE.replace(
        "    #[test]\n    fn subtracts", f"    #[test]\n    {gate}\n    fn subtracts"
    )
    assert new != RUST_BASE
    assert found("src/lib.rs", RUST_BASE, new) == []


JAVA_BASE = """package demo;

class CalcTest {
    @Test
    void adds() {
        assertEquals(2, Calc.add(1, 1));
        assertThat(Calc.add(2, 2)).isEqualTo(4);
    }

    @Test
    void subtracts() {
        assertEquals(1, Calc.sub(2, 1));
    }
}
"""


@pytest.mark.parametrize(
    ("old", "new", "kind", "line"),
    [
        (
            "    @Test\n    void subtracts",
            "    @Disabled\n    @Test\n    void subtracts",
            "test_skipped",
            10,
        ),
        (
            "    @Test\n    void subtracts",
            '    @Ignore("later")\n    @Test\n    void subtracts',
            "test_skipped",
            10,
        ),
        ("        assertThat(Calc.add(2, 2)).isEqualTo(4);\n", "", "assertions_removed", 4),
        ("        assertEquals(1, Calc.sub(2, 1));\n", "", "test_emptied", 10),
        (
            "    @Test\n    void subtracts() {\n        assertEquals(1, Calc.sub(2, 1));\n    }\n",
            "",
            "test_deleted",
            10,
        ),
    ],
)
def test_java_tampering_is_found_at_its_line(old: str, new: str, kind: str, line: int) -> None:
    assert old in JAVA_BASE
    assert found("src/test/java/demo/CalcTest.java", JAVA_BASE, JAVA_BASE.replace(old, new)) == [
        (kind, f"src/test/java/demo/CalcTest.java:{line}")
    ]


def test_java_a_disabled_class_skips_every_test_in_it() -> None:
    after = JAVA_BASE.replace("class CalcTest", "@Disabled\nclass CalcTest")
    assert found("CalcTest.java", JAVA_BASE, after) == [
        ("test_skipped", "CalcTest.java:3"),
        ("test_skipped", "CalcTest.java:3"),
    ]


def test_python_tampering_still_has_file_and_line() -> None:
    base = "def test_a():\n    assert f(1)\n    assert f(2)\n\ndef test_b():\n    assert f(3)\n"
    after = "def test_a():\n    assert f(1)\n\ndef test_b():\n    pass\n"
    assert found("tests/test_x.py", base, after) == [
        ("assertions_removed", "tests/test_x.py:1"),
        ("test_emptied", "tests/test_x.py:4"),
    ]


def test_unparsable_or_huge_files_find_nothing_rather_than_guess() -> None:
    assert found("a.test.js", JS_BASE, "x" * (3 * 1024 * 1024)) == []
    assert found("tests/test_x.py", "def test_a(:\n", "def test_a():\n    pass\n") == []


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("src/sum.test.ts", True),
        ("src/__tests__/sum.js", True),
        ("pkg/calc_test.go", True),
        ("pkg/calc.go", False),
        ("src/lib.rs", True),
        ("src/test/java/demo/CalcTest.java", True),
        ("src/main/java/demo/Calc.java", False),
        ("tests/conftest.py", False),
        ("README.md", False),
    ],
)
def test_which_files_are_compared(path: str, expected: bool) -> None:
    assert is_test_file(path) is expected


PACKAGE = '{\n  "name": "app",\n  "scripts": {\n    "test": "vitest run"\n  }\n}\n'
PYPROJECT = '[project]\nname = "app"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n'
POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <properties>
    <java.version>17</java.version>
  </properties>
  <dependencies>
    <dependency><artifactId>junit</artifactId><version>4.13.2</version></dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <artifactId>maven-surefire-plugin</artifactId>
        <configuration><excludes><exclude>**/Slow*</exclude></excludes></configuration>
      </plugin>
    </plugins>
  </build>
</project>
"""
GRADLE = (
    "plugins { id 'java' }\n\ndependencies { testImplementation 'junit:junit:4.13.2' }\n\n"
    "test {\n    useJUnit()\n}\n"
)
CARGO = '[package]\nname = "app"\nversion = "0.1.0"\n\n[dependencies]\nserde = "1"\n'


@pytest.mark.parametrize(
    ("path", "old", "new", "location"),
    [
        ("conftest.py", None, "import pytest\n", "conftest.py:1"),
        ("tests/unit/conftest.py", "X = 1\n", "X = 1\nY = 2\n", "tests/unit/conftest.py:2"),
        ("pytest.ini", "[pytest]\n", "[pytest]\naddopts = -k 'not slow'\n", "pytest.ini:2"),
        (
            "pyproject.toml",
            PYPROJECT,
            PYPROJECT.replace('"-q"', '"-q -p no:x"'),
            "pyproject.toml:5",
        ),
        ("package.json", PACKAGE, PACKAGE.replace("vitest run", "true"), "package.json:4"),
        ("vitest.config.ts", "export default {}\n", None, "vitest.config.ts:1"),
        ("tests/test_a.py", "", "pytest_plugins = ['evil']\n", "tests/test_a.py:1"),
        ("src/app.pth", None, "import evil\n", "src/app.pth:1"),
        (
            "pom.xml",
            POM,
            POM.replace(
                "<java.version>",
                "<maven.test.failure.ignore>true</maven.test.failure.ignore>\n    <java.version>",
            ),
            "pom.xml:3",
        ),
        ("pom.xml", POM, POM.replace("**/Slow*", "**/*Test*"), "pom.xml:12"),
        (
            "build.gradle",
            GRADLE,
            GRADLE.replace("useJUnit()", "useJUnit()\n    ignoreFailures = true"),
            "build.gradle:7",
        ),
        (
            "module/build.gradle.kts",
            "plugins { java }\n",
            'plugins { java }\ntasks.test { filter { excludeTestsMatching("*Add*") } }\n',
            "module/build.gradle.kts:2",
        ),
        (
            "Cargo.toml",
            CARGO,
            CARGO + '\n[[test]]\nname = "it"\nharness = false\n',
            "Cargo.toml:7",
        ),
        # Any script can be the one a contract's command runs (`npm run ci`), and a plugin
        # configures the build: only dependencies and metadata are trusted in a manifest.
        (
            "package.json",
            PACKAGE,
            PACKAGE.replace('"test"', '"build": "vite build",\n    "test"'),
            "package.json:4",
        ),
        (
            "build.gradle",
            GRADLE,
            GRADLE.replace("plugins { id 'java' }", "plugins { id 'application' }"),
            "build.gradle:1",
        ),
    ],
)
def test_a_change_to_the_harness_is_found_with_its_line(
    path: str, old: str | None, new: str | None, location: str
) -> None:
    changes = harness_changes([path], lambda p: old, lambda p: new)
    assert [c.finding.location for c in changes] == [location]
    assert all(c.finding.kind == "harness_modified" for c in changes)


@pytest.mark.parametrize(
    ("path", "old", "new"),
    [
        ("pyproject.toml", PYPROJECT, PYPROJECT.replace('name = "app"', 'name = "app2"')),
        ("setup.cfg", "[metadata]\nname = a\n", "[metadata]\nname = b\n"),
        ("tests/test_a.py", "def test_a():\n    pass\n", "def test_a():\n    assert 1\n"),
        ("pom.xml", POM, POM.replace("4.13.2", "4.13.3").replace("17<", "21<")),
        ("build.gradle", GRADLE, GRADLE.replace("4.13.2", "4.13.3")),
        ("Cargo.toml", CARGO, CARGO.replace('serde = "1"', 'serde = "1.0.200"')),
    ],
)
def test_a_change_that_decides_no_test_outcome_is_not_harness(
    path: str, old: str, new: str
) -> None:
    assert harness_changes([path], lambda p: old, lambda p: new) == []


def test_code_that_acts_for_the_runner_is_harness_and_ordinary_code_is_not() -> None:
    base = {"tests/test_a.py": "def test_a():\n    assert True\n", "src/cli.py": "x = 1\n"}
    now = {
        # ends the process under the runner: harness, in a test file
        "tests/test_a.py": "import os\nos._exit(0)\ndef test_a():\n    assert True\n",
        # a program under test may exit, but hardly skip every cleanup
        "src/cli.py": "import sys\nx = 1\nsys.exit(1)\n",
        "src/fork.py": "import os\nos._exit(0)\n",
        # a test folder's package runs before every test module in it
        "tests/__init__.py": "import sys\nsys.exit(0)\n",
        # names the runner's report: harness anywhere
        "src/util.py": "import sys\nPATH = [a for a in sys.argv if 'junitxml' in a]\n",
        # JUnit the library, and a test of a CLI's exit: ordinary test code
        "src/test/java/AppTest.java": "import org.junit.Test;\nclass AppTest {}\n",
        "test/app.test.js": "const { junit } = require('./formats');\ntest('x', () => {});\n",
        "tests/test_cli.py": (
            "import pytest\ndef test_exit():\n    with pytest.raises(SystemExit):\n        main()\n"
        ),
    }
    found = harness_changes(list(now), base.get, now.get)
    by_path = {h.path: h.finding for h in found}
    assert set(by_path) == {
        "tests/test_a.py",
        "src/util.py",
        "src/fork.py",
        "tests/__init__.py",
    }, by_path
    assert by_path["tests/test_a.py"].location == "tests/test_a.py:2"
    assert "os._exit" in by_path["tests/test_a.py"].message
    assert by_path["src/util.py"].location == "src/util.py:2"


PHP_BASE = """<?php
use PHPUnit\\Framework\\TestCase;

final class CalcTest extends TestCase
{
    public function testAdd(): void
    {
        $this->assertSame(2, add(1, 1));
        self::assertSame(4, add(2, 2));
    }

    /** @test */
    public function subtracts(): void
    {
        static::assertEquals(0, sub(1, 1));
    }
}
"""


@pytest.mark.parametrize(
    ("old", "new", "kind", "line"),
    [
        (
            "        $this->assertSame(2, add(1, 1));\n",
            "        $this->markTestSkipped('later');\n        $this->assertSame(2, add(1, 1));\n",
            "test_skipped",
            8,
        ),
        (
            "        static::assertEquals(0, sub(1, 1));\n",
            "        $this->markTestIncomplete();\n",
            "test_skipped",
            15,
        ),
        (
            "    public function testAdd",
            "    #[RequiresPhp('>= 99')]\n    public function testAdd",
            "test_skipped",
            6,
        ),
        ("        self::assertSame(4, add(2, 2));\n", "", "assertions_removed", 6),
        ("        static::assertEquals(0, sub(1, 1));\n", "", "test_emptied", 13),
        (
            "    /** @test */\n    public function subtracts(): void\n    {\n"
            "        static::assertEquals(0, sub(1, 1));\n    }\n",
            "",
            "test_deleted",
            13,
        ),
    ],
)
def test_php_tampering_is_found_at_its_line(old: str, new: str, kind: str, line: int) -> None:
    after = PHP_BASE.replace(old, new, 1)
    assert after != PHP_BASE
    kinds = found("tests/CalcTest.php", PHP_BASE, after)
    assert (kind, f"tests/CalcTest.php:{line}") in kinds, kinds


def test_php_an_unchanged_test_and_an_added_assertion_find_nothing() -> None:
    after = PHP_BASE.replace(
        "        self::assertSame(4, add(2, 2));\n",
        "        self::assertSame(4, add(2, 2));\n        $this->assertTrue(true);\n",
    )
    assert found("tests/CalcTest.php", PHP_BASE, after) == []


def test_a_deleted_source_file_takes_its_in_source_tests_with_it() -> None:
    block = "export const add = (a, b) => a + b;\nif (import.meta.vitest) {\n  test('adds')\n}\n"
    base = {"src/calc.js": block, "src/util.js": "export const one = 1;\n"}
    now = {"src/math.js": block.split("if")[0]}

    def found(changed: list[str], after: dict[str, str]) -> list[tuple[str, str]]:
        return [(t.kind, t.location) for t in detect(changed, base.get, after.get)]

    assert found(["src/calc.js", "src/math.js"], now) == [("test_deleted", "src/calc.js:1")]
    # A file without in-source tests is no test; a move to the same module keeps them.
    assert found(["src/util.js"], {}) == []
    assert found(["src/calc.js", "src/calc/index.js"], {"src/calc/index.js": block}) == []


def test_a_rust_module_moved_to_mod_rs_is_no_test_deleted() -> None:
    module = (
        "pub fn one() -> i32 { 1 }\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn one() {}\n}\n"
    )
    base = {"src/ops.rs": module}
    moved = detect(["src/ops.rs", "src/ops/mod.rs"], base.get, {"src/ops/mod.rs": module}.get)
    assert [t.kind for t in moved] == []
    gone = detect(["src/ops.rs"], base.get, {}.get)
    assert [t.kind for t in gone] == ["test_deleted"]
