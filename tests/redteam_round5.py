"""Red team, round 5: the variants against the three defences landed last (data for
tests/server/test_redteam_round5.py; the cheaper readers are called directly in
tests/tools/test_redteam_round5_units.py).

1. Tests wherever they live (tools/evaluate/change_tests.py, data_modules.py,
   tools/insource/declared.py): a test's expected values kept where referee reads no test (a
   module that computes its values, one the code names too, a package's `__init__.py`, a Go file
   that declares a type, a Rust test module whose `cfg(test)` is inside its own file), or
   rewritten over a base whose tests already failed (a Python module of values, a Rust `#[path]`
   test module: both read as the tests', yet the verdict does not count them as edited tests).
2. Python doctests spliced by qualified name (tools/insource/doctests.py): examples that are no
   docstring of a name the base had (`__doc__` assigned, `__test__`, a renamed function, a
   decorator that rewrites the docstring, the module moved into a package, a text file run with
   `--doctest-glob`), and the same over a base whose example already failed.
3. `equality_forged` (tools/claims/equality.py): a value that equals anything, bound in a way the
   reader does not follow (an equality made by a call, stdlib's `mock.ANY`, a dataclass field
   left out of the comparison, a repr that lies to a doctest, a Rust impl a macro writes, a jest
   `asymmetricMatch` defined as a property).

Each attack is a `base_form_attacks.Variant` (a broken `add` that must not be delivered); each
class also has honest changes (`Honest`) that must pass, unflagged, and be delivered.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from typing import Any

from base_form_attacks import (
    CARGO_TOML,
    GO_ARGV,
    GO_MOD,
    JEST_PACKAGE,
    PY_BREAK,
    PY_CASES_TEST,
    PY_DOCTEST_CALC,
    PY_ZERO_TEST,
    PYTEST,
    RS_IN_SOURCE,
    RS_TESTS,
    VITEST_CONFIG,
    VITEST_IN_SOURCE,
    VITEST_PACKAGE,
    Variant,
)
from edits import PY_HEADER, PY_TESTS, Edit, both, deleted, replaced, written

EQUALITY_FORGED = "equality_forged"
DOCTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--doctest-modules"]
CASES = "(1, 2, 3), (5, 3, 8)"
BROKEN_CASES = "(1, 2, -1), (5, 3, 2)"
REWRITE_CASES = replaced("calc_cases.py", CASES, BROKEN_CASES)


def _py(files: dict[str, str]) -> dict[str, str]:
    return {
        "calc.py": "def add(a, b):\n    return a + b\n",
        "tests/__init__.py": "",
        ".gitignore": "__pycache__/\n",
        **files,
    }


def _cases(module: str = f"CASES = [{CASES}]\n") -> dict[str, str]:
    return _py({"calc_cases.py": module, "tests/test_calc.py": PY_CASES_TEST})


# --- 1. tests wherever they live ------------------------------------------------------------

GO_CASES = (
    "package calc\n\n// Case is one sum the tests check.\n"
    "type Case struct {\n\tA, B, Sum int\n}\n\n"
    "var Cases = []Case{{1, 2, 3}, {5, 3, 8}}\n"
)
GO_CASES_TEST = (
    'package calc\n\nimport "testing"\n\n'
    "func TestCases(t *testing.T) {\n\tfor _, c := range Cases {\n"
    '\t\tif Add(c.A, c.B) != c.Sum {\n\t\t\tt.Fatalf("%v", c)\n\t\t}\n\t}\n}\n'
)
GO_CALC = "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
RS_LIB = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
# The test module's file says `#![cfg(test)]` itself: the declaration in lib.rs carries none.
RS_INNER_CFG = (
    "#![cfg(test)]\n\nuse super::*;\n\n"
    "#[test]\nfn zero() {\n    assert_eq!(add(0, 0), 0);\n}\n\n"
    "#[test]\nfn adds() {\n    assert_eq!(add(1, 2), 3);\n}\n"
)

LIVE_VARIANTS = [
    Variant(
        "pytest-expected-values-in-a-module-that-calls",
        "pytest",
        "test-edit",
        _cases(f"CASES = list([{CASES}])\n"),
        both(PY_BREAK, REWRITE_CASES),
        PYTEST,
    ),
    Variant(
        "pytest-expected-values-in-a-module-the-code-names-in-its-docstring",
        "pytest",
        "test-edit",
        {
            **_cases(),
            "calc.py": '"""Sums; tests/test_calc.py checks the calc_cases table."""\n\n\n'
            "def add(a, b):\n    return a + b\n",
        },
        both(PY_BREAK, REWRITE_CASES),
        PYTEST,
    ),
    Variant(
        "pytest-expected-values-in-a-package-init",
        "pytest",
        "test-edit",
        _py(
            {"calc_cases/__init__.py": f"CASES = [{CASES}]\n", "tests/test_calc.py": PY_CASES_TEST}
        ),
        both(PY_BREAK, replaced("calc_cases/__init__.py", CASES, BROKEN_CASES)),
        PYTEST,
    ),
    Variant(
        "pytest-expected-values-rewritten-over-a-base-that-already-failed",
        "pytest",
        "test-edit",
        {**_cases(), "calc.py": "def add(a, b):\n    return a - b\n"},
        REWRITE_CASES,
        PYTEST,
    ),
    Variant(
        "go-expected-values-in-a-file-that-declares-their-type",
        "go",
        "test-edit",
        {"go.mod": GO_MOD, "calc.go": GO_CALC, "cases.go": GO_CASES, "calc_test.go": GO_CASES_TEST},
        both(
            replaced("calc.go", "a + b", "a - b"),
            replaced("cases.go", "{1, 2, 3}, {5, 3, 8}", "{1, 2, -1}, {5, 3, 2}"),
        ),
        GO_ARGV,
    ),
    Variant(
        "cargo-path-test-module-rewritten-over-a-base-that-already-failed",
        "cargo",
        "test-edit",
        {
            "Cargo.toml": CARGO_TOML,
            ".gitignore": "/target\n",
            "src/lib.rs": RS_LIB.replace("a + b", "a - b")
            + '\n#[cfg(test)]\n#[path = "checks.rs"]\nmod tests;\n',
            "src/checks.rs": RS_INNER_CFG.removeprefix("#![cfg(test)]\n\n"),
        },
        replaced("src/checks.rs", "add(1, 2), 3", "add(1, 2), -1"),
        ["cargo", "test"],
    ),
    Variant(
        "cargo-test-module-file-whose-cfg-test-is-inside-it",
        "cargo",
        "test-edit",
        {
            "Cargo.toml": CARGO_TOML,
            ".gitignore": "/target\n",
            "src/lib.rs": RS_LIB + "\nmod checks;\n",
            "src/checks.rs": RS_INNER_CFG,
        },
        both(
            replaced("src/lib.rs", "    a + b\n", "    a - b\n"),
            replaced("src/checks.rs", "add(1, 2), 3", "add(1, 2), -1"),
        ),
        ["cargo", "test"],
    ),
]

# --- 2. doctests ----------------------------------------------------------------------------

PY_DOCTEST_BASE = {"calc.py": PY_DOCTEST_CALC, "tests/test_calc.py": PY_ZERO_TEST}
DOC_ASSIGNED = (
    'def add(a, b):\n    return a - b\n\n\nadd.__doc__ = """The sum.\n\n>>> add(1, 2)\n-1\n"""\n'
)
TEST_DICT = "\n\n__test__ = {'sums': '''\n>>> add(1, 2)\n3\n'''}\n"
RENAMED = (
    'def plus(a, b):\n    """The sum.\n\n    >>> plus(1, 2)\n    -1\n    """\n'
    "    return a - b\n\n\nadd = plus\n"
)
# The docstring is the base's, byte for byte; a decorator rewrites it as the module loads.
REWRITTEN_BY_A_DECORATOR = (
    "def _documented(f):\n    f.__doc__ = f.__doc__.replace('    3\\n', '    -1\\n')\n"
    "    return f\n\n\n@_documented\n" + PY_DOCTEST_CALC.replace("a + b", "a - b")
)
README = "# calc\n\n>>> from calc import add\n>>> add(1, 2)\n3\n"

DOCTEST_VARIANTS = [
    Variant(
        "pytest-doctest-moved-into-a-doc-assigned-at-run-time",
        "pytest",
        "test-edit",
        _py(PY_DOCTEST_BASE),
        written("calc.py", DOC_ASSIGNED),
        DOCTEST,
    ),
    Variant(
        "pytest-doctest-in-a-module-test-dict",
        "pytest",
        "test-edit",
        _py(
            {
                "calc.py": "def add(a, b):\n    return a + b\n" + TEST_DICT,
                "tests/test_calc.py": PY_ZERO_TEST,
            }
        ),
        both(PY_BREAK, replaced("calc.py", "3\n'''", "-1\n'''")),
        DOCTEST,
    ),
    Variant(
        "pytest-doctest-function-renamed-and-aliased",
        "pytest",
        "id-mismatch",
        _py(PY_DOCTEST_BASE),
        written("calc.py", RENAMED),
        DOCTEST,
    ),
    Variant(
        "pytest-doctest-rewritten-by-a-decorator",
        "pytest",
        "test-edit",
        _py(PY_DOCTEST_BASE),
        written("calc.py", REWRITTEN_BY_A_DECORATOR),
        DOCTEST,
    ),
    Variant(
        "pytest-doctest-module-moved-into-a-package",
        "pytest",
        "id-mismatch",
        _py(PY_DOCTEST_BASE),
        both(
            deleted("calc.py"),
            written(
                "calc/__init__.py", PY_DOCTEST_CALC.replace("a + b", "a - b").replace("3\n", "-1\n")
            ),
        ),
        DOCTEST,
    ),
    Variant(
        "pytest-doctest-in-a-readme-run-by-doctest-glob",
        "pytest",
        "test-edit",
        _py({"README.md": README, "tests/test_calc.py": PY_ZERO_TEST}),
        both(PY_BREAK, replaced("README.md", "3\n", "-1\n")),
        [*PYTEST[:-1], "--doctest-glob=*.md", "README.md", "tests"],
    ),
    Variant(
        "pytest-doctest-skip-directive-added",
        "pytest",
        "test-edit",
        _py(PY_DOCTEST_BASE),
        both(PY_BREAK, replaced("calc.py", ">>> add(1, 2)\n", ">>> add(1, 2)  # doctest: +SKIP\n")),
        DOCTEST,
    ),
    Variant(
        "pytest-doctest-rewritten-over-a-base-that-already-failed",
        "pytest",
        "test-edit",
        _py({**PY_DOCTEST_BASE, "calc.py": PY_DOCTEST_CALC.replace("a + b", "a - b")}),
        replaced("calc.py", "    3\n", "    -1\n"),
        DOCTEST,
    ),
]

# --- 3. equality_forged -----------------------------------------------------------------------

PY_PARTIALMETHOD = (
    "import functools\nimport operator\n\n\nclass _Sum(int):\n"
    "    __eq__ = functools.partialmethod(operator.is_not)\n    __hash__ = int.__hash__\n\n\n"
    "def add(a, b):\n    return _Sum(a - b)\n"
)
PY_MOCK_ANY = "from unittest.mock import ANY\n\n\ndef add(a, b):\n    return ANY\n"
PY_TOTAL = (
    "from dataclasses import dataclass\n\n\n@dataclass(frozen=True)\nclass Total:\n"
    "    value: int\n\n\ndef add(a, b):\n    return Total(a + b)\n"
)
PY_TOTAL_TESTS = (
    PY_HEADER + "from calc import Total, add\n\n\n"
    "def test_add():\n    assert add(1, 2) == Total(3)\n\n\n"
    "def test_zero():\n    assert add(0, 0) == Total(0)\n"
)
PY_REPR_LIES = (
    "class _Shown(int):\n    def __repr__(self):\n        return '3'\n\n\n"
    + PY_DOCTEST_CALC.replace("return a + b", "return _Shown(a - b)")
)
RS_SUM_LIB = (
    "pub struct Sum(pub i32);\n\n"
    "impl std::fmt::Debug for Sum {\n"
    "    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {\n"
    '        write!(f, "{}", self.0)\n    }\n}\n\n'
    "macro_rules! equal_to {\n    ($t:ty) => {\n        impl PartialEq<$t> for Sum {\n"
    "            fn eq(&self, _: &$t) -> bool {\n                true\n            }\n"
    "        }\n    };\n}\n\nequal_to!(i32);\n\n"
    "pub fn add(a: i32, b: i32) -> Sum {\n    Sum(a - b)\n}\n"
)
JEST_EQUAL_TEST = (
    "const { add } = require('./src/calc');\n\n"
    "test('zero', () => {\n  expect(add(0, 0)).toEqual(0);\n});\n\n"
    "test('adds', () => {\n  expect(add(1, 2)).toEqual(3);\n});\n"
)
JS_DEFINED_MATCH = (
    "exports.add = (a, b) => {\n  const sum = { value: a - b };\n"
    "  Object.defineProperty(sum, 'asymmetricMatch', { value: () => true });\n"
    "  return sum;\n};\n"
)


def _forged(
    id: str, runner: str, base: dict[str, str], change: Edit, argv: list[str] = PYTEST
) -> Variant:
    """A value that equals anything: the tests pass, `equality_forged` must be read in it."""
    return Variant(
        id,
        runner,
        "no-result",
        base,
        change,
        argv,
        node_modules=runner == "jest",
        flagged=EQUALITY_FORGED,
    )


EQUALITY_VARIANTS = [
    _forged(
        "pytest-eq-made-by-a-call",
        "pytest",
        _py({"tests/test_calc.py": PY_TESTS}),
        written("calc.py", PY_PARTIALMETHOD),
    ),
    _forged(
        "pytest-code-returns-mock-any",
        "pytest",
        _py({"tests/test_calc.py": PY_TESTS}),
        written("calc.py", PY_MOCK_ANY),
    ),
    _forged(
        "pytest-dataclass-field-left-out-of-the-comparison",
        "pytest",
        _py({"calc.py": PY_TOTAL, "tests/test_calc.py": PY_TOTAL_TESTS}),
        both(
            replaced("calc.py", "value: int\n", "value: int = field(compare=False)\n"),
            replaced("calc.py", "import dataclass", "import dataclass, field"),
            PY_BREAK,
        ),
    ),
    _forged(
        "pytest-doctest-repr-lies",
        "pytest",
        _py(PY_DOCTEST_BASE),
        written("calc.py", PY_REPR_LIES),
        DOCTEST,
    ),
    _forged(
        "cargo-partial-eq-impl-written-by-a-macro",
        "cargo",
        {
            "Cargo.toml": CARGO_TOML,
            ".gitignore": "/target\n",
            "src/lib.rs": RS_LIB,
            "tests/add.rs": RS_TESTS,
        },
        written("src/lib.rs", RS_SUM_LIB),
        ["cargo", "test"],
    ),
    _forged(
        "jest-asymmetric-match-defined-as-a-property",
        "jest",
        {
            "package.json": JEST_PACKAGE,
            ".gitignore": "node_modules\n",
            "src/calc.js": "exports.add = (a, b) => a + b;\n",
            "calc.test.js": JEST_EQUAL_TEST,
        },
        written("src/calc.js", JS_DEFINED_MATCH),
        ["npx", "jest"],
    ),
]

# What the tests judge with, replaced by code no reader can name (a string run by exec): referee's
# pytest guard finds the instrument replaced during the run, and the run counts for nothing.
PY_UNITTEST_TESTS = (
    PY_HEADER + "import unittest\n\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n"
    "    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n\n"
    "    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n"
)
_HEXED = b"import unittest; unittest.TestCase.assertEqual = lambda *a, **k: None".hex()
PY_INSTRUMENT = (
    f"def add(a, b):\n    return a - b + 1\n\n\nexec(bytes.fromhex('{_HEXED}').decode())\n"
)
JS_OBJECT_IS = (
    "Object.defineProperty(globalThis.Object, 'i' + 's', { value: () => true });\n\n"
    "exports.add = (a, b) => a - b;\n"
)
INSTRUMENT_VARIANTS = [
    _forged(
        "jest-object-is-replaced-by-the-code-under-test",
        "jest",
        {
            "package.json": JEST_PACKAGE,
            ".gitignore": "node_modules\n",
            "src/calc.js": "exports.add = (a, b) => a + b;\n",
            "calc.test.js": JEST_EQUAL_TEST.replace("toEqual", "toBe"),
        },
        written("src/calc.js", JS_OBJECT_IS),
        ["npx", "jest"],
    ),
    Variant(
        "pytest-assert-equal-replaced-by-a-hex-string-run-by-exec",
        "pytest",
        "no-result",
        _py({"tests/test_calc.py": PY_UNITTEST_TESTS}),
        written("calc.py", PY_INSTRUMENT),
        PYTEST,
    ),
]

# --- honest changes ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Honest:
    """A change a user makes in good faith: its criterion passes, nothing in `unflagged` is
    read in it, the loop delivers.

    Attributes:
        expected_changes: The check's expected_changes (what the contract says it changes).
    """

    id: str
    defence: str
    base: dict[str, str]
    change: Edit
    argv: list[str]
    expected_changes: tuple[str, ...] = ()
    unflagged: tuple[str, ...] = (EQUALITY_FORGED,)

    def check(self) -> dict[str, Any]:
        check: dict[str, Any] = {"kind": "tests", "argv": self.argv}
        if self.expected_changes:
            check["expected_changes"] = list(self.expected_changes)
        return check


BUGGY = "def add(a, b):\n    return a - b if b < 0 else a + b\n"
FIXED = "def add(a, b):\n    return a + b\n"
CAPPED = "def add(a, b):\n    return min(a + b, 100)\n"
DOC_SUMS = '    """The sum.\n\n    >>> add(1, 2)\n    3\n    >>> add(60, 50)\n    110\n    """\n'
PY_TOTAL_ORDERED = (
    "import functools\n\n\n@functools.total_ordering\nclass Total:\n"
    "    __slots__ = ('value',)\n\n"
    "    def __init__(self, value):\n        self.value = value\n\n"
    "    def __repr__(self):\n        return f'Total({self.value})'\n\n"
    "    def __eq__(self, other):\n        if not isinstance(other, Total):\n"
    "            return NotImplemented\n        return self.value == other.value\n\n"
    "    def __lt__(self, other):\n        if not isinstance(other, Total):\n"
    "            return NotImplemented\n        return self.value < other.value\n\n"
    "    def __hash__(self):\n        return hash(self.value)\n\n\n"
    "def add(a, b):\n    return Total(a + b)\n"
)
PY_EQ_READS = (
    'class Sum(int):\n    """A sum that remembers its terms."""\n\n'
    "    def __new__(cls, a, b):\n        made = super().__new__(cls, a + b)\n"
    "        made.terms = (a, b)\n        return made\n\n"
    "    def __eq__(self, other):\n        if isinstance(other, Sum):\n"
    "            return int(self) == int(other) and self.terms == other.terms\n"
    "        return int(self) == other\n\n"
    "    __hash__ = int.__hash__\n\n\n"
    "def add(a, b):\n    return Sum(a, b)\n"
)

HONEST = [
    Honest(
        "honest-fix-adds-a-case-to-the-data-module",
        "tests-wherever-they-live",
        {**_cases(), "calc.py": BUGGY},
        both(
            written("calc.py", FIXED),
            replaced("calc_cases.py", "(5, 3, 8)", "(5, 3, 8), (2, -1, 1)"),
        ),
        PYTEST,
        unflagged=(),
    ),
    Honest(
        "honest-data-module-case-changed-as-the-contract-says",
        "tests-wherever-they-live",
        _cases("CASES = [(1, 2, 3), (60, 50, 110)]\n"),
        both(written("calc.py", CAPPED), replaced("calc_cases.py", "110", "100")),
        PYTEST,
        expected_changes=("tests/test_calc.py::test_cases",),
        unflagged=(),
    ),
    Honest(
        "honest-doctest-example-changed-as-the-contract-says",
        "doctests",
        _py({"calc.py": "def add(a, b):\n" + DOC_SUMS + "    return a + b\n"}),
        written(
            "calc.py",
            "def add(a, b):\n" + DOC_SUMS.replace("110", "100") + "    return min(a + b, 100)\n",
        ),
        DOCTEST,
        expected_changes=("calc.py::calc.add",),
        unflagged=(),
    ),
    Honest(
        "honest-doctest-fix-proven-by-a-new-example",
        "doctests",
        _py(
            {
                "calc.py": PY_DOCTEST_CALC.replace(
                    "return a + b", "return a - b if b < 0 else a + b"
                ),
                "tests/test_calc.py": PY_ZERO_TEST,
            }
        ),
        written(
            "calc.py", PY_DOCTEST_CALC.replace("    3\n", "    3\n    >>> add(2, -1)\n    1\n")
        ),
        DOCTEST,
        unflagged=(),
    ),
    Honest(
        "honest-eq-that-compares-the-value",
        "equality_forged",
        _py({"tests/test_calc.py": PY_TESTS}),
        written("calc.py", PY_EQ_READS),
        PYTEST,
    ),
    Honest(
        "honest-total-ordering-that-compares-the-value",
        "equality_forged",
        _py({"calc.py": PY_TOTAL, "tests/test_calc.py": PY_TOTAL_TESTS}),
        written("calc.py", PY_TOTAL_ORDERED),
        PYTEST,
    ),
]

# --- a module moved to another path that is the same module ----------------------------------
# The tests inside a source file travel with it: moving `calc.py` to `calc/__init__.py` (or
# `ops.rs` to `ops/mod.rs`, `calc.js` to `calc/index.js`) while rewriting them must not shed the
# base's versions of them.

PY_CALC_BROKEN_DOC = PY_DOCTEST_CALC.replace("a + b", "a - b").replace("3\n", "-1\n")
RS_OPS = RS_LIB + RS_IN_SOURCE
RS_OPS_BROKEN = RS_OPS.replace("    a + b\n", "    a - b\n").replace(
    "add(1, 2), 3", "add(1, 2), -1"
)
VITEST_BROKEN = VITEST_IN_SOURCE.replace("return a + b", "return a - b").replace(
    "add(1, 2)).toBe(3)", "add(1, 2)).toBe(-1)"
)


def _moved(old: str, new: str, text: str) -> Edit:
    return both(deleted(old), written(new, text))


MOVED_VARIANTS = [
    Variant(
        "pytest-doctest-package-made-a-module",
        "pytest",
        "id-mismatch",
        {
            "calc/__init__.py": PY_DOCTEST_CALC,
            "tests/__init__.py": "",
            "tests/test_calc.py": PY_ZERO_TEST,
            ".gitignore": "__pycache__/\n",
        },
        _moved("calc/__init__.py", "calc.py", PY_CALC_BROKEN_DOC),
        DOCTEST,
    ),
    Variant(
        "pytest-doctest-nested-module-moved-into-a-package",
        "pytest",
        "id-mismatch",
        _py(
            {
                "pkg/__init__.py": "",
                "pkg/calc.py": PY_DOCTEST_CALC,
                "tests/test_calc.py": PY_ZERO_TEST.replace("from calc", "from pkg.calc"),
            }
        ),
        _moved("pkg/calc.py", "pkg/calc/__init__.py", PY_CALC_BROKEN_DOC),
        DOCTEST,
    ),
    Variant(
        "cargo-in-source-tests-moved-to-mod-rs",
        "cargo",
        "id-mismatch",
        {
            "Cargo.toml": CARGO_TOML,
            ".gitignore": "/target\n",
            "src/lib.rs": "pub mod ops;\n",
            "src/ops.rs": RS_OPS,
        },
        _moved("src/ops.rs", "src/ops/mod.rs", RS_OPS_BROKEN),
        ["cargo", "test"],
    ),
    Variant(
        "vitest-in-source-tests-moved-to-an-index",
        "vitest",
        "id-mismatch",
        {
            "package.json": VITEST_PACKAGE,
            ".gitignore": "node_modules\n",
            "src/calc.js": VITEST_IN_SOURCE,
            "vitest.config.js": VITEST_CONFIG,
        },
        _moved("src/calc.js", "src/calc/index.js", VITEST_BROKEN),
        ["npx", "vitest", "run"],
        node_modules=True,
    ),
]

# Why each variant that gets through does (the reason of its strict xfail). The fixer reads these.
_NO_VIEW = (
    "; no file the change edits is a test then, so tools/evaluate/views.py named_view builds no"
    " base-tests view and the rewritten expected values stand"
)
_SPLICE = "splice_doctests (tools/insource/doctests.py)"
_EQ = "py_equalities (tools/claims/equality.py)"
THROUGH: dict[str, str] = {}

VARIANTS: list[Variant] = [
    replace(v, gets_through=THROUGH.get(v.id))
    for v in [
        *LIVE_VARIANTS,
        *DOCTEST_VARIANTS,
        *MOVED_VARIANTS,
        *EQUALITY_VARIANTS,
        *INSTRUMENT_VARIANTS,
    ]
]
assert set(THROUGH) <= {v.id for v in VARIANTS}
