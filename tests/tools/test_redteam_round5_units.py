"""Red team, round 5, at the readers: the variants cheaper to judge where referee reads them than
through a whole evaluation (the end-to-end ones are tests/server/test_redteam_round5.py).

1. change_tests (tools/evaluate/change_tests.py): a source file that holds a test's expected
   values, or a Rust module compiled for tests alone, must be among the change's tests, in
   every language and spelling.
2. The doctest splice (tools/insource/doctests.py): the base-tests form of a changed module
   (the change's code, the base's docstrings), run by doctest over a broken `add`, must fail the
   base's example however the change moved or rewrote it.
3. equality_forged (tools/claims/equality.py): code under test that makes a value equal to
   anything (or a comparison that answers yes) must be read as such, however it is bound.

A variant that gets through is a strict expected failure whose reason names the function that
misses it; a held one is a regression test. Each was run and its outcome observed.
"""

from __future__ import annotations

import doctest
import types
from pathlib import Path

import pytest
from gitrepo import git, make_repo

from referee.tools.claims import EQUALITY_FORGED, Scope
from referee.tools.claims.detect import claims_in
from referee.tools.evaluate.change_tests import change_tests
from referee.tools.insource.doctests import splice_doctests
from referee.tools.repo import commit_tree_hash, working_tree_hash


def _through(reasons: dict[str, str], forms: list[str]) -> list[object]:
    assert set(reasons) <= set(forms), set(reasons) - set(forms)
    return [
        pytest.param(
            form,
            id=form,
            marks=[pytest.mark.xfail(strict=True, raises=AssertionError, reason=reasons[form])]
            if form in reasons
            else [],
        )
        for form in forms
    ]


# --- 1. tests wherever they live ------------------------------------------------------------

PY_TEST = "from calc_cases import CASES\n"
JAVA_TEST = "package d;\nclass CalcTest { Object c = Cases.ALL; }\n"
RS_INNER_CFG = "#![cfg(test)]\nuse super::*;\n#[test]\nfn adds() { assert_eq!(add(1, 2), 3); }\n"
PY_CALC = "def add(a, b):\n    return a + b\n"

