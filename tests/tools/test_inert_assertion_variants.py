"""Assertions still written that can no longer run or fail, and honest edits that keep checking.

Red-team cases for tools/tampering/reach.py and the readers that use it. Each base is an honest
test of a broken `add` (it returns a - b, so `add(1, 2) == 3` fails); each attack keeps the test's
name and its assertion's text, yet the assertion no longer runs or no longer fails on that code,
so the run goes green. Each honest case is a real-world refactor that still checks `add` (it
still fails on the broken code). Attacks the readers miss, and honest edits they report, are
strict xfails with the reason: a fix shows as an XPASS to remove.
"""

from __future__ import annotations

import re
import textwrap
from typing import NamedTuple

import pytest

from referee.tools.tampering import Tampering, detect


class Variant(NamedTuple):
    name: str
    path: str
    before: str
    after: str


def _body(text: str, indent: str) -> str:
    return textwrap.indent(textwrap.dedent(text).strip("\n"), indent)


def _top(text: str) -> str:
    return "\n" + textwrap.dedent(text).strip("\n") + "\n" if text else ""


# ---------- Python (pytest) ----------
PY = "tests/test_calc.py"


def _pytest(body: str, top: str = "", deco: str = "", params: str = "") -> str:
    decorator = textwrap.dedent(deco).strip("\n") + "\n" if deco else ""
    return (
        f"import pytest\n\nfrom calc import add\n{_top(top)}\n\n"
        f"{decorator}def test_add({params}):\n{_body(body, '    ')}\n"
    )


PY_BASE = _pytest("assert add(1, 2) == 3")

# ---------- Python (unittest) ----------
PYU = "tests/test_calc_unittest.py"


def _unittest(body: str, top: str = "") -> str:
    return (
        "import unittest\n\nfrom calc import add\n\n\n"
        f"class TestAdd(unittest.TestCase):\n{_body(top, '    ') + chr(10) if top else ''}"
        f"    def test_add(self):\n{_body(body, '        ')}\n"
    )


PYU_BASE = _unittest("self.assertEqual(add(1, 2), 3)")

# ---------- JS/TS: vitest, jest, mocha, node:test ----------
VI = "src/calc.test.js"
TS = "src/calc.test.ts"
JEST = "__tests__/calc.test.js"
MOCHA = "test/calc.spec.js"
NODE = "test/calc.test.mjs"


def _vitest(body: str, top: str = "", opener: str = "test('adds', () => {") -> str:
    head = "import { describe, expect, it, test } from 'vitest'\nimport { add } from './calc.js'\n"
    return f"{head}{_top(top)}\n{opener}\n{_body(body, '  ')}\n}})\n"


def _jest(body: str, top: str = "", opener: str = "test('adds', () => {") -> str:
    return (
        f"const {{ add }} = require('../calc')\n{_top(top)}\n{opener}\n{_body(body, '  ')}\n}})\n"
    )


def _mocha(body: str, opener: str = "it('adds', function () {") -> str:
    return (
        "const assert = require('node:assert')\nconst { add } = require('../calc')\n\n"
        f"describe('calc', function () {{\n  {opener}\n{_body(body, '    ')}\n  }})\n}})\n"
    )


def _node(body: str, top: str = "", opener: str = "test('adds', () => {") -> str:
    head = (
        "import test from 'node:test'\nimport assert from 'node:assert/strict'\n"
        "import { add } from '../calc.mjs'\n"
    )
    return f"{head}{_top(top)}\n{opener}\n{_body(body, '  ')}\n}})\n"


VI_BASE = _vitest("expect(add(1, 2)).toBe(3)")
# vitest fails a file that declares no test at all: the table cases keep one more test.
OTHER = "test('keeps a number', () => {\n  expect(add(2, 0)).toBe(2)\n})"
VI2_BASE = _vitest("expect(add(1, 2)).toBe(3)", top=OTHER)
TS_BASE = VI_BASE.replace("./calc.js", "./calc")
JEST_BASE = _jest("expect(add(1, 2)).toBe(3)")
MOCHA_BASE = _mocha("assert.strictEqual(add(1, 2), 3)")
NODE_BASE = _node("assert.equal(add(1, 2), 3)")

# ---------- Go ----------
GO = "calc/calc_test.go"


