"""Canary iterations through MCP: a defect planted in a copy of an iteration, judged as an
ordinary iteration, recorded as caught or missed, and never a verdict."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio.to_thread
import pytest
from judges import catch_all, change_contract, judge_iteration, miss_all
from mcp import Client
from mcp_calls import call
from projects import contract_for, evaluate_deps, pytest_check

from referee.server.cli import main
from referee.tools.evaluate import EvaluateDeps, EvaluateInput, evaluate
from referee.tools.store import Store
from referee.tools.store.canaries import canaries_for

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


contract = change_contract


def shape(evaluation: dict[str, Any]) -> Any:
    """The result with what differs between any two runs made equal: ids, tree, signature,
    timestamps, durations and the sandbox's temporary folders."""
    text = json.dumps(evaluation, sort_keys=True)
    for value in (evaluation["run_id"], evaluation["target"]["tree"], evaluation["signature"]):
        text = text.replace(value, "X")
    text = re.sub(r'"(duration_s|timestamp)": [^,}]+', r'"\1": 0', text)
    return json.loads(re.sub(r"referee-run-[^/]+/runs/[0-9a-f]+", "RUN", text))


async def test_a_canary_run_looks_like_a_real_run_of_the_same_iteration(agent: Client) -> None:
    cid = await contract(agent)
    real, _ = await judge_iteration(agent, miss_all, cid, 1)
    canary = await call(agent, "evaluate", contract_id=cid, evaluator="evaluator", canary=True)
    assert canary["run_id"] != real["run_id"] and canary["iteration"] == 1
    assert canary["target"]["tree"] != real["target"]["tree"]
    assert shape(canary) == shape(real)
    text = (await agent.call_tool("evaluate", {"contract_id": cid, "canary": True})).content
    assert "canary" not in json.dumps([c.model_dump() for c in text]).lower()


async def test_the_judge_gets_the_canary_when_it_evaluates_the_iteration_again(
    agent: Client, project: Path
) -> None:
    cid = await contract(agent)
    await judge_iteration(agent, miss_all, cid, 1)
    canary = await call(agent, "evaluate", contract_id=cid, evaluator="evaluator", canary=True)
    served, checked = await judge_iteration(agent, catch_all, cid, 1)
    assert served["run_id"] == canary["run_id"]
    assert checked["valid"] and not checked["stale"] and not checked["replaced"]
    # Judged: the next evaluation of the iteration is a real one again.
    again = await call(agent, "evaluate", contract_id=cid, evaluator="evaluator", iteration=1)
    assert again["run_id"] != canary["run_id"]
    store = Store(project / ".referee")
    (stored,) = canaries_for(store, cid)
    assert stored.outcome is not None and stored.outcome["caught"] is True
    store.close()


async def test_a_canary_card_never_decides_the_iteration(agent: Client) -> None:
    cid = await contract(agent)
    await judge_iteration(agent, miss_all, cid, 1)
    before = await call(agent, "aggregate", contract_id=cid)
    await call(agent, "evaluate", contract_id=cid, evaluator="evaluator", canary=True)
    await judge_iteration(agent, catch_all, cid, 1)  # REVISE on the canary
    after = await call(agent, "aggregate", contract_id=cid)
    assert before["decision"] == after["decision"] == "DELIVER"
    assert after["evaluator_verdicts"] == before["evaluator_verdicts"]


async def test_the_change_resource_shows_the_planted_defect_only_on_the_canary(
    agent: Client,
) -> None:
    cid = await contract(agent)
    real, _ = await judge_iteration(agent, miss_all, cid, 1)
    canary = await call(agent, "evaluate", contract_id=cid, evaluator="evaluator", canary=True)
    texts = []
    for run in (real, canary):
        read = await agent.read_resource(f"change://{run['run_id']}")
        texts.append("".join(getattr(c, "text", "") for c in read.contents))
    assert (
        texts[0] != texts[1] and "+++ b/src/calc.py" in texts[0] and "+++ b/src/calc.py" in texts[1]
    )


async def test_a_canary_before_any_iteration_is_refused_with_the_next_step(agent: Client) -> None:
    cid = await contract(agent)
    result = await agent.call_tool("evaluate", {"contract_id": cid, "canary": True})
    assert result.is_error
    assert "canary_needs_run" in str(result.content)