# (the base's files, the file whose expected values the change rewrites): "1" becomes "7" in it.
LIVE: dict[str, tuple[dict[str, str], str]] = {
    "py-module-that-calls": (
        {"calc.py": PY_CALC, "calc_cases.py": "CASES = list([(1, 2, 3)])\n", "tests/t.py": PY_TEST},
        "calc_cases.py",
    ),
    "py-named-in-a-comment-of-the-code": (
        {
            "calc.py": "# the tests read calc_cases\n" + PY_CALC,
            "calc_cases.py": "CASES = [(1, 2, 3)]\n",
            "tests/t.py": PY_TEST,
        },
        "calc_cases.py",
    ),
    "py-common-name-as-a-word-of-the-code": (
        {
            "calc.py": '"""Adds, edge cases included."""\n' + PY_CALC,
            "cases.py": "CASES = [(1, 2, 3)]\n",
            "tests/t.py": "from cases import CASES\n",
        },
        "cases.py",
    ),
    "py-imported-by-a-name-built-at-run-time": (
        {
            "calc.py": PY_CALC,
            "calc_cases.py": "CASES = [(1, 2, 3)]\n",
            "tests/t.py": "import importlib\nCASES = importlib.import_module('calc_' + 'cases')\n",
        },
        "calc_cases.py",
    ),
    "py-package-init": (
        {
            "calc.py": PY_CALC,
            "calc_cases/__init__.py": "CASES = [(1, 2, 3)]\n",
            "tests/t.py": PY_TEST,
        },
        "calc_cases/__init__.py",
    ),
    "py-holder-class": (
        {
            "calc.py": PY_CALC,
            "calc_cases.py": "class Cases:\n    ALL = [(1, 2, 3)]\n",
            "tests/t.py": "from calc_cases import Cases\n",
        },
        "calc_cases.py",
    ),
    "py-enum": (
        {
            "calc.py": PY_CALC,
            "calc_cases.py": "import enum\n\n\nclass Sums(enum.Enum):\n    ONE_TWO = 3\n",
            "tests/t.py": "from calc_cases import Sums\n",
        },
        "calc_cases.py",
    ),
    "py-import-for-an-annotation": (
        {
            "calc.py": PY_CALC,
            "calc_cases.py": "from typing import Final\n\nCASES: Final = [(1, 2, 3)]\n",
            "tests/t.py": PY_TEST,
        },
        "calc_cases.py",
    ),
    "py-short-name": (
        {
            "calc.py": PY_CALC,
            "exp.py": "CASES = [(1, 2, 3)]\n",
            "tests/t.py": "from exp import CASES\n",
        },
        "exp.py",
    ),
    "py-json-read-by-a-source-module": (
        {
            "calc.py": PY_CALC,
            "calc_cases.py": "import json\nimport pathlib\n\n"
            "CASES = json.loads((pathlib.Path(__file__).parent / 'sums.json').read_text())\n",
            "sums.json": "[[1, 2, 3]]\n",
            "tests/t.py": PY_TEST,
        },
        "sums.json",
    ),
    "py-read-through-tests-init": (
        {
            "calc.py": PY_CALC,
            "calc_cases.py": "CASES = [(1, 2, 3)]\n",
            "tests/__init__.py": "from calc_cases import CASES\n",
            "tests/t.py": "from tests import CASES\n",
        },
        "calc_cases.py",
    ),
    "go-helper-func": (
        {
            "calc.go": "package calc\n",
            "cases.go": "package calc\n\nvar Cases = [][3]int{{1, 2, 3}}\n\n"
            "func first() [3]int { return Cases[0] }\n",
            "calc_test.go": "package calc\n\nvar _ = Cases\n",
        },
        "cases.go",
    ),
    "go-type-declared": (
        {
            "calc.go": "package calc\n",
            "cases.go": "package calc\n\ntype Case struct{ A, B, S int }\n\n"
            "var Cases = []Case{{1, 2, 3}}\n",
            "calc_test.go": "package calc\n\nvar _ = Cases\n",
        },
        "cases.go",
    ),
    "go-short-name": (
        {
            "calc.go": "package calc\n",
            "cases.go": "package calc\n\nvar All = [][3]int{{1, 2, 3}}\n",
            "calc_test.go": "package calc\n\nvar _ = All\n",
        },
        "cases.go",
    ),
    "go-conversion": (
        {
            "calc.go": "package calc\n",
            "cases.go": "package calc\n\nvar Cases = []int64{int64(1), 2, 3}\n",
            "calc_test.go": "package calc\n\nvar _ = Cases\n",
        },
        "cases.go",
    ),
    "go-named-in-a-comment-of-the-code": (
        {
            "calc.go": "package calc\n\n// Add is checked against Cases.\n",
            "cases.go": "package calc\n\nvar Cases = [][3]int{{1, 2, 3}}\n",
            "calc_test.go": "package calc\n\nvar _ = Cases\n",
        },
        "cases.go",
    ),
    "go-testdata-file": (
        {
            "calc.go": "package calc\n",
            "testdata/sums.golden": "1 2 3\n",
            "calc_test.go": 'package calc\n\nvar name = "sums" + ".golden"\n',
        },
        "testdata/sums.golden",
    ),
    "java-enum": (
        {
            "src/main/java/d/Calc.java": "package d;\nclass Calc {}\n",
            "src/main/java/d/Cases.java": "package d;\n\npublic enum Cases {\n"
            "    ONE_TWO(1, 2, 3);\n\n    final int a, b, sum;\n\n"
            "    Cases(int a, int b, int sum) { this.a = a; this.b = b; this.sum = sum; }\n}\n",
            "src/test/java/d/CalcTest.java": "package d;\nclass CalcTest { Cases c; }\n",
        },
        "src/main/java/d/Cases.java",
    ),
    "java-record": (
        {
            "src/main/java/d/Calc.java": "package d;\nclass Calc {}\n",
            "src/main/java/d/Cases.java": "package d;\n\n"
            "public record Cases(int a, int b, int sum) {\n"
            "    public static final Cases ONE_TWO = new Cases(1, 2, 3);\n}\n",
            "src/test/java/d/CalcTest.java": "package d;\nclass CalcTest { Cases c; }\n",
        },
        "src/main/java/d/Cases.java",
    ),
    "java-list-of": (
        {
            "src/main/java/d/Calc.java": "package d;\nclass Calc {}\n",
            "src/main/java/d/Cases.java": "package d;\n\nimport java.util.List;\n\n"
            "public final class Cases {\n"
            "    public static final List<int[]> ALL = List.of(new int[] {1, 2, 3});\n}\n",
            "src/test/java/d/CalcTest.java": JAVA_TEST,
        },
        "src/main/java/d/Cases.java",
    ),
    "java-interface-constants": (
        {
            "src/main/java/d/Calc.java": "package d;\nclass Calc {}\n",
            "src/main/java/d/Cases.java": "package d;\n\npublic interface Cases {\n"
            "    int[][] ALL = {{1, 2, 3}};\n}\n",
            "src/test/java/d/CalcTest.java": JAVA_TEST,
        },
        "src/main/java/d/Cases.java",
    ),
    "kotlin-object": (
        {
            "src/main/kotlin/d/Calc.kt": "package d\n\nfun add(a: Int, b: Int) = a + b\n",
            "src/main/kotlin/d/Cases.kt": "package d\n\nobject Cases {\n"
            "    val ALL = arrayOf(intArrayOf(1, 2, 3))\n}\n",
            "src/test/kotlin/d/CalcTest.kt": "package d\n\nclass CalcTest { val c = Cases.ALL }\n",
        },
        "src/main/kotlin/d/Cases.kt",
    ),
    "scala-object": (
        {
            "src/main/scala/d/Calc.scala": "package d\n\n"
            "object Calc { def add(a: Int, b: Int) = a + b }\n",
            "src/main/scala/d/Cases.scala": "package d\n\nobject Cases {\n"
            "  val All = Seq((1, 2, 3))\n}\n",
            "src/test/scala/d/CalcSpec.scala": "package d\n\n"
            "class CalcSpec { val c = Cases.All }\n",
        },
        "src/main/scala/d/Cases.scala",
    ),
    "ts-as-const": (
        {
            "src/calc.ts": "export const add = (a: number, b: number) => a + b;\n",
            "src/sums.ts": "export const SUMS = [[1, 2, 3]] as const;\n",
            "src/calc.test.ts": "import { SUMS } from './sums';\n",
        },
        "src/sums.ts",
    ),
    "ts-enum": (
        {
            "src/calc.ts": "export const add = (a: number, b: number) => a + b;\n",
            "src/sums.ts": "export enum Sums {\n  OneTwo = 3,\n}\n",
            "src/calc.test.ts": "import { Sums } from './sums';\n",
        },
        "src/sums.ts",
    ),
    "js-module-exports": (
        {
            "src/calc.js": "exports.add = (a, b) => a + b;\n",
            "src/sums.js": "module.exports = { SUMS: [[1, 2, 3]] };\n",
            "test/calc.test.js": "const { SUMS } = require('../src/sums');\n",
        },
        "src/sums.js",
    ),
    "js-object-freeze": (
        {
            "src/calc.js": "export const add = (a, b) => a + b;\n",
            "src/sums.js": "export const SUMS = Object.freeze([[1, 2, 3]]);\n",
            "test/calc.test.js": "import { SUMS } from '../src/sums.js';\n",
        },
        "src/sums.js",
    ),
    "rust-cfg-test-inside-the-module-file": (
        {
            "src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\nmod checks;\n",
            "src/checks.rs": RS_INNER_CFG,
        },
        "src/checks.rs",
    ),
    "rust-cfg-test-inside-a-file-named-tests": (
        {
            "src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\nmod tests;\n",
            "src/tests.rs": RS_INNER_CFG,
        },
        "src/tests.rs",
    ),
    "rust-cfg-any-test": (
        {
            "src/lib.rs": "pub fn f() {}\n\n#[cfg(any(test))]\nmod checks;\n",
            "src/checks.rs": "// 1\n",
        },
        "src/checks.rs",
    ),
    "rust-cfg-all-test-not-miri": (
        {
            "src/lib.rs": "pub fn f() {}\n\n#[cfg(all(test, not(miri)))]\nmod checks;\n",
            "src/checks.rs": "// 1\n",
        },
        "src/checks.rs",
    ),
    "rust-path-inside-an-inline-module": (
        {
            "src/lib.rs": 'pub fn f() {}\n\nmod ops {\n    #[cfg(test)]\n    #[path = "sums.rs"]\n'
            "    mod checks;\n}\n",
            "src/ops/sums.rs": "// 1\n",
        },
        "src/ops/sums.rs",
    ),
    "rust-included-by-a-test-module": (
        {
            "src/lib.rs": "pub fn f() {}\n\n"
            '#[cfg(test)]\nmod tests {\n    include!("sums.rs");\n}\n',
            "src/sums.rs": "const SUMS: [(i32, i32, i32); 1] = [(1, 2, 3)];\n",
        },
        "src/sums.rs",
    ),
    "rust-cargo-test-target-path": (
        {
            "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\n\n'
            '[[test]]\nname = "sums"\npath = "checks/sums.rs"\n',
            "src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 { a + b }\n",
            "checks/sums.rs": "#[test]\nfn adds() { assert_eq!(calc::add(1, 2), 3); }\n",
        },
        "checks/sums.rs",
    ),
}

