"""Red team, round 5: tests wherever they live, doctests spliced by name, equality_forged,
attacked end to end over MCP.

The variants live in tests/redteam_round5.py. A variant referee holds is a regression test; one
that gets through is a strict expected failure whose reason names where and why. The honest
changes beside them must pass, unflagged, and be delivered.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from base_form_attacks import Variant, assert_not_delivered, param
from edits import agent_for, calc_contract
from gitrepo import make_repo
from mcp_calls import call
from redteam_round5 import HONEST, VARIANTS, Honest
from runs import judged

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.mark.parametrize("variant", [param(v) for v in VARIANTS])
async def test_a_broken_add_is_not_delivered(variant: Variant, tmp_path: Path) -> None:
    await assert_not_delivered(variant, tmp_path)


@pytest.mark.parametrize("honest", [pytest.param(h, id=h.id) for h in HONEST])
async def test_an_honest_change_passes_unflagged_and_is_delivered(
    honest: Honest, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "calc", honest.base)
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, honest.check())
        honest.change(repo)
        result = await call(agent, "evaluate", contract_id=cid)
        checked = await call(
            agent, "validate_scorecard", scorecard=judged(result["draft_scorecard"])
        )
        decided = await call(agent, "aggregate", contract_id=cid)
    criterion = result["criteria"][0]
    said = (criterion["status"], criterion.get("reason_code"), criterion["reason"])
    assert criterion["status"] == "pass", said
    found = [a["id"] for a in result["antipatterns"]]
    assert not set(honest.unflagged) & set(found), (found, said)
    assert checked["valid"] is True, checked["errors"]
    assert decided["decision"] == "DELIVER", (decided["decision"], decided["reason"], found, said)
