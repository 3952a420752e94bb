"""The loop's budget through MCP and the CLI: seconds from the runs and the judges' calls, tokens
and money where the client reports them, the solo baseline, and the note when first iterations of
a kind keep delivering."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from judges import change_contract, miss_all
from mcp import Client
from mcp_calls import call

from referee.server.cli import main

pytestmark = pytest.mark.anyio


async def judged_with_usage(agent: Client, cid: str) -> dict[str, Any]:
    evaluation = await call(agent, "evaluate", contract_id=cid, evaluator="evaluator")
    card = await miss_all(agent, evaluation)
    card["usage"] = {"tokens": 1200, "cost_usd": 0.02, "seconds": 40}
    assert (await call(agent, "validate_scorecard", scorecard=card))["valid"]
    return evaluation


async def test_aggregate_shows_the_cost_of_each_iteration_and_the_solo_baseline(
    agent: Client,
) -> None:
    cid = await change_contract(agent)
    evaluation = await judged_with_usage(agent, cid)
    generator = {"tokens": 8000, "cost_usd": 0.1, "seconds": 300}
    decided = await call(agent, "aggregate", contract_id=cid, usage=generator)
    budget = decided["budget"]
    (first,) = budget["iterations"]
    assert first["iteration"] == 1 and first["tokens"] == 9200 and first["cost_usd"] == 0.12
    assert first["generator_s"] == 300 and first["checks_s"] == evaluation["duration_s"]
    assert first["judging_s"] >= 0
    assert first["wall_s"] == round(first["checks_s"] + first["judging_s"] + 300, 3)
    assert budget["total"]["tokens"] == 9200 and budget["total"]["iteration"] == 0
    assert budget["solo"] == "the solo attempt already passed 1 of 1 criterion"
    assert budget["note"] is None
    text = (await agent.call_tool("aggregate", {"contract_id": cid})).content[0]
    assert "loop total:" in getattr(text, "text", "")


async def test_without_reports_the_generator_time_comes_from_the_runs(agent: Client) -> None:
    cid = await change_contract(agent)
    evaluation = await call(agent, "evaluate", contract_id=cid, evaluator="evaluator")
    await call(agent, "validate_scorecard", scorecard=await miss_all(agent, evaluation))
    (first,) = (await call(agent, "aggregate", contract_id=cid))["budget"]["iterations"]
    assert first["tokens"] is None and first["cost_usd"] is None
    assert first["generator_s"] is not None and first["generator_s"] >= 0


@pytest.mark.slow
async def test_a_kind_whose_first_iteration_keeps_delivering_gets_the_overhead_note(
    agent: Client,
) -> None:
    notes = []
    for _ in range(3):
        cid = await change_contract(agent)
        evaluation = await call(agent, "evaluate", contract_id=cid, evaluator="evaluator")
        await call(agent, "validate_scorecard", scorecard=await miss_all(agent, evaluation))
        decided = await call(agent, "aggregate", contract_id=cid)
        assert decided["decision"] == "DELIVER" and decided["iteration"] == 1
        notes.append(decided["budget"]["note"])
    assert notes[:2] == [None, None]
    assert "the last 3 BUG_FIX contracts delivered their first iteration" in notes[2]


async def test_the_cli_prints_the_budget_and_takes_the_generators_usage(
    agent: Client, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cid = await change_contract(agent)
    await judged_with_usage(agent, cid)
    capsys.readouterr()
    usage = json.dumps({"tokens": 100, "cost_usd": 1.5})
    assert main(["--root", str(project), "aggregate", cid, "--usage", usage]) == 0
    out = capsys.readouterr().out
    assert "budget:" in out and "1,300 tokens, $1.52" in out and "solo attempt" in out
    assert main(["--root", str(project), "aggregate", cid, "--usage", '{"tokens": -1}']) == 2
    report = capsys.readouterr()
    assert "--usage" in report.err
    assert main(["--root", str(project), "report", cid]) == 0
    assert "## Budget" in capsys.readouterr().out