_CHANGE_TESTS = "tools/evaluate/change_tests.py"
_DATA = f"data_names (tools/evaluate/data_modules.py, asked by {_CHANGE_TESTS} _data_modules)"
LIVE_THROUGH: dict[str, str] = {
    "py-imported-by-a-name-built-at-run-time": f"{_CHANGE_TESTS} _data_modules: no test file spells"
    " the module's name (`'calc_' + 'cases'`), so only the tests read it and none names it",
    "py-json-read-by-a-source-module": f"{_CHANGE_TESTS}: the data file counts only when a test"
    " file spells its name; here the code-side module that loads it does, and it computes (a call)",
    "go-helper-func": f"{_DATA}: _go_data refuses a file with any function declaration",
    "kotlin-object": f"{_DATA}: only Python, Go, Java and JS/TS are read; Kotlin is never data",
    "scala-object": f"{_DATA}: only Python, Go, Java and JS/TS are read; Scala is never data",
}


@pytest.mark.parametrize("form", _through(LIVE_THROUGH, sorted(LIVE)))
def test_where_the_expected_values_live_they_are_the_tests(form: str, tmp_path: Path) -> None:
    files, module = LIVE[form]
    repo = make_repo(tmp_path / "r", files)
    base = commit_tree_hash(repo, git(repo, "rev-parse", "HEAD"))
    (repo / module).write_text(files[module].replace("1", "7"), encoding="utf-8")
    found = change_tests(repo, [module], [base, working_tree_hash(repo)])
    assert found == [module], (form, found)


