"""Assertions left written but checking nothing, over MCP: a broken `add` with its tests' assertions
put after a `return`, under `if False:` or replaced by one that reads only literals. The diff reads
each as assertions removed (tools/tampering/reach.py), the judge cannot drop it, and the loop does
not deliver.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from edits import (
    BREAK,
    PY_TESTS,
    agent_for,
    both,
    calc_contract,
    py_check,
    python_project,
    replaced,
)
from mcp_calls import call
from runs import judged

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

_ASSERT = "    assert add(1, 2) == 3\n"
NEUTERED = {
    "after a return": "    return\n" + _ASSERT,
    "under if False": "    if False:\n    " + _ASSERT,
    "a literal in its place": "    assert 3 == 3\n",
}


@pytest.mark.parametrize("name", list(NEUTERED))
async def test_a_neutered_assertion_keeps_a_broken_change_from_delivery(
    name: str, tmp_path: Path
) -> None:
    repo = python_project(
        tmp_path, {"tests/test_calc.py": PY_TESTS.replace("0, 0) == 0", "2, 0) == 2")}
    )
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, py_check())
        both(BREAK, replaced("tests/test_calc.py", _ASSERT, NEUTERED[name]))(repo)
        result = await call(agent, "evaluate", contract_id=cid)
        found = [a for a in result["antipatterns"] if a["id"] == "assertions_removed"]
        assert found, result["antipatterns"]
        # The evidence names the assertion that no longer counts and why.
        assert "test_add" in str(found), found
        assert any(why in str(found) for why in ("still at line", "checking nothing")), found
        card = judged(result["draft_scorecard"])
        card["antipatterns_detected"] = [
            a for a in card.get("antipatterns_detected", []) if a["id"] != "assertions_removed"
        ]
        checked = await call(agent, "validate_scorecard", scorecard=card)
        assert "antipattern_dropped" in {e["code"] for e in checked["errors"]}, checked
        decided = await call(agent, "aggregate", contract_id=cid)
        assert decided["decision"] != "DELIVER", decided