async def test_the_cli_plants_a_canary_and_serves_it_to_the_judges_next_evaluate(
    agent: Client, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cid = await contract(agent)
    await judge_iteration(agent, miss_all, cid, 1)
    capsys.readouterr()
    command = ["--root", str(project), "evaluate", cid, "--evaluator", "evaluator", "--json"]
    # The CLI runs its own event loop: in a thread of its own, as a separate process would.
    assert await anyio.to_thread.run_sync(main, [*command, "--canary"]) == 0
    planted = json.loads(capsys.readouterr().out)
    assert planted["iteration"] == 1 and planted["target"]["ref"] is None
    assert await anyio.to_thread.run_sync(main, command) == 0
    assert json.loads(capsys.readouterr().out)["run_id"] == planted["run_id"]
    report = await agent.read_resource(f"report://{cid}")
    assert planted["run_id"] not in "".join(getattr(c, "text", "") for c in report.contents)


async def test_the_judges_other_channels_answer_a_canary_as_they_answer_a_real_run(
    agent: Client,
) -> None:
    cid = await contract(agent)
    real, real_checked = await judge_iteration(agent, miss_all, cid, 1)
    await call(agent, "evaluate", contract_id=cid, evaluator="evaluator", canary=True)
    canary, canary_checked = await judge_iteration(agent, miss_all, cid, 1)
    # validate_scorecard: the same fields and codes (a first card of its run replaces nothing).
    for key in ("valid", "format", "stored", "replaced", "stale", "evaluator", "iteration"):
        assert canary_checked[key] == real_checked[key], key
    codes = [[w["code"] for w in c["warnings"]] for c in (canary_checked, real_checked)]
    assert codes[0] == codes[1]
    # report://RUN and evidence://RUN/E1: the same sections and the same kind of item.
    sections = []
    for run in (canary, real):
        read = await agent.read_resource(f"report://{run['run_id']}")
        text = "".join(getattr(c, "text", "") for c in read.contents)
        sections.append(re.findall(r"^## .*$", text, re.M))
        item = await agent.read_resource(f"evidence://{run['run_id']}/E1")
        assert json.loads(item.contents[0].text)["tool"] == real["evidence"][0]["tool"]
    assert sections[0] == sections[1]
    # The prior scorecard, the prompt and the report link are the run's as for any iteration.
    assert (
        canary["prior_scorecard"] == real["prior_scorecard"] and canary["prompt"] == real["prompt"]
    )


async def test_the_served_canary_names_the_judges_model_and_waits_for_the_depth_it_was_run_at(
    agent: Client,
) -> None:
    cid = await contract(agent)
    await judge_iteration(agent, miss_all, cid, 1)
    canary = await call(agent, "evaluate", contract_id=cid, evaluator="evaluator", canary=True)
    asked = {"contract_id": cid, "evaluator": "evaluator", "iteration": 1}
    deeper = await call(agent, "evaluate", **asked, depth="deep")
    assert deeper["run_id"] != canary["run_id"] and deeper["depth"] == "deep"
    served = await call(agent, "evaluate", **asked, evaluator_model="judge-model-7")
    assert served["run_id"] == canary["run_id"]
    assert served["draft_scorecard"]["evaluator_model"] == "judge-model-7"
    card = await miss_all(agent, served)
    card["evaluator_model"] = "judge-model-7"
    assert (await call(agent, "validate_scorecard", scorecard=card))["valid"]


async def test_a_canary_card_cannot_be_slipped_into_aggregate_inline(agent: Client) -> None:
    cid = await contract(agent)
    await judge_iteration(agent, miss_all, cid, 1)
    await call(agent, "evaluate", contract_id=cid, evaluator="evaluator", canary=True)
    served = await call(agent, "evaluate", contract_id=cid, evaluator="evaluator", iteration=1)
    card = await catch_all(agent, served)
    result = await agent.call_tool("aggregate", {"contract_id": cid, "scorecards": [card]})
    assert result.is_error and "run_unknown" in str(result.content)


async def test_a_served_canary_reports_the_steps_a_run_of_the_checks_reports(project: Path) -> None:
    store = Store(project / ".referee")
    contract = contract_for(
        store,
        project,
        {"criterion": "adds", "verification_method": "test", "check": pytest_check("tests")},
    )
    steps: dict[str, list[tuple[float, str]]] = {"real": [], "served": []}

    def deps(name: str) -> EvaluateDeps:
        async def progress(done: float, total: float | None, what: str) -> None:
            steps[name].append((done, what))

        base = evaluate_deps(store, project)
        return replace(base, on_progress=progress)

    asked = EvaluateInput(contract_id=contract.id, evaluator="evaluator", iteration=1)
    real = await evaluate(asked, deps("real"))
    planted = await evaluate(
        asked.model_copy(update={"canary": True}), evaluate_deps(store, project)
    )
    served = await evaluate(asked, deps("served"))
    assert served.run_id == planted.run_id != real.run_id
    # The checks run concurrently, so a run reports its steps in any order: the same steps.
    for part in (0, 1):
        assert sorted(s[part] for s in steps["served"]) == sorted(s[part] for s in steps["real"])
    store.close()