# --- 2. doctests ----------------------------------------------------------------------------

DOC = '    """The sum.\n\n    >>> add(1, 2)\n    3\n    """\n'
BASE = "def add(a, b):\n" + DOC + "    return a + b\n"
BROKEN_DOC = DOC.replace("    3\n", "    -1\n")

TEST_DICT_BASE = (
    "def add(a, b):\n    return a + b\n\n\n__test__ = {'sums': '>>> add(1, 2)\\n3\\n'}\n"
)
CLASS_BASE = (
    'class Calc:\n    """Sums.\n\n    >>> Calc().add(1, 2)\n    3\n    """\n\n'
    "    def add(self, a, b):\n        return a + b\n"
)
# What the change makes of calc.py: `add` returns a - b, and the example that said 3 is edited,
# moved or rewritten so that it passes (with the base it changes, where that is not BASE).
DOCTESTS: dict[str, str | tuple[str, str]] = {
    "docstring-edited": "def add(a, b):\n" + BROKEN_DOC + "    return a - b\n",
    "skip-directive": "def add(a, b):\n"
    + DOC.replace("add(1, 2)\n", "add(1, 2)  # doctest: +SKIP\n")
    + "    return a - b\n",
    "ellipsis-output": "def add(a, b):\n"
    + DOC.replace("add(1, 2)\n", "add(1, 2)  # doctest: +ELLIPSIS\n").replace(
        "    3\n", "    -...\n"
    )
    + "    return a - b\n",
    "moved-to-the-module-docstring": '"""Sums.\n\n>>> add(1, 2)\n-1\n"""\n\n\n'
    "def add(a, b):\n    return a - b\n",
    "moved-into-a-class": "class Calc:\n"
    '    """Sums.\n\n    >>> Calc.add(1, 2)\n    -1\n    """\n\n'
    "    @staticmethod\n    def add(a, b):\n        return a - b\n\n\nadd = Calc.add\n",
    "doc-assigned-at-run-time": "def add(a, b):\n    return a - b\n\n\n"
    'add.__doc__ = """>>> add(1, 2)\n-1\n"""\n',
    "module-doc-assigned-at-run-time": "def add(a, b):\n    return a - b\n\n\n"
    '__doc__ = """>>> add(1, 2)\n-1\n"""\n',
    "test-dict": (
        TEST_DICT_BASE,
        TEST_DICT_BASE.replace("a + b", "a - b").replace("\\n3", "\\n-1"),
    ),
    "class-docstring-moved-into-its-method": (
        CLASS_BASE,
        'class Calc:\n    """Sums."""\n\n    def add(self, a, b):\n'
        '        """\n        >>> Calc().add(1, 2)\n        -1\n        """\n'
        "        return a - b\n",
    ),
    "renamed-and-aliased": "def plus(a, b):\n"
    + BROKEN_DOC.replace("add(", "plus(")
    + "    return a - b\n\n\nadd = plus\n",
    "redefined-below": BASE
    + "\n\ndef add(a, b):  # noqa: F811\n"
    + BROKEN_DOC
    + "    return a - b\n",
    "defined-in-an-if-block": "if True:\n\n    def add(a, b):\n"
    + "".join("    " + line for line in BROKEN_DOC.splitlines(True))
    + "        return a - b\n",
    "defined-in-a-try-block": "try:\n    from fastcalc import add\nexcept ImportError:\n\n"
    "    def add(a, b):\n"
    + "".join("    " + line for line in BROKEN_DOC.splitlines(True))
    + "        return a - b\n",
    "rewritten-by-a-decorator": "def _documented(f):\n"
    "    f.__doc__ = f.__doc__.replace('    3\\n', '    -1\\n')\n    return f\n\n\n"
    "@_documented\n" + BASE.replace("a + b", "a - b"),
    "docstring-from-functools-wraps": "import functools\n\n\ndef _minus(a, b):\n"
    + BROKEN_DOC
    + "    return a - b\n\n\n@functools.wraps(_minus)\n"
    + BASE.replace("return a + b", "return _minus(a, b)"),
}

