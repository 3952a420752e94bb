"""Honest edits of existing tests, over MCP: a test moved to another file, tests merged into one
parametrized test, a new test with a skip condition that runs (and an assertion moved into a
helper, which is no tampering at all).
The diff reads each as tampering (a test gone, fewer assertions, a skip), but the base's versions
of the edited tests ran on the change and pass, so a judge may leave the antipattern out of the
card (`antipattern_dismissed`, a warning) and the loop can deliver. The same edits over broken
code keep the antipattern: the base's versions fail there, and it cannot be dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from edits import (
    BREAK,
    PY_HEADER,
    PY_TESTS,
    Edit,
    agent_for,
    both,
    calc_contract,
    deleted,
    py_check,
    python_project,
    written,
)
from mcp_calls import call
from runs import judged

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

_IMPORTS = PY_HEADER + "import sys\n\nimport pytest\nfrom calc import add\n\n\n"

# Each honest edit, and the antipattern the diff reads in it.
HONEST: dict[str, tuple[Edit, str]] = {
    "a test file renamed": (
        both(deleted("tests/test_calc.py"), written("tests/test_sums.py", PY_TESTS)),
        "test_deleted",
    ),
    "two tests merged into one parametrized test": (
        written(
            "tests/test_calc.py",
            _IMPORTS + "@pytest.mark.parametrize(('a', 'b', 'total'), [(1, 2, 3), (0, 0, 0)])\n"
            "def test_add(a, b, total):\n    assert add(a, b) == total\n",
        ),
        "test_deleted",
    ),
    "a new test with a skip condition that runs": (
        written(
            "tests/test_more.py",
            _IMPORTS + "@pytest.mark.skipif(sys.version_info < (3, 8), reason='old')\n"
            "def test_add_large():\n    assert add(10**12, 1) == 10**12 + 1\n",
        ),
        "test_skipped",
    ),
}


async def _loop(repo: Path, change: Edit, leave_out: str) -> tuple[dict[str, Any], ...]:
    """Evaluate the change; the judge completes the draft without `leave_out`; validate,
    aggregate."""
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, py_check())
        change(repo)
        result = await call(agent, "evaluate", contract_id=cid)
        card = judged(result["draft_scorecard"])
        found = [a for a in card.get("antipatterns_detected", []) if a["id"] == leave_out]
        card["antipatterns_detected"] = [
            a for a in card.get("antipatterns_detected", []) if a["id"] != leave_out
        ]
        card["issues"] = [i for i in card["issues"] if leave_out not in i["description"]]
        checked = await call(agent, "validate_scorecard", scorecard=card)
        decided = await call(agent, "aggregate", contract_id=cid)
        return result, found, checked, decided


# A helper of the file lends the test its assertions (tools/tampering/pyreach.py): moving one
# there is no tampering at all; over broken code the tests themselves fail.
MOVED_INTO_A_HELPER = written(
    "tests/test_calc.py",
    _IMPORTS + "def _sums(a, b, total):\n    assert add(a, b) == total\n\n\n"
    "def test_add():\n    _sums(1, 2, 3)\n\n\n"
    "def test_zero():\n    _sums(0, 0, 0)\n",
)


async def test_an_assertion_moved_into_a_helper_is_no_tampering(tmp_path: Path) -> None:
    result, found, checked, decided = await _loop(
        python_project(tmp_path), MOVED_INTO_A_HELPER, "assertions_removed"
    )
    assert result["criteria"][0]["status"] == "pass", result["criteria"][0]
    assert not found and not result["antipatterns"], result["antipatterns"]
    assert checked["valid"] is True, checked["errors"]
    assert decided["decision"] == "DELIVER", decided


async def test_an_assertion_moved_into_a_helper_over_broken_code_fails(tmp_path: Path) -> None:
    result, _, _, decided = await _loop(
        python_project(tmp_path), both(BREAK, MOVED_INTO_A_HELPER), "assertions_removed"
    )
    assert result["criteria"][0]["status"] == "fail", result["criteria"][0]
    assert decided["decision"] != "DELIVER", decided


@pytest.mark.parametrize("name", list(HONEST))
async def test_an_honest_edit_of_a_test_may_be_dismissed(name: str, tmp_path: Path) -> None:
    change, antipattern = HONEST[name]
    result, found, checked, decided = await _loop(python_project(tmp_path), change, antipattern)
    assert result["criteria"][0]["status"] == "pass", result["criteria"][0]
    assert found, (name, result["antipatterns"])  # the diff does read it as tampering
    assert checked["valid"] is True, checked["errors"]
    warned = [w for w in checked["warnings"] if w["code"] == "antipattern_dismissed"]
    assert warned and "base's versions" in warned[0]["message"], checked["warnings"]
    assert decided["decision"] == "DELIVER", decided


@pytest.mark.parametrize("name", [n for n in HONEST if HONEST[n][1] != "test_skipped"])
async def test_the_same_edit_over_broken_code_cannot_be_dismissed(
    name: str, tmp_path: Path
) -> None:
    change, antipattern = HONEST[name]
    result, found, checked, decided = await _loop(
        python_project(tmp_path), both(BREAK, change), antipattern
    )
    assert found, (name, result["antipatterns"])
    assert checked["valid"] is False
    assert "antipattern_dropped" in {e["code"] for e in checked["errors"]}, checked["errors"]
    assert decided["decision"] != "DELIVER", decided


async def test_an_existing_test_newly_skipped_stays(tmp_path: Path) -> None:
    """A skip on a test the base had is the change's to defend in the contract, even over
    working code: the judge cannot drop it."""
    skip = written(
        "tests/test_calc.py", PY_TESTS.replace("def test_zero", "@pytest.mark.skip\ndef test_zero")
    )
    result, found, checked, _ = await _loop(python_project(tmp_path), skip, "test_skipped")
    assert found, result["antipatterns"]
    assert "antipattern_dropped" in {e["code"] for e in checked["errors"]}, checked