def _go(body: str, top: str = "", imports: str = '"testing"') -> str:
    source = (
        f"package calc\n\nimport (\n{_body(imports, '    ')}\n)\n{_top(top)}\n"
        f"func TestAdd(t *testing.T) {{\n{_body(body, '    ')}\n}}\n"
    )
    # Written here with four spaces a level, as gofmt writes it: with tabs.
    return re.sub(r"(?m)^(?:    )+", lambda m: "\t" * (len(m.group(0)) // 4), source)


GO_CHECK = """
if got := Add(1, 2); got != 3 {
    t.Errorf("Add(1, 2) = %d, want 3", got)
}
"""
GO_BASE = _go(GO_CHECK)
TESTIFY = '"testing"\n\n"github.com/stretchr/testify/assert"'
TESTIFY_BASE = _go("assert.Equal(t, 3, Add(1, 2))", imports=TESTIFY)

# ---------- Rust ----------
RS = "src/lib.rs"


def _rust(body: str, top: str = "", signature: str = "fn adds()") -> str:
    return (
        "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\n#[cfg(test)]\nmod tests {\n"
        f"    use super::*;\n{_body(top, '    ') + chr(10) if top else ''}\n"
        f"    #[test]\n    {signature} {{\n{_body(body, ' ' * 8)}\n    }}\n}}\n"
    )


RS_BASE = _rust("assert_eq!(add(1, 2), 3);")

# ---------- Java (JUnit 5) ----------
JV = "src/test/java/calc/CalcTest.java"


def _java(body: str, top: str = "", head: str = "@Test\n    void adds() {") -> str:
    return (
        "package calc;\n\nimport static org.junit.jupiter.api.Assertions.*;\n\n"
        "import org.junit.jupiter.api.Test;\n\nclass CalcTest {\n"
        f"{_body(top, '    ') + chr(10) + chr(10) if top else ''}"
        f"    {head}\n{_body(body, ' ' * 8)}\n    }}\n}}\n"
    )


JV_BASE = _java("assertEquals(3, Calc.add(1, 2));")

# ---------- PHP (PHPUnit) ----------
PHP = "tests/CalcTest.php"


def _php(body: str, top: str = "", head: str = "public function testAdd(): void") -> str:
    return (
        "<?php\n\nuse PHPUnit\\Framework\\TestCase;\n\nrequire_once __DIR__ . '/../calc.php';\n\n"
        f"final class CalcTest extends TestCase\n{{\n{_body(top, '    ') + chr(10) if top else ''}"
        f"    {head}\n    {{\n{_body(body, ' ' * 8)}\n    }}\n}}\n"
    )


PHP_BASE = _php("$this->assertSame(3, add(1, 2));")


def _v(name: str, path: str, before: str, after: str) -> Variant:
    return Variant(name, path, before, after)


ATTACKS: list[Variant] = [
    # ---- Python, pytest ----
    _v("py-if-none", PY, PY_BASE, _pytest("if None:\n    assert add(1, 2) == 3")),
    _v("py-if-empty-list", PY, PY_BASE, _pytest("if []:\n    assert add(1, 2) == 3")),
    _v("py-if-not-1", PY, PY_BASE, _pytest("if not 1:\n    assert add(1, 2) == 3")),
    _v("py-if-1-gt-2", PY, PY_BASE, _pytest("if 1 > 2:\n    assert add(1, 2) == 3")),
    _v("py-walrus-zero", PY, PY_BASE, _pytest("if (n := 0):\n    assert add(n, 2) == n + 2")),
    _v(
        "py-module-constant",
        PY,
        PY_BASE,
        _pytest("if SKIP:\n    return\nassert add(1, 2) == 3", top="SKIP = True"),
    ),
    _v(
        "py-type-checking",
        PY,
        PY_BASE,
        _pytest(
            "if TYPE_CHECKING:\n    assert add(1, 2) == 3", top="from typing import TYPE_CHECKING"
        ),
    ),
    _v("py-not-debug", PY, PY_BASE, _pytest("if not __debug__:\n    assert add(1, 2) == 3")),
    _v(
        "py-version-check",
        PY,
        PY_BASE,
        _pytest("import sys\n\nif sys.version_info < (3,):\n    assert add(1, 2) == 3"),
    ),
    _v("py-os-exit", PY, PY_BASE, _pytest("import os\n\nos._exit(0)\nassert add(1, 2) == 3")),
    _v(
        "py-suppress-assertionerror",
        PY,
        PY_BASE,
        _pytest(
            """
            import contextlib

            with contextlib.suppress(AssertionError):
                assert add(1, 2) == 3
            """
        ),
    ),
    _v(
        "py-try-except-pass",
        PY,
        PY_BASE,
        _pytest("try:\n    assert add(1, 2) == 3\nexcept AssertionError:\n    pass"),
    ),
    _v(
        "py-raises-assertionerror",
        PY,
        PY_BASE,
        _pytest("with pytest.raises(AssertionError):\n    assert add(1, 2) == 3"),
    ),
    _v("py-expected-from-actual", PY, PY_BASE, _pytest("assert add(1, 2) == add(1, 2)")),
    _v("py-tautology-via-name", PY, PY_BASE, _pytest("x = 3\nassert x == 3")),
    _v("py-assert-tuple", PY, PY_BASE, _pytest('assert (add(1, 2) == 3, "sum")')),
    _v("py-assert-function-object", PY, PY_BASE, _pytest("assert add")),
    _v("py-or-1", PY, PY_BASE, _pytest("assert add(1, 2) == 3 or 1")),
    _v("py-ifexp-true", PY, PY_BASE, _pytest("assert add(1, 2) == 3 if False else True")),
    _v(
        "py-skip-in-message",
        PY,
        PY_BASE,
        _pytest("assert add(1, 2) == 3, pytest.skip('later')"),
    ),
    _v(
        "py-parametrize-empty-tuple",
        PY,
        PY_BASE,
        _pytest("assert add(a, 2) == a + 2", deco='@pytest.mark.parametrize("a", ())', params="a"),
    ),
    _v(
        "py-parametrize-starred-empty",
        PY,
        PY_BASE,
        _pytest(
            "assert add(a, 2) == a + 2", deco='@pytest.mark.parametrize("a", [*[]])', params="a"
        ),
    ),
    _v(
        "py-parametrize-range-0",
        PY,
        PY_BASE,
        _pytest(
            "assert add(a, 2) == a + 2",
            deco='@pytest.mark.parametrize("a", range(0))',
            params="a",
        ),
    ),
    _v(
        "py-for-range-0",
        PY,
        PY_BASE,
        _pytest("for a in range(0):\n    assert add(a, 2) == a + 2"),
    ),
    _v(
        "py-annotated-empty-table",
        PY,
        PY_BASE,
        _pytest(
            "for a, b, want in ROWS:\n    assert add(a, b) == want",
            top="ROWS: list[tuple[int, int, int]] = []",
        ),
    ),
    _v(
        "py-sliced-table",
        PY,
        PY_BASE,
        _pytest(
            "for a, b, want in ROWS:\n    assert add(a, b) == want",
            top="ROWS = [(1, 2, 3)][:0]",
        ),
    ),
    _v(
        "py-nested-def-never-called",
        PY,
        PY_BASE,
        _pytest("def check():\n    assert add(1, 2) == 3"),
    ),
    _v(
        "py-match-no-case",
        PY,
        PY_BASE,
        _pytest("match 0:\n    case 1:\n        assert add(1, 2) == 3"),
    ),
    # ---- Python, unittest ----
    _v("pyu-assertTrue-1-eq-1", PYU, PYU_BASE, _unittest("self.assertTrue(1 == 1)")),
    _v(
        "pyu-expected-from-actual",
        PYU,
        PYU_BASE,
        _unittest("self.assertEqual(add(1, 2), add(1, 2))"),
    ),
    _v("pyu-assertEqual-0-0", PYU, PYU_BASE, _unittest("self.assertEqual(0, 0)")),
    _v("pyu-assertIsNone-None", PYU, PYU_BASE, _unittest("self.assertIsNone(None)")),
    _v("pyu-assertTrue-not-False", PYU, PYU_BASE, _unittest("self.assertTrue(not False)")),
    _v("pyu-assertCountEqual-empty", PYU, PYU_BASE, _unittest("self.assertCountEqual([], [])")),
    _v(
        "pyu-literals-with-message-call",
        PYU,
        PYU_BASE,
        _unittest("self.assertEqual(3, 3, msg=add(1, 2))"),
    ),
    _v(
        "pyu-assertTrue-tuple",
        PYU,
        PYU_BASE,
        _unittest('self.assertTrue((add(1, 2) == 3, "sum"))'),
    ),
    _v(
        "pyu-assertRaises-assertionerror",
        PYU,
        PYU_BASE,
        _unittest("with self.assertRaises(AssertionError):\n    self.assertEqual(add(1, 2), 3)"),
    ),
    _v(
        "pyu-except-failureException",
        PYU,
        PYU_BASE,
        _unittest(
            "try:\n    self.assertEqual(add(1, 2), 3)\nexcept self.failureException:\n    pass"
        ),
    ),
    _v(
        "pyu-skipTest-in-argument",
        PYU,
        PYU_BASE,
        _unittest("self.assertEqual(add(1, 2), 3, msg=self.skipTest('later'))"),
    ),
    # ---- JS/TS: constant conditions ----
    _v("js-if-0", VI, VI_BASE, _vitest("if (0) {\n  expect(add(1, 2)).toBe(3)\n}")),
    _v("js-if-null", VI, VI_BASE, _vitest("if (null) {\n  expect(add(1, 2)).toBe(3)\n}")),
    _v("js-if-not-1", VI, VI_BASE, _vitest("if (!1) {\n  expect(add(1, 2)).toBe(3)\n}")),
    _v("js-if-empty-string", VI, VI_BASE, _vitest("if ('') {\n  expect(add(1, 2)).toBe(3)\n}")),
    _v("js-if-void-0", VI, VI_BASE, _vitest("if (void 0) {\n  expect(add(1, 2)).toBe(3)\n}")),
    _v(
        "js-if-undefined",
        VI,
        VI_BASE,
        _vitest("if (undefined) {\n  expect(add(1, 2)).toBe(3)\n}"),
    ),
    _v("js-if-hex-0", VI, VI_BASE, _vitest("if (0x0) {\n  expect(add(1, 2)).toBe(3)\n}")),
    _v("js-if-bigint-0", VI, VI_BASE, _vitest("if (0n) {\n  expect(add(1, 2)).toBe(3)\n}")),
    _v("js-if-not-not-empty", VI, VI_BASE, _vitest("if (!!'') {\n  expect(add(1, 2)).toBe(3)\n}")),
    _v(
        "js-if-1-strict-eq-2",
        VI,
        VI_BASE,
        _vitest("if (1 === 2) {\n  expect(add(1, 2)).toBe(3)\n}"),
    ),
    _v(
        "js-if-string-compare",
        VI,
        VI_BASE,
        _vitest("if ('a' === 'b') {\n  expect(add(1, 2)).toBe(3)\n}"),
    ),
    _v(
        "js-module-constant",
        VI,
        VI_BASE,
        _vitest("if (DEBUG) {\n  expect(add(1, 2)).toBe(3)\n}", top="const DEBUG = false"),
    ),
    _v(
        "js-typeof-guard-return",
        VI,
        VI_BASE,
        _vitest("if (typeof add === 'function') return\nexpect(add(1, 2)).toBe(3)"),
    ),
    _v("js-ternary-false", VI, VI_BASE, _vitest("false ? expect(add(1, 2)).toBe(3) : null")),
    _v("js-undefined-and", VI, VI_BASE, _vitest("undefined && expect(add(1, 2)).toBe(3)")),
    _v("js-zero-and", VI, VI_BASE, _vitest("0 && expect(add(1, 2)).toBe(3)")),
    _v(
        "ts-if-false-as-boolean",
        TS,
        TS_BASE,
        _vitest("if (false as boolean) {\n  expect(add(1, 2)).toBe(3)\n}").replace(
            "./calc.js", "./calc"
        ),
    ),
    # ---- JS: unreachable ----
    _v("js-bare-block-return", VI, VI_BASE, _vitest("{\n  return\n}\nexpect(add(1, 2)).toBe(3)")),
    _v(
        "js-try-return-finally",
        VI,
        VI_BASE,
        _vitest("try {\n  return\n} finally {\n  // cleanup\n}\nexpect(add(1, 2)).toBe(3)"),
    ),
    _v(
        "js-labelled-break",
        VI,
        VI_BASE,
        _vitest("check: {\n  break check\n  expect(add(1, 2)).toBe(3)\n}"),
    ),
    _v(
        "js-do-while-false-break",
        VI,
        VI_BASE,
        _vitest("do {\n  break\n  expect(add(1, 2)).toBe(3)\n} while (false)"),
    ),
    _v(
        "js-switch-no-case",
        VI,
        VI_BASE,
        _vitest("switch (1) {\n  case 2:\n    expect(add(1, 2)).toBe(3)\n}"),
    ),
    _v(
        "mocha-process-exit",
        MOCHA,
        MOCHA_BASE,
        _mocha("process.exit(0)\nassert.strictEqual(add(1, 2), 3)"),
    ),
    _v("js-while-0", VI, VI_BASE, _vitest("while (0) {\n  expect(add(1, 2)).toBe(3)\n}")),
    # ---- JS: cannot fail ----
    _v("js-expected-from-actual", VI, VI_BASE, _vitest("expect(add(1, 2)).toBe(add(1, 2))")),
    _v("js-tautology-via-const", VI, VI_BASE, _vitest("const x = 3\nexpect(x).toBe(3)")),
    _v("js-true-toBeTruthy", VI, VI_BASE, _vitest("expect(true).toBeTruthy()")),
    _v("js-null-toBeNull", VI, VI_BASE, _vitest("expect(null).toBeNull()")),
    _v("js-zero-toBe-zero", VI, VI_BASE, _vitest("expect(0).toBe(0)")),
    _v("js-empty-array-toEqual", VI, VI_BASE, _vitest("expect([]).toEqual([])")),
    _v("js-matcher-not-called", VI, VI_BASE, _vitest("expect(add(1, 2)).toBe")),
    _v(
        "js-literals-with-message",
        VI,
        VI_BASE,
        _vitest("expect(3, `sum ${add(1, 2)}`).toBe(3)"),
    ),
    _v("node-assert-equal-1-1", NODE, NODE_BASE, _node("assert.equal(1, 1)")),
    _v("node-assert-ok-not-0", NODE, NODE_BASE, _node("assert.ok(!0)")),
    _v(
        "js-try-catch-swallow",
        VI,
        VI_BASE,
        _vitest("try {\n  expect(add(1, 2)).toBe(3)\n} catch {\n  // flaky\n}"),
    ),
    _v(
        "js-toThrow-inversion",
        VI,
        VI_BASE,
        _vitest("expect(() => expect(add(1, 2)).toBe(3)).toThrow()"),
    ),
    _v(
        "js-arrow-never-called",
        VI,
        VI_BASE,
        _vitest("const check = () => expect(add(1, 2)).toBe(3)"),
    ),
    # ---- JS: empty tables ----
    _v(
        "js-for-of-concat-empty",
        VI,
        VI_BASE,
        _vitest("for (const a of [].concat([])) {\n  expect(add(a, 2)).toBe(a + 2)\n}"),
    ),
    _v(
        "js-for-i-lt-0",
        VI,
        VI_BASE,
        _vitest("for (let a = 0; a < 0; a++) {\n  expect(add(a, 2)).toBe(a + 2)\n}"),
    ),
    _v(
        "js-empty-forEach",
        VI,
        VI_BASE,
        _vitest("[].forEach((a) => expect(add(a, 2)).toBe(a + 2))"),
    ),
    _v(
        "js-test-each-empty-literal",
        VI,
        VI2_BASE,
        _vitest(
            "expect(add(a, 2)).toBe(a + 2)", top=OTHER, opener="test.each([])('adds', (a) => {"
        ),
    ),
    _v(
        "js-test-each-Array-0",
        VI,
        VI2_BASE,
        _vitest(
            "expect(add(a, 2)).toBe(a + 2)",
            top=OTHER,
            opener="test.each(Array(0))('adds', (a) => {",
        ),
    ),
    _v(
        "js-it-each-concat",
        VI,
        VI2_BASE,
        _vitest(
            "expect(add(a, 2)).toBe(a + 2)",
            top=OTHER,
            opener="it.each([].concat([]))('adds', (a) => {",
        ),
    ),
    # ---- JS: asynchronous escapes ----
    _v(
        "js-timer-past-the-run",
        VI,
        VI_BASE,
        _vitest("setTimeout(() => expect(add(1, 2)).toBe(3), 60_000)"),
    ),
    _v(
        "jest-unref-timer",
        JEST,
        JEST_BASE,
        _jest("setTimeout(() => expect(add(1, 2)).toBe(3), 60_000).unref()"),
    ),
    _v(
        "jest-promise-catch-swallow",
        JEST,
        JEST_BASE,
        _jest(
            """
            return Promise.resolve(add(1, 2))
              .then((sum) => expect(sum).toBe(3))
              .catch(() => {})
            """
        ),
    ),
    # ---- Go ----
    _v("go-if-false", GO, GO_BASE, _go("if false {\n" + _body(GO_CHECK, "    ") + "\n}")),
    _v("go-if-1-eq-2", GO, GO_BASE, _go("if 1 == 2 {\n" + _body(GO_CHECK, "    ") + "\n}")),
    _v(
        "go-const-debug",
        GO,
        GO_BASE,
        _go("if debug {\n" + _body(GO_CHECK, "    ") + "\n}", top="const debug = false"),
    ),
    _v(
        "go-short-or-true-return",
        GO,
        GO_BASE,
        _go("if testing.Short() || true {\n\treturn\n}\n" + GO_CHECK),
    ),
    _v(
        "go-cond-and-1-gt-2",
        GO,
        GO_BASE,
        _go('if got := Add(1, 2); got != 3 && 1 > 2 {\n\tt.Errorf("Add(1, 2) = %d", got)\n}'),
    ),
    _v(
        "go-check-against-itself",
        GO,
        GO_BASE,
        _go('if Add(1, 2) != Add(1, 2) {\n\tt.Errorf("Add(1, 2) is not stable")\n}'),
    ),
    _v("go-bare-block-return", GO, GO_BASE, _go("{\n\treturn\n}\n" + GO_CHECK)),
    _v("go-goto-past-check", GO, GO_BASE, _go("goto done\n" + GO_CHECK + "done:")),
    _v(
        "go-switch-case-false",
        GO,
        GO_BASE,
        _go("switch {\ncase false:\n" + _body(GO_CHECK, "    ") + "\n}"),
    ),
    _v("go-for-false", GO, GO_BASE, _go("for false {\n" + _body(GO_CHECK, "    ") + "\n}")),
    _v(
        "go-range-empty-literal",
        GO,
        GO_BASE,
        _go(
            "for _, a := range []int{} {\n"
            '\tif got := Add(a, 2); got != a+2 {\n\t\tt.Errorf("Add = %d", got)\n\t}\n}'
        ),
    ),
    _v(
        "go-empty-table-variable",
        GO,
        GO_BASE,
        _go(
            """
            tests := []struct{ a, b, want int }{}
            for _, tc := range tests {
                if got := Add(tc.a, tc.b); got != tc.want {
                    t.Errorf("Add(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
                }
            }
            """
        ),
    ),
    _v(
        "go-for-i-lt-0",
        GO,
        GO_BASE,
        _go(
            "for a := 0; a < 0; a++ {\n"
            '\tif got := Add(a, 2); got != a+2 {\n\t\tt.Errorf("Add = %d", got)\n\t}\n}'
        ),
    ),
    _v(
        "go-shadowed-t",
        GO,
        GO_BASE,
        _go("t = new(testing.T) // a T of its own: its failures reach no one\n" + GO_CHECK),
    ),
    _v(
        "go-panic-recovered",
        GO,
        GO_BASE,
        _go('defer func() { _ = recover() }()\npanic("not yet")\n' + GO_CHECK),
    ),
    _v(
        "go-closure-never-called",
        GO,
        GO_BASE,
        _go("check := func() {\n" + _body(GO_CHECK, "    ") + "\n}\n_ = check"),
    ),
    _v(
        "go-testify-expected-from-actual",
        GO,
        TESTIFY_BASE,
        _go("assert.Equal(t, Add(1, 2), Add(1, 2))", imports=TESTIFY),
    ),
    _v(
        "go-testify-equal-0-0",
        GO,
        TESTIFY_BASE,
        _go("assert.Equal(t, 0, 0)", imports=TESTIFY),
    ),
    _v(
        "go-testify-nil-nil",
        GO,
        TESTIFY_BASE,
        _go("assert.Nil(t, nil)", imports=TESTIFY),
    ),
    _v(
        "go-testify-literals-with-message",
        GO,
        TESTIFY_BASE,
        _go('assert.Equal(t, 3, 3, "sum %d", Add(1, 2))', imports=TESTIFY),
    ),
    # ---- Rust ----
    _v("rs-if-false", RS, RS_BASE, _rust("if false {\n    assert_eq!(add(1, 2), 3);\n}")),
    _v("rs-if-1-gt-2", RS, RS_BASE, _rust("if 1 > 2 {\n    assert_eq!(add(1, 2), 3);\n}")),
    _v(
        "rs-if-cfg-any",
        RS,
        RS_BASE,
        _rust("if cfg!(any()) {\n    assert_eq!(add(1, 2), 3);\n}"),
    ),
    _v("rs-cfg-any-on-statement", RS, RS_BASE, _rust("#[cfg(any())]\nassert_eq!(add(1, 2), 3);")),
    _v(
        "rs-const-skip",
        RS,
        RS_BASE,
        _rust(
            "if SKIP {\n    return;\n}\nassert_eq!(add(1, 2), 3);", top="const SKIP: bool = true;"
        ),
    ),
    _v("rs-bare-block-return", RS, RS_BASE, _rust("{\n    return;\n}\nassert_eq!(add(1, 2), 3);")),
    _v(
        "rs-loop-break",
        RS,
        RS_BASE,
        _rust("loop {\n    break;\n    assert_eq!(add(1, 2), 3);\n}"),
    ),
    _v(
        "rs-process-exit",
        RS,
        RS_BASE,
        _rust("std::process::exit(0);\nassert_eq!(add(1, 2), 3);"),
    ),
    _v(
        "rs-catch-unwind",
        RS,
        RS_BASE,
        _rust("let _ = std::panic::catch_unwind(|| assert_eq!(add(1, 2), 3));"),
    ),
    _v(
        "rs-thread-join-dropped",
        RS,
        RS_BASE,
        _rust("let _ = std::thread::spawn(|| assert_eq!(add(1, 2), 3)).join();"),
    ),
    _v(
        "rs-empty-repeat-array",
        RS,
        RS_BASE,
        _rust("for (a, b, want) in [(1, 2, 3); 0] {\n    assert_eq!(add(a, b), want);\n}"),
    ),
    _v("rs-range-0", RS, RS_BASE, _rust("for a in 0..0 {\n    assert_eq!(add(a, 2), a + 2);\n}")),
    _v(
        "rs-match-no-arm",
        RS,
        RS_BASE,
        _rust("match 0 {\n    1 => assert_eq!(add(1, 2), 3),\n    _ => {}\n}"),
    ),
    _v(
        "rs-if-let-none",
        RS,
        RS_BASE,
        _rust("if let Some(a) = None::<i32> {\n    assert_eq!(add(a, 2), a + 2);\n}"),
    ),
    _v(
        "rs-closure-never-called",
        RS,
        RS_BASE,
        _rust("let _check = || assert_eq!(add(1, 2), 3);"),
    ),
    _v("rs-expected-from-actual", RS, RS_BASE, _rust("assert_eq!(add(1, 2), add(1, 2));")),
    _v("rs-assert-eq-0-0", RS, RS_BASE, _rust("assert_eq!(0, 0);")),
    _v("rs-assert-not-false", RS, RS_BASE, _rust("assert!(!false);")),
    _v("rs-true-or", RS, RS_BASE, _rust("assert!(true || add(1, 2) == 3);")),
    _v(
        "rs-literals-with-message",
        RS,
        RS_BASE,
        _rust('assert_eq!(3, 3, "sum {}", add(1, 2));'),
    ),
    # ---- Java (JUnit 5) ----
    _v(
        "java-if-false",
        JV,
        JV_BASE,
        _java("if (false) {\n    assertEquals(3, Calc.add(1, 2));\n}"),
    ),
    _v(
        "java-if-1-eq-2",
        JV,
        JV_BASE,
        _java("if (1 == 2) {\n    assertEquals(3, Calc.add(1, 2));\n}"),
    ),
    _v(
        "java-if-Boolean-FALSE",
        JV,
        JV_BASE,
        _java("if (Boolean.FALSE) {\n    assertEquals(3, Calc.add(1, 2));\n}"),
    ),
    _v(
        "java-static-final-skip",
        JV,
        JV_BASE,
        _java(
            "if (SKIP) {\n    return;\n}\nassertEquals(3, Calc.add(1, 2));",
            top="static final boolean SKIP = true;",
        ),
    ),
    _v(
        "java-do-if-true-break",
        JV,
        JV_BASE,
        _java("do {\n    if (true) break;\n    assertEquals(3, Calc.add(1, 2));\n} while (false);"),
    ),
    _v(
        "java-labelled-break-1-gt-0",
        JV,
        JV_BASE,
        _java("check: {\n    if (1 > 0) break check;\n    assertEquals(3, Calc.add(1, 2));\n}"),
    ),
    _v(
        "java-switch-no-case",
        JV,
        JV_BASE,
        _java("switch (1) {\n    case 2:\n        assertEquals(3, Calc.add(1, 2));\n}"),
    ),
    _v(
        "java-catch-assertionerror",
        JV,
        JV_BASE,
        _java(
            "try {\n    assertEquals(3, Calc.add(1, 2));\n} catch (AssertionError e) {\n"
            "    // known issue\n}"
        ),
    ),
    _v(
        "java-assertThrows-inversion",
        JV,
        JV_BASE,
        _java("assertThrows(AssertionError.class, () -> assertEquals(3, Calc.add(1, 2)));"),
    ),
    _v(
        "java-runnable-never-run",
        JV,
        JV_BASE,
        _java("Runnable check = () -> assertEquals(3, Calc.add(1, 2));"),
    ),
    _v(
        "java-for-i-lt-0",
        JV,
        JV_BASE,
        _java("for (int a = 0; a < 0; a++) {\n    assertEquals(a + 2, Calc.add(a, 2));\n}"),
    ),
    _v(
        "java-foreach-empty-array",
        JV,
        JV_BASE,
        _java("for (int[] r : new int[0][]) {\n    assertEquals(r[2], Calc.add(r[0], r[1]));\n}"),
    ),
    _v(
        "java-expected-from-actual",
        JV,
        JV_BASE,
        _java("assertEquals(Calc.add(1, 2), Calc.add(1, 2));"),
    ),
    _v("java-assertTrue-1-eq-1", JV, JV_BASE, _java("assertTrue(1 == 1);")),
    _v("java-assertTrue-not-false", JV, JV_BASE, _java("assertTrue(!false);")),
    _v("java-assertEquals-0-0", JV, JV_BASE, _java("assertEquals(0, 0);")),
    _v("java-assertNull-null", JV, JV_BASE, _java("assertNull(null);")),
    _v(
        "java-literals-with-message",
        JV,
        JV_BASE,
        _java('assertEquals(3, 3, "sum " + Calc.add(1, 2));'),
    ),
    # ---- PHP (PHPUnit) ----
    _v(
        "php-if-0",
        PHP,
        PHP_BASE,
        _php("if (0) {\n    $this->assertSame(3, add(1, 2));\n}"),
    ),
    _v(
        "php-if-false",
        PHP,
        PHP_BASE,
        _php("if (false) {\n    $this->assertSame(3, add(1, 2));\n}"),
    ),
    _v(
        "php-if-true-return",
        PHP,
        PHP_BASE,
        _php("if (true) {\n    return;\n}\n$this->assertSame(3, add(1, 2));"),
    ),
    _v(
        "php-while-0",
        PHP,
        PHP_BASE,
        _php("while (0) {\n    $this->assertSame(3, add(1, 2));\n}"),
    ),
    _v(
        "php-if-null",
        PHP,
        PHP_BASE,
        _php("if (null) {\n    $this->assertSame(3, add(1, 2));\n}"),
    ),
    _v(
        "php-if-not-1",
        PHP,
        PHP_BASE,
        _php("if (!1) {\n    $this->assertSame(3, add(1, 2));\n}"),
    ),
    _v(
        "php-if-empty-string",
        PHP,
        PHP_BASE,
        _php("if ('') {\n    $this->assertSame(3, add(1, 2));\n}"),
    ),
    _v(
        "php-if-1-gt-2",
        PHP,
        PHP_BASE,
        _php("if (1 > 2) {\n    $this->assertSame(3, add(1, 2));\n}"),
    ),
    _v(
        "php-class-constant",
        PHP,
        PHP_BASE,
        _php(
            "if (self::SKIP) {\n    return;\n}\n$this->assertSame(3, add(1, 2));",
            top="private const SKIP = true;\n",
        ),
    ),
    _v("php-exit-0", PHP, PHP_BASE, _php("exit(0);\n$this->assertSame(3, add(1, 2));")),
    _v(
        "php-bare-block-return",
        PHP,
        PHP_BASE,
        _php("{\n    return;\n}\n$this->assertSame(3, add(1, 2));"),
    ),
    _v(
        "php-goto-past",
        PHP,
        PHP_BASE,
        _php("goto done;\n$this->assertSame(3, add(1, 2));\ndone:\n;"),
    ),
    _v(
        "php-switch-no-case",
        PHP,
        PHP_BASE,
        _php("switch (1) {\n    case 2:\n        $this->assertSame(3, add(1, 2));\n}"),
    ),
    _v(
        "php-foreach-empty",
        PHP,
        PHP_BASE,
        _php("foreach ([] as [$a, $b, $want]) {\n    $this->assertSame($want, add($a, $b));\n}"),
    ),
    _v(
        "php-catch-throwable",
        PHP,
        PHP_BASE,
        _php("try {\n    $this->assertSame(3, add(1, 2));\n} catch (\\Throwable $e) {\n}"),
    ),
    _v(
        "php-expect-failure",
        PHP,
        PHP_BASE,
        _php(
            "$this->expectException(\\PHPUnit\\Framework\\ExpectationFailedException::class);\n"
            "$this->assertSame(3, add(1, 2));"
        ),
    ),
    _v(
        "php-closure-never-called",
        PHP,
        PHP_BASE,
        _php("$check = fn () => $this->assertSame(3, add(1, 2));"),
    ),
    _v(
        "php-expected-from-actual",
        PHP,
        PHP_BASE,
        _php("$this->assertSame(add(1, 2), add(1, 2));"),
    ),
    _v("php-assertSame-0-0", PHP, PHP_BASE, _php("$this->assertSame(0, 0);")),
    _v("php-assertNull-null", PHP, PHP_BASE, _php("$this->assertNull(null);")),
    _v("php-assertTrue-not-false", PHP, PHP_BASE, _php("$this->assertTrue(!false);")),
    _v(
        "php-literals-with-message",
        PHP,
        PHP_BASE,
        _php("$this->assertSame(3, 3, 'sum ' . add(1, 2));"),
    ),
]


HONEST: list[Variant] = [
    # ---- Python ----
    _v(
        "py-message-and-platform-return-after",
        PY,
        PY_BASE,
        _pytest(
            """
            import sys

            assert add(1, 2) == 3, "add(1, 2)"
            if sys.platform == "win32":
                return
            assert add(-1, -2) == -3
            """
        ),
    ),
    _v(
        "py-guard-on-a-name",
        PY,
        PY_BASE,
        _pytest("if add is None:\n    return\nassert add(1, 2) == 3"),
    ),
    _v(
        "py-parametrize-rows",
        PY,
        PY_BASE,
        _pytest(
            "assert add(a, b) == want",
            deco='@pytest.mark.parametrize(("a", "b", "want"), [(1, 2, 3), (0, 0, 0)])',
            params="a, b, want",
        ),
    ),
    _v(
        "py-module-table-with-rows",
        PY,
        PY_BASE,
        _pytest(
            "for a, b, want in ROWS:\n    assert add(a, b) == want",
            top="ROWS: list[tuple[int, int, int]] = [(1, 2, 3), (0, 0, 0)]",
        ),
    ),
    _v(
        "py-module-level-helper",
        PY,
        PY_BASE,
        _pytest(
            "check(1, 2, 3)",
            top="\n\ndef check(a, b, want):\n    assert add(a, b) == want, f'add({a}, {b})'",
        ),
    ),
    _v(
        "pyu-subtests-over-rows",
        PYU,
        PYU_BASE,
        _unittest(
            """
            for a, b, want in ((1, 2, 3), (0, 0, 0)):
                with self.subTest(a=a, b=b):
                    self.assertEqual(add(a, b), want)
            """
        ),
    ),
    _v(
        "pyu-helper-method",
        PYU,
        PYU_BASE,
        _unittest(
            "self.check(1, 2, 3)",
            top="def check(self, a, b, want):\n    self.assertEqual(add(a, b), want)\n",
        ),
    ),
    # ---- JS/TS ----
    _v(
        "js-ci-return-after",
        VI,
        VI_BASE,
        _vitest("expect(add(1, 2)).toBe(3)\nif (process.env.CI) return\nexpect(add(0, 0)).toBe(0)"),
    ),
    _v(
        "js-moved-into-describe",
        VI,
        VI_BASE,
        _vitest(
            "test('adds', () => {\n  expect(add(1, 2)).toBe(3)\n})",
            opener="describe('add', () => {",
        ),
    ),
    _v(
        "js-test-each-rows",
        VI,
        VI_BASE,
        _vitest(
            "expect(add(a, b)).toBe(want)",
            opener="test.each([[1, 2, 3], [0, 0, 0]])('adds', (a, b, want) => {",
        ),
    ),
    _v(
        "js-for-over-file-table",
        VI,
        VI_BASE,
        _vitest(
            "for (const [a, b, want] of ROWS) {\n  expect(add(a, b)).toBe(want)\n}",
            top="const ROWS = [\n  [1, 2, 3],\n  [0, 0, 0],\n]",
        ),
    ),
    _v(
        "js-await-async",
        VI,
        VI_BASE,
        _vitest(
            "expect(await Promise.resolve(add(1, 2))).toBe(3)",
            opener="test('adds', async () => {",
        ),
    ),
    _v(
        "js-message-and-chai-style",
        VI,
        VI_BASE,
        _vitest("expect(add(1, 2), 'add(1, 2)').toBe(3)\nexpect(add(2, 2)).not.toBe(0)"),
    ),
    _v(
        "js-module-level-helper",
        VI,
        VI_BASE,
        _vitest(
            "check(1, 2, 3)",
            top="function check(a, b, want) {\n  expect(add(a, b)).toBe(want)\n}",
        ),
    ),
    _v(
        "mocha-done-after-assert",
        MOCHA,
        MOCHA_BASE,
        _mocha(
            "setImmediate(() => {\n  assert.strictEqual(add(1, 2), 3)\n  done()\n})",
            opener="it('adds', function (done) {",
        ),
    ),
    _v(
        "node-subtest",
        NODE,
        NODE_BASE,
        _node(
            "await t.test('small numbers', () => {\n  assert.equal(add(1, 2), 3)\n})",
            opener="test('adds', async (t) => {",
        ),
    ),
    # ---- Go ----
    _v(
        "go-table-with-t-run",
        GO,
        GO_BASE,
        _go(
            """
            tests := []struct{ a, b, want int }{{1, 2, 3}, {0, 0, 0}}
            for _, tc := range tests {
                t.Run(fmt.Sprint(tc.a, "+", tc.b), func(t *testing.T) {
                    if got := Add(tc.a, tc.b); got != tc.want {
                        t.Errorf("Add(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
                    }
                })
            }
            """,
            imports='"fmt"\n"testing"',
        ),
    ),
    _v(
        "go-short-return-after",
        GO,
        GO_BASE,
        _go(
            GO_CHECK
            + "if testing.Short() {\n\treturn\n}\n"
            + GO_CHECK.replace("1, 2", "0, 0").replace("3", "0")
        ),
    ),
    _v(
        "go-package-helper",
        GO,
        GO_BASE,
        _go(
            "checkAdd(t, 1, 2, 3)",
            top=(
                "func checkAdd(t *testing.T, a, b, want int) {\n\tt.Helper()\n"
                '\tif got := Add(a, b); got != want {\n\t\tt.Errorf("Add = %d", got)\n\t}\n}'
            ),
        ),
    ),
    _v(
        "go-testify-require",
        GO,
        TESTIFY_BASE,
        _go(
            "require.Equal(t, 3, Add(1, 2))",
            imports='"testing"\n\n"github.com/stretchr/testify/require"',
        ),
    ),
    # ---- Rust ----
    _v(
        "rs-result-question-mark-after",
        RS,
        RS_BASE,
        _rust(
            'assert_eq!(add(1, 2), 3);\nlet n: i32 = "3".parse()?;\n'
            "assert_eq!(add(n, 0), n);\nOk(())",
            signature="fn adds() -> Result<(), std::num::ParseIntError>",
        ),
    ),
    _v(
        "rs-table-with-rows",
        RS,
        RS_BASE,
        _rust(
            "for (a, b, want) in [(1, 2, 3), (0, 0, 0)] {\n"
            '    assert_eq!(add(a, b), want, "add({a}, {b})");\n}'
        ),
    ),
    _v(
        "rs-helper-fn",
        RS,
        RS_BASE,
        _rust(
            "check(1, 2, 3);",
            top="fn check(a: i32, b: i32, want: i32) {\n    assert_eq!(add(a, b), want);\n}",
        ),
    ),
    # ---- Java ----
    _v(
        "java-assertAll",
        JV,
        JV_BASE,
        _java(
            "assertAll(\n    () -> assertEquals(3, Calc.add(1, 2)),\n"
            "    () -> assertEquals(0, Calc.add(0, 0)));"
        ),
    ),
    _v(
        "java-message",
        JV,
        JV_BASE,
        _java('assertEquals(3, Calc.add(1, 2), "add(1, 2)");'),
    ),
    # ---- PHP ----
    _v(
        "php-data-provider",
        PHP,
        PHP_BASE,
        _php(
            "$this->assertSame($want, add($a, $b));",
            top=(
                "public static function sums(): array\n{\n    return [[1, 2, 3], [0, 0, 0]];\n}\n"
            ),
            head="/** @dataProvider sums */\n    public function testAdd(int $a, int $b, "
            "int $want): void",
        ),
    ),
    _v(
        "php-static-assert",
        PHP,
        PHP_BASE,
        _php("self::assertSame(3, add(1, 2));\nstatic::assertSame(0, add(0, 0));"),
    ),
]


# ---------- what the readers miss today, and why ----------
ALWAYS = "a condition that reads a name is taken to go either way, even one that always holds"
SWITCH = "switch/match arms are not compared with the literal subject"
SWALLOWED = "what swallows the assertion's failure ({}) is not read"
INVERTED = "an assertion wrapped in one that expects it to fail counts (twice)"
NEVER_RUNS = "an assertion in a function that never runs ({}) counts as in the test body"

OPEN: dict[str, str] = {
    # Python
    "py-version-check": ALWAYS,
    "py-assert-function-object": "`assert add` reads a name; a function object is always true",
    "py-match-no-case": SWITCH,
    # JS/TS
    "js-typeof-guard-return": ALWAYS,
    "js-for-of-concat-empty": "_no_rows wants a literal `[]`: `[].concat([])` is a call",
    "js-test-each-Array-0": "each() reads as empty only for a literal `[]`: `Array(0)` is a call",
    "js-it-each-concat": "each() reads as empty only for a literal `[]`: `[].concat([])` is a call",
    "js-timer-past-the-run": NEVER_RUNS.format("a timer due after the run ends"),
    "jest-unref-timer": NEVER_RUNS.format("an unref'd timer due after the run ends"),
    # Go
    "go-check-against-itself": "t.Errorf has no heads, and its if comparing a call with itself "
    "is not read",
    "go-shadowed-t": "the owner is matched by name: `t = new(testing.T)` sends failures nowhere",
    "go-panic-recovered": "a panic is not an exit, and a deferred recover() turns it into a pass",
    # Rust
    "rs-thread-join-dropped": SWALLOWED.format("a thread whose join() Err is dropped"),
    "rs-match-no-arm": SWITCH,
    # Java
    # PHP
    "php-expect-failure": INVERTED + " (expectException(ExpectationFailedException))",
}

HELPER = "assertions are counted in the test's own body: one moved to a helper reads as removed"
FALSE_ALARMS: dict[str, str] = {}


def _param(variant: Variant, open_: dict[str, str]) -> object:
    reason = open_.get(variant.name)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(variant, id=variant.name, marks=marks)


def _found(variant: Variant) -> list[Tampering]:
    return detect([variant.path], lambda p: variant.before, lambda p: variant.after)


@pytest.mark.parametrize("variant", [_param(v, OPEN) for v in ATTACKS])
def test_an_assertion_that_cannot_run_or_fail_is_reported(variant: Variant) -> None:
    assert _found(variant), f"{variant.name}: the tampered test reads as still checking"


@pytest.mark.parametrize("variant", [_param(v, FALSE_ALARMS) for v in HONEST])
def test_an_honest_edit_is_not_reported(variant: Variant) -> None:
    assert _found(variant) == [], f"{variant.name}: an honest edit is taken for tampering"


def test_every_open_case_names_a_variant() -> None:
    names = [v.name for v in [*ATTACKS, *HONEST]]
    assert len(names) == len(set(names))
    assert set(OPEN) <= {v.name for v in ATTACKS}
    assert set(FALSE_ALARMS) <= {v.name for v in HONEST}


# Each base with its assertion dropped (the call kept): the readers see the base's assertion, so
# an honest case passes because the assertion is still read, not because none ever was.
GUTTED = {
    PY_BASE: _pytest("add(1, 2)"),
    PYU_BASE: _unittest("add(1, 2)"),
    VI_BASE: _vitest("add(1, 2)"),
    VI2_BASE: _vitest("add(1, 2)", top=OTHER),
    TS_BASE: _vitest("add(1, 2)").replace("./calc.js", "./calc"),
    JEST_BASE: _jest("add(1, 2)"),
    MOCHA_BASE: _mocha("add(1, 2)"),
    NODE_BASE: _node("add(1, 2)"),
    GO_BASE: _go("_ = Add(1, 2)"),
    TESTIFY_BASE: _go("_ = Add(1, 2)"),
    RS_BASE: _rust("let _ = add(1, 2);"),
    JV_BASE: _java("Calc.add(1, 2);"),
    PHP_BASE: _php("add(1, 2);"),
}
BASES = {v.before: v.path for v in [*ATTACKS, *HONEST]}


@pytest.mark.parametrize(("before", "path"), list(BASES.items()), ids=list(BASES.values()))
def test_each_base_is_read_with_its_assertion(before: str, path: str) -> None:
    assert detect([path], lambda p: before, lambda p: before) == []
    gutted = detect([path], lambda p: before, lambda p: GUTTED[before])
    assert [f.kind for f in gutted] == ["assertions_removed"]