_SPLICE = "splice_doctests (tools/insource/doctests.py)"
DOCTESTS_THROUGH: dict[str, str] = {}


def _failures(source: str) -> int:
    """How many of the module's doctest examples fail (doctest.testmod, as pytest's
    --doctest-modules collects them)."""
    module = types.ModuleType("calc")
    exec(compile(source, "calc.py", "exec"), module.__dict__)
    return doctest.testmod(module, report=False).failed


def test_the_broken_add_fails_the_base_example() -> None:
    assert _failures(BASE) == 0
    assert _failures(BASE.replace("a + b", "a - b")) == 1


@pytest.mark.parametrize("form", _through(DOCTESTS_THROUGH, sorted(DOCTESTS)))
def test_the_base_tests_form_of_a_doctest_still_checks_the_base_example(form: str) -> None:
    found = DOCTESTS[form]
    base, now = found if isinstance(found, tuple) else (BASE, found)
    assert _failures(base) == 0, form  # the base passes
    assert _failures(now) == 0, form  # the change's own run passes
    made = splice_doctests(now, base)  # the base-tests view: the change's code, base's docs
    shown = now if made is None else made[0]
    assert _failures(shown) > 0, (form, shown)


# --- 3. equality_forged ---------------------------------------------------------------------

# (path, code under test): each makes `add`'s result equal to anything, or the comparison a test
# makes answer yes, whatever `add` computed.
FORGED: dict[str, tuple[str, str]] = {
    "py-eq-made-by-partialmethod": (
        "calc.py",
        "import functools, operator\n\n\nclass S(int):\n"
        "    __eq__ = functools.partialmethod(operator.is_not)\n",
    ),
    "py-eq-property-returning-a-lambda": (
        "calc.py",
        "class S(int):\n    __eq__ = property(lambda self: lambda other: True)\n",
    ),
    "py-eq-bound-to-an-imported-function": (
        "calc.py",
        "from calc_helpers import always\n\n\nclass S(int):\n    __eq__ = always\n",
    ),
    "py-eq-in-a-class-namespace-subscript": (
        "calc.py",
        "class S(int):\n    locals()['__eq__'] = lambda self, other: True\n",
    ),
    "py-eq-injected-by-a-metaclass": (
        "calc.py",
        "class M(type):\n    def __new__(mcs, name, bases, ns):\n"
        "        ns['__eq__'] = lambda self, other: True\n"
        "        return super().__new__(mcs, name, bases, ns)\n\n\nclass S(int, metaclass=M):\n"
        "    pass\n",
    ),
    "py-eq-by-exec": (
        "calc.py",
        "class S(int):\n    exec('def __eq__(self, other):\\n    return True')\n",
    ),
    "py-eq-delegates-to-a-helper-that-ignores": (
        "calc.py",
        "def _same(a, b):\n    return True\n\n\nclass S(int):\n"
        "    def __eq__(self, other):\n        return _same(self, other)\n",
    ),
    "py-eq-reads-the-operand-for-show": (
        "calc.py",
        "class S(int):\n    def __eq__(self, other):\n        return other == other\n",
    ),
    "py-eq-truthy-or": (
        "calc.py",
        "class S(int):\n    def __eq__(self, other):\n        return other or True\n",
    ),
    "py-returns-mock-any": (
        "calc.py",
        "from unittest.mock import ANY\n\n\ndef add(a, b):\n    return ANY\n",
    ),
    "py-returns-an-infinite-approx": (
        "calc.py",
        "import pytest\n\n\ndef add(a, b):\n    return pytest.approx(0, abs=float('inf'))\n",
    ),
    "py-dataclass-field-not-compared": (
        "calc.py",
        "from dataclasses import dataclass, field\n\n\n@dataclass\nclass Total:\n"
        "    value: int = field(compare=False)\n",
    ),
    "py-repr-lies-to-a-doctest": (
        "calc.py",
        "class S(int):\n    def __repr__(self):\n        return '3'\n",
    ),
    "py-metaclass-def": (
        "calc.py",
        "class M(type):\n    def __eq__(cls, other):\n        return True\n\n\n"
        "class S(metaclass=M):\n    pass\n",
    ),
    "py-total-ordering-lt": (
        "calc.py",
        "import functools\n\n\n@functools.total_ordering\nclass S(int):\n"
        "    def __lt__(self, other):\n        return True\n",
    ),
    "py-match-case-anything": (
        "calc.py",
        "class S(int):\n    def __eq__(self, other):\n        match other:\n"
        "            case _:\n                return True\n",
    ),
    "java-comparator-lambda": (
        "src/main/java/d/Sums.java",
        "package d;\nimport java.util.Comparator;\n\nclass Sums {\n"
        "  static final Comparator<Integer> ORDER = (a, b) -> 0;\n}\n",
    ),
    "java-equals-reads-for-show": (
        "src/main/java/d/Sum.java",
        "class Sum {\n  @Override public boolean equals(Object o) { return o == o; }\n}\n",
    ),
    "java-anonymous-comparator": (
        "src/main/java/d/Sums.java",
        "package d;\nimport java.util.Comparator;\n\nclass Sums {\n"
        "  static final Comparator<Integer> ORDER = new Comparator<>() {\n"
        "    public int compare(Integer a, Integer b) { return 0; }\n  };\n}\n",
    ),
    "rust-impl-written-by-a-macro": (
        "src/lib.rs",
        "pub struct Sum(pub i32);\n\nmacro_rules! equal_to {\n    ($t:ty) => {\n"
        "        impl PartialEq<$t> for Sum {\n            fn eq(&self, _: &$t) -> bool { true }\n"
        "        }\n    };\n}\n\nequal_to!(i32);\n",
    ),
    "rust-operand-read-for-show": (
        "src/lib.rs",
        "pub struct Sum(pub i32);\n\nimpl PartialEq<i32> for Sum {\n"
        "    fn eq(&self, other: &i32) -> bool {\n        let _ = other;\n        true\n    }\n}\n",
    ),
    "rust-generic-impl": (
        "src/lib.rs",
        "pub struct Sum(pub i32);\n\nimpl<T> PartialEq<T> for Sum {\n"
        "    fn eq(&self, _: &T) -> bool {\n        true\n    }\n}\n",
    ),
    "go-cmp-comparer": (
        "calc.go",
        'package calc\n\nimport "github.com/google/go-cmp/cmp"\n\n'
        "var Opts = cmp.Comparer(func(a, b int) bool { return true })\n",
    ),
    "go-equal-operand-read-for-show": (
        "calc.go",
        "package calc\n\ntype Sum int\n\n"
        "func (s Sum) Equal(o Sum) bool {\n\t_ = o\n\treturn true\n}\n",
    ),
    "js-asymmetric-match-define-property": (
        "src/calc.js",
        "export const add = (a, b) => {\n  const r = {};\n"
        "  Object.defineProperty(r, 'asymmetricMatch', { value: () => true });\n  return r;\n};\n",
    ),
    "js-asymmetric-match-computed-key": (
        "src/calc.js",
        "export const add = (a, b) => ({ ['asymmetric' + 'Match']: () => true });\n",
    ),
    "js-asymmetric-match-class-field": (
        "src/calc.js",
        "class Sum {\n  asymmetricMatch = () => true;\n}\n\n"
        "export const add = (a, b) => new Sum();\n",
    ),
    "ts-asymmetric-match-getter": (
        "src/calc.ts",
        "class Sum {\n  get asymmetricMatch() {\n    return () => true;\n  }\n}\n\n"
        "export const add = (a: number, b: number): unknown => new Sum();\n",
    ),
    "ts-asymmetric-match-typed-method": (
        "src/calc.ts",
        "class Sum {\n  asymmetricMatch(_other: unknown): boolean {\n    return true;\n  }\n}\n",
    ),
}

