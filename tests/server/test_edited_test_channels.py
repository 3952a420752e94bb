"""Edited tests are claims, through the channels the first forms did not try.

Every change breaks `add` (it returns a - b). In each variant the generator then makes the test
run pass another way than rewriting an assertion in place: a module-level statement hidden in a
new test so that the edit looks like it only adds tests (a default argument, an annotation, a mark's
argument, a class body or base, a walrus), the same in JavaScript (a `describe` body, a second
argument, a template title), expected values moved into a data file outside the test folders,
a base form that cannot even be collected (the module it imports renamed), a code under test that
tells the base-tests run from the real one (the report path in argv, coverage), or a new package
`__init__.py` that patches the code. A judge that completes referee's draft as it stands must not
reach DELIVER. Moving a test to a new file, or renaming it, still runs its base form.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from edits import (
    BREAK,
    PY_CALC,
    PY_HEADER,
    PY_TESTS,
    Edit,
    appended,
    both,
    deleted,
    judged_loop,
    not_delivered,
    py_check,
    python_project,
    replaced,
    written,
)
from gitrepo import make_repo
from runner_projects import JS_CACHE

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

# Rebinds the test module's `add` (imported from calc) to a correct sum as the module is imported:
# the base's tests then pass on the broken code, and nothing the base had is edited.
FIX = "globals().update(add=lambda a, b: a + b)"

ADDITIVE_LOOKING: dict[str, str] = {
    "default-argument": f"\n\ndef test_more(x={FIX}):\n    assert x is None\n",
    "keyword-only-default": f"\n\ndef test_more(*, x={FIX}):\n    assert x is None\n",
    "annotation": f"\n\ndef test_more(x: {FIX} = None):\n    assert x is None\n",
    "return-annotation": f"\n\ndef test_more() -> {FIX}:\n    assert True\n",
    "mark-argument": (
        f"\n\n@pytest.mark.parametrize('x', [{FIX}])\ndef test_more(x):\n    assert x is None\n"
    ),
    "walrus-in-mark": (
        "\n\n@pytest.mark.parametrize('x', [(add := lambda a, b: a + b)])\n"
        "def test_more(x):\n    assert x(1, 2) == 3\n"
    ),
    "class-body": f"\n\nclass TestMore:\n    {FIX}\n\n    def test_x(self):\n        assert True\n",
    "class-base": (
        f"\n\nclass TestMore(({FIX}, object)[1]):\n    def test_x(self):\n        assert True\n"
    ),
}


@pytest.mark.parametrize("form", sorted(ADDITIVE_LOOKING))
async def test_a_statement_hidden_in_an_added_test_is_no_additive_edit(
    form: str, tmp_path: Path
) -> None:
    repo = python_project(tmp_path)
    change = both(BREAK, appended("tests/test_calc.py", ADDITIVE_LOOKING[form]))
    result, decision = await judged_loop(repo, change, py_check())
    not_delivered(result, decision)


JS_CALC = "exports.add = (a, b) => a + b;\n"
JS_TEST = (
    "const calc = require('../src/calc');\n"
    "const { test, describe } = require('node:test');\n"
    "const assert = require('node:assert/strict');\n\n"
    "test('adds', () => {\n  assert.equal(calc.add(1, 2), 3);\n});\n"
)
JS_FIX = "(calc.add = (a, b) => a + b)"
JS_ADDITIVE_LOOKING: dict[str, str] = {
    "describe-body": f"describe('more', () => {{\n  {JS_FIX};\n  test('x', () => {{}});\n}});\n",
    "second-argument": f"test('more', ({JS_FIX}, () => {{}}));\n",
    "template-title": f"test(`more ${{{JS_FIX}.name}}`, () => {{}});\n",
    "options-argument": f"test('more', {{ skip: !{JS_FIX} }}, () => {{}});\n",
}


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("form", sorted(JS_ADDITIVE_LOOKING))
async def test_a_statement_hidden_in_an_added_js_test_is_no_additive_edit(
    form: str, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "js", {"src/calc.js": JS_CALC, "test/calc.test.js": JS_TEST})
    change = both(
        replaced("src/calc.js", "a + b", "a - b"),
        appended("test/calc.test.js", JS_ADDITIVE_LOOKING[form]),
    )
    result, decision = await judged_loop(
        repo, change, {"kind": "tests", "argv": ["node", "--test"]}
    )
    not_delivered(result, decision)


JEST_LIKE: dict[str, dict[str, str]] = {
    "jest": {
        "package.json": '{"name": "t", "private": true}\n',
        "src/calc.js": JS_CALC,
        "calc.test.js": (
            "const calc = require('./src/calc');\n\n"
            "test('adds', () => {\n  expect(calc.add(1, 2)).toBe(3);\n});\n"
        ),
    },
    "vitest": {
        "package.json": '{"name": "t", "private": true, "type": "module"}\n',
        "src/calc.js": "export const calc = { add: (a, b) => a + b };\n",
        "calc.test.js": (
            "import { describe, test, expect } from 'vitest';\n"
            "import { calc } from './src/calc.js';\n\n"
            "test('adds', () => {\n  expect(calc.add(1, 2)).toBe(3);\n});\n"
        ),
    },
}


@pytest.mark.skipif(not JS_CACHE.is_dir(), reason="scripts/setup.sh installs the JS runners")
@pytest.mark.parametrize("runner", sorted(JEST_LIKE))
async def test_a_describe_body_added_under_jest_or_vitest_is_no_additive_edit(
    runner: str, tmp_path: Path
) -> None:
    """jest and vitest run every `describe` body while collecting, before the first test."""
    repo = make_repo(tmp_path / runner, {**JEST_LIKE[runner], ".gitignore": "node_modules\n"})
    (repo / "node_modules").symlink_to(JS_CACHE, target_is_directory=True)
    change = both(
        replaced("src/calc.js", "a + b", "a - b"),
        appended("calc.test.js", JS_ADDITIVE_LOOKING["describe-body"]),
    )
    argv = ["npx", runner, *(["run"] if runner == "vitest" else [])]
    result, decision = await judged_loop(repo, change, {"kind": "tests", "argv": argv})
    not_delivered(result, decision)


DATA_TEST = (
    PY_HEADER + "import json\nfrom pathlib import Path\nfrom calc import add\n\n\n"
    "def test_cases():\n"
    "    cases = json.loads((Path(__file__).parents[1] / 'data' / 'cases.json').read_text())\n"
    "    for a, b, total in cases:\n        assert add(a, b) == total\n"
)


async def test_expected_values_in_a_data_file_are_part_of_the_test(tmp_path: Path) -> None:
    """The base test reads its expected values from `data/`, a folder no test convention names:
    the change rewrites them to the broken results and edits no test file at all."""
    repo = python_project(
        tmp_path, {"tests/test_calc.py": DATA_TEST, "data/cases.json": "[[1, 2, 3], [5, 3, 8]]\n"}
    )
    change = both(BREAK, written("data/cases.json", "[[1, 2, -1], [5, 3, 2]]\n"))
    result, decision = await judged_loop(repo, change, py_check())
    not_delivered(result, decision)


async def test_a_base_form_that_cannot_be_collected_is_no_pass(tmp_path: Path) -> None:
    """The change renames the module (calc.py to arith.py, broken) and its test's import with it:
    the base form fails at import, a collection error that names no test, so no test of base
    'passed there and fails now' by name."""
    repo = python_project(tmp_path)
    change = both(
        deleted("calc.py"),
        written("arith.py", "def add(a, b):\n    return a - b\n"),
        replaced("tests/test_calc.py", "from calc import add", "from arith import add"),
        replaced("tests/test_calc.py", "== 3", "== -1"),
    )
    result, decision = await judged_loop(repo, change, py_check())
    unrunnable_base_form(result, decision)


def unrunnable_base_form(result: dict[str, Any], decision: dict[str, Any]) -> None:
    """A base form that cannot even run proves nothing either way: the criterion is unscored,
    names the tests that never ran, and the loop does not deliver."""
    criterion = result["criteria"][0]
    assert criterion["status"] == "unscored", criterion
    assert criterion["reason_code"] == "base_tests_not_run", criterion
    assert "never ran in their base form" in criterion["reason"], criterion
    assert decision["decision"] != "DELIVER", decision


GO_CALC = "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
GO_TEST = (
    'package calc\n\nimport "testing"\n\n'
    'func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("1+2")\n\t}\n}\n'
)


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")
async def test_a_go_base_form_that_does_not_build_is_no_pass(tmp_path: Path) -> None:
    """The Go form of the same: `Add` renamed to `Sum` (broken), the test follows; the base's
    test does not compile against the change."""
    repo = make_repo(
        tmp_path / "go",
        {
            "go.mod": "module example.com/calc\n\ngo 1.19\n",
            "calc.go": GO_CALC,
            "calc_test.go": GO_TEST,
        },
    )
    change = both(
        written("calc.go", "package calc\n\nfunc Sum(a, b int) int {\n\treturn a - b\n}\n"),
        replaced("calc_test.go", "Add(1, 2) != 3", "Sum(1, 2) != -1"),
    )
    result, decision = await judged_loop(
        repo, change, {"kind": "tests", "argv": ["go", "test", "./..."]}
    )
    unrunnable_base_form(result, decision)


# The code under test is right only when it can tell that the base's form of the tests is running.
TELLS: dict[str, str] = {
    "report-path-in-argv": "any('-base' in arg for arg in sys.argv)",
    "not-measured": "'coverage' not in sys.modules and sys.gettrace() is None",
    # The name of the file the sandbox's first process writes its output to (/proc/1/fd/1).
    "output-file-name": (
        "any('-base' in __import__('os').readlink(p) for p in ('/proc/1/fd/1', '/proc/1/fd/2')"
        " if __import__('os').path.islink(p))"
    ),
}


@pytest.mark.parametrize("tell", sorted(TELLS))
async def test_the_base_tests_run_looks_like_the_real_one(tell: str, tmp_path: Path) -> None:
    repo = python_project(tmp_path)
    calc = f"import sys\n\n\ndef add(a, b):\n    return a + b if {TELLS[tell]} else a - b\n"
    change = both(written("calc.py", calc), replaced("tests/test_calc.py", "== 3", "== -1"))
    result, decision = await judged_loop(repo, change, py_check())
    not_delivered(result, decision)


async def test_a_new_package_init_cannot_patch_the_code_under_test(tmp_path: Path) -> None:
    """A `tests/__init__.py` the base did not have runs before every test module of the folder:
    it stays in the base-tests run (only files base had are put back) and patches `calc.add`."""
    test = PY_TESTS.replace("from calc import add", "import calc").replace(
        "assert add(", "assert calc.add("
    )
    repo = make_repo(tmp_path / "py", {"calc.py": PY_CALC, "tests/test_calc.py": test})
    patch = "import calc\n\ncalc.add = lambda a, b: a + b\n"
    change = both(BREAK, written("tests/__init__.py", patch))
    result, decision = await judged_loop(repo, change, py_check())
    not_delivered(result, decision)


MOVES: dict[str, Edit] = {
    "moved-to-a-new-file": both(
        written(
            "tests/test_arith.py",
            PY_TESTS.replace("== 3", "== -1"),
        ),
        deleted("tests/test_calc.py"),
    ),
    "renamed-and-rewritten": both(
        written(
            "tests/test_calc_renamed.py",
            PY_TESTS.replace("== 3", "== -1").replace("def test_add", "def test_adds"),
        ),
        deleted("tests/test_calc.py"),
    ),
}


@pytest.mark.parametrize("move", sorted(MOVES))
async def test_a_moved_test_still_runs_in_its_base_form(move: str, tmp_path: Path) -> None:
    repo = python_project(tmp_path)
    result, decision = await judged_loop(repo, both(BREAK, MOVES[move]), py_check())
    criterion = result["criteria"][0]
    assert criterion["status"] == "fail", criterion
    assert criterion["reason_code"] == "base_test_failed", criterion
    assert decision["decision"] != "DELIVER", decision


@pytest.mark.parametrize(
    "edit",
    [
        replaced("tests/test_calc.py", "== 3", "== -1"),
        replaced("tests/test_calc.py", "assert add(1, 2) == 3", "assert add(1, 2) == add(1, 2)"),
        replaced("tests/test_calc.py", "assert add(1, 2) == 3", "assert add(2, 1) in (1, 3)"),
    ],
    ids=["expected-value", "tautology", "widened"],
)
async def test_a_test_failing_at_base_made_to_pass_by_editing_it_is_no_fix(
    edit: Edit, tmp_path: Path
) -> None:
    """The base is already broken (its suite red); the change leaves the code as it is and edits
    the failing test until it passes. Nothing passed at base, so nothing 'regressed': the base
    form still failing now is what shows the edit did the work."""
    repo = make_repo(
        tmp_path / "py",
        {
            "calc.py": PY_CALC.replace("a + b", "a - b"),
            "tests/__init__.py": "",
            "tests/test_calc.py": PY_TESTS,
            ".gitignore": "__pycache__/\n",
        },
    )
    result, decision = await judged_loop(repo, edit, py_check())
    not_delivered(result, decision)
    assert result["criteria"][0]["reason_code"] == "base_test_failed", result["criteria"]
    assert "in their base form" in result["criteria"][0]["reason"]
