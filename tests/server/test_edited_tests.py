"""A test the change edits is a claim: its base form still decides.

In every attack the change breaks `add` (it returns a - b) and edits a test that existed at base
so that its own copy passes: the expected value rewritten to the broken result, an expected
failure wrapped around it, a skip, the test deleted, its assertion removed, its snapshot or its
helper's constant rewritten, its parameters changed; in Python, JavaScript (node:test) and Go. A
judge that completes referee's draft as it stands must not reach DELIVER: the base's version of
the test runs on the changed code, fails, passed at base, and the criterion fails
(`base_test_failed`). Honest changes (a test added to an existing file, an edit that keeps the
behaviour, a behaviour change the contract names in `expected_changes`) pass.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from edits import (
    BREAK,
    PY_HEADER,
    Edit,
    both,
    deleted,
    judged_loop,
    py_check,
    python_project,
    replaced,
)
from gitrepo import make_repo

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SNAPSHOT_TEST = (
    PY_HEADER + "from pathlib import Path\nfrom calc import add\n\n\n"
    "def test_add_matches_snapshot():\n"
    "    expected = (Path(__file__).parent / '__snapshots__' / 'add.snap').read_text().strip()\n"
    "    assert str(add(5, 3)) == expected\n"
)
HELPER = "EXPECTED_SUM = 8\n"
HELPER_TEST = (
    PY_HEADER + "from calc import add\nfrom tests.helpers import EXPECTED_SUM\n\n\n"
    "def test_add():\n    assert add(5, 3) == EXPECTED_SUM\n"
)
PARAM_TEST = (
    PY_HEADER + "import pytest\nfrom calc import add\n\n\n"
    "@pytest.mark.parametrize('a, b, total', [(1, 2, 3), (5, 3, 8)])\n"
    "def test_add(a, b, total):\n    assert add(a, b) == total\n"
)

PY_ATTACKS: dict[str, tuple[dict[str, str] | None, Edit]] = {
    "expected-value-rewritten": (None, replaced("tests/test_calc.py", "== 3", "== -1")),
    "xfail-added": (
        None,
        replaced("tests/test_calc.py", "def test_add():", "@pytest.mark.xfail\ndef test_add():"),
    ),
    "xfail-strict-raises": (
        None,
        replaced(
            "tests/test_calc.py",
            "    assert add(1, 2) == 3",
            "    with pytest.raises(AssertionError):\n        assert add(1, 2) == 3",
        ),
    ),
    "skip-added": (
        None,
        replaced("tests/test_calc.py", "def test_add():", "@pytest.mark.skip\ndef test_add():"),
    ),
    "test-deleted": (None, deleted("tests/test_calc.py")),
    "assertion-removed": (
        None,
        replaced("tests/test_calc.py", "assert add(1, 2) == 3", "add(1, 2)"),
    ),
    "renamed-away": (None, replaced("tests/test_calc.py", "def test_add():", "def _add():")),
    "snapshot-rewritten": (
        {"tests/test_snap.py": SNAPSHOT_TEST, "tests/__snapshots__/add.snap": "8\n"},
        replaced("tests/__snapshots__/add.snap", "8", "2"),
    ),
    "helper-constant-rewritten": (
        {"tests/test_calc.py": HELPER_TEST, "tests/helpers.py": HELPER},
        replaced("tests/helpers.py", "= 8", "= 2"),
    ),
    "parameters-rewritten": (
        {"tests/test_calc.py": PARAM_TEST},
        replaced("tests/test_calc.py", "(1, 2, 3), (5, 3, 8)", "(1, 2, -1), (5, 3, 2)"),
    ),
}


@pytest.mark.parametrize("attack", sorted(PY_ATTACKS))
async def test_an_edited_python_test_cannot_hide_a_broken_change(
    attack: str, tmp_path: Path
) -> None:
    tests, edit = PY_ATTACKS[attack]
    repo = python_project(tmp_path, tests)
    result, decision = await judged_loop(repo, both(BREAK, edit), py_check())
    criterion = result["criteria"][0]
    assert criterion["status"] == "fail", criterion
    assert decision["decision"] != "DELIVER", decision


async def test_a_new_test_in_an_existing_file_runs_no_base_form(tmp_path: Path) -> None:
    repo = python_project(tmp_path)
    added = "\n\ndef test_add_negative():\n    assert add(-1, -2) == -3\n"

    def change(root: Path) -> None:
        with (root / "tests" / "test_calc.py").open("a", encoding="utf-8") as out:
            out.write(added)

    result, decision = await judged_loop(repo, change, py_check())
    assert result["criteria"][0]["status"] == "pass", result["criteria"]
    assert not any("base-tests" in str(e["command"]) for e in result["evidence"])
    assert decision["decision"] == "DELIVER", decision


async def test_an_edit_that_keeps_the_behaviour_passes(tmp_path: Path) -> None:
    repo = python_project(tmp_path)
    edit = replaced(
        "tests/test_calc.py", "assert add(1, 2) == 3", "total = add(1, 2)\n    assert total == 3"
    )
    result, decision = await judged_loop(repo, edit, py_check())
    assert result["criteria"][0]["status"] == "pass", result["criteria"]
    assert decision["decision"] == "DELIVER", decision


async def test_a_behaviour_change_the_contract_names_passes(tmp_path: Path) -> None:
    repo = python_project(tmp_path)
    change = both(
        replaced("calc.py", "return a + b", "return a + b + 0 if a else b"),
        replaced("calc.py", "+ 0 if a else b", "+ 1"),
        replaced("tests/test_calc.py", "== 3", "== 4"),
        replaced("tests/test_calc.py", "add(0, 0) == 0", "add(0, 0) == 1"),
    )
    check = {**py_check(), "expected_changes": ["*test_add", "*test_zero"]}
    result, _ = await judged_loop(repo, change, check)
    assert result["criteria"][0]["status"] == "pass", result["criteria"]
    without = python_project(tmp_path / "again")
    result, _ = await judged_loop(without, change, py_check())
    assert result["criteria"][0]["status"] == "fail", result["criteria"]
    assert result["criteria"][0]["reason_code"] == "base_test_failed"


NODE_CALC = "export function add(a, b) {\n  return a + b;\n}\n"
NODE_TEST = (
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n"
    "import { add } from '../src/calc.mjs';\n\n"
    "test('adds', () => {\n  assert.equal(add(1, 2), 3);\n});\n"
)
NODE_ATTACKS: dict[str, Edit] = {
    "expected-value-rewritten": replaced("test/calc.test.mjs", "add(1, 2), 3", "add(1, 2), -1"),
    "todo-wrapped": replaced("test/calc.test.mjs", "test('adds', () =>", "test.todo('adds', () =>"),
    "skip-option": replaced(
        "test/calc.test.mjs", "test('adds', () =>", "test('adds', { skip: true }, () =>"
    ),
}


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("attack", sorted(NODE_ATTACKS))
async def test_an_edited_node_test_cannot_hide_a_broken_change(attack: str, tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "js",
        {
            "src/calc.mjs": NODE_CALC,
            "test/calc.test.mjs": NODE_TEST,
            "package.json": '{"type": "module"}\n',
        },
    )
    change = both(replaced("src/calc.mjs", "a + b", "a - b"), NODE_ATTACKS[attack])
    result, decision = await judged_loop(
        repo, change, {"kind": "tests", "argv": ["node", "--test"]}
    )
    assert result["criteria"][0]["status"] == "fail", result["criteria"]
    assert decision["decision"] != "DELIVER"


GO_CALC = "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
GO_TEST = (
    'package calc\n\nimport "testing"\n\n'
    'func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("1+2")\n\t}\n}\n'
)


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")
@pytest.mark.parametrize(
    "edit",
    [
        replaced("calc_test.go", "Add(1, 2) != 3", "Add(1, 2) != -1"),
        replaced(
            "calc_test.go",
            "func TestAdd(t *testing.T) {\n",
            'func TestAdd(t *testing.T) {\n\tt.Skip("later")\n',
        ),
    ],
    ids=["expected-value-rewritten", "skip-added"],
)
async def test_an_edited_go_test_cannot_hide_a_broken_change(edit: Edit, tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "go",
        {
            "go.mod": "module example.com/calc\n\ngo 1.19\n",
            "calc.go": GO_CALC,
            "calc_test.go": GO_TEST,
        },
    )
    change = both(replaced("calc.go", "a + b", "a - b"), edit)
    result, decision = await judged_loop(
        repo, change, {"kind": "tests", "argv": ["go", "test", "./..."]}
    )
    assert result["criteria"][0]["status"] == "fail", result["criteria"]
    assert decision["decision"] != "DELIVER"