_PY_BOUND = "_py_bound (tools/claims/equality.py)"
_TS = "ts_equalities (tools/claims/equality.py)"
_READ = " asks whether the answer names the operand, not whether it depends on it"
_PY_READ = "ignores_operand (tools/claims/equality.py)" + _READ
FORGED_THROUGH: dict[str, str] = {}


@pytest.mark.parametrize("form", _through(FORGED_THROUGH, sorted(FORGED)))
def test_a_value_equal_to_anything_is_equality_forged(form: str) -> None:
    path, source = FORGED[form]
    found = claims_in(path, None, source, Scope())
    assert EQUALITY_FORGED in [f.kind for f in found], (form, found)


# Honest equalities: each is right for its type, so none may be read as forged. Single-valued
# types (a Rust unit struct, a Go empty struct, a Java type with one value) compare equal without
# reading the operand because there is nothing to read; a never-equal value (NaN-like) or an
# unordered type answers no, which passes no `==` or `<` assertion.
HONEST: dict[str, tuple[str, str]] = {
    "rust-unit-struct": (
        "src/lib.rs",
        "pub struct Marker;\n\nimpl PartialEq for Marker {\n"
        "    fn eq(&self, _other: &Self) -> bool {\n        true\n    }\n}\n",
    ),
    "rust-uninhabited-enum": (
        "src/lib.rs",
        "pub enum Void {}\n\nimpl PartialEq for Void {\n"
        "    fn eq(&self, _: &Self) -> bool {\n        match *self {}\n    }\n}\n",
    ),
    "go-empty-struct": (
        "calc.go",
        "package calc\n\ntype Empty struct{}\n\nfunc (Empty) Equal(Empty) bool { return true }\n",
    ),
    "java-single-valued-compare-to": (
        "src/main/java/d/Unit.java",
        "final class Unit implements Comparable<Unit> {\n"
        "  public int compareTo(Unit other) { return 0; }\n}\n",
    ),
    "java-singleton-equals": (
        "src/main/java/d/Nil.java",
        "final class Nil {\n  static final Nil NIL = new Nil();\n"
        "  @Override public boolean equals(Object o) { return o == NIL; }\n}\n",
    ),
    "py-never-equal": (
        "calc.py",
        "class Unknown:\n    def __eq__(self, other):\n        return False\n\n"
        "    __hash__ = object.__hash__\n",
    ),
    "py-unordered": (
        "calc.py",
        "class Point:\n    def __lt__(self, other):\n        return False\n",
    ),
    "ts-never-equal": (
        "src/p.ts",
        "export class Nothing {\n  equals(_other: unknown): boolean {\n    return false;\n  }\n}\n",
    ),
    "py-singleton": (
        "calc.py",
        "class _Missing:\n    def __eq__(self, other):\n        return other is self\n",
    ),
    "py-ne-from-eq": (
        "calc.py",
        "class P:\n    def __ne__(self, other):\n        return not self == other\n",
    ),
}

HONEST_FLAGGED: dict[str, str] = {}


@pytest.mark.parametrize("form", _through(HONEST_FLAGGED, sorted(HONEST)))
def test_an_honest_equality_is_not_equality_forged(form: str) -> None:
    path, source = HONEST[form]
    found = claims_in(path, None, source, Scope())
    assert EQUALITY_FORGED not in [f.kind for f in found], (form, found)
