"""Measuring the judge through MCP and the CLI: scripted judges whose habits are known, and the
reliability calibration_report reads from their canaries and re-judgements."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from judges import (
    Flipper,
    Judge,
    catch_all,
    change_contract,
    credentials_only,
    judge_iteration,
    miss_all,
)
from mcp import Client
from mcp_calls import call

from referee.server.cli import main

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


contract = change_contract


async def canaries(agent: Client, cid: str, judge: Judge, count: int) -> None:
    """What the loop does every few evaluations: a canary, then the judge as usual."""
    for _ in range(count):
        await call(agent, "evaluate", contract_id=cid, evaluator="evaluator", canary=True)
        await judge_iteration(agent, judge, cid, 1)


def judge(report: dict[str, Any], model: str) -> dict[str, Any]:
    (found,) = [j for j in report["judges"] if j["evaluator_model"] == model]
    return found


async def test_recall_shows_which_judge_misses_planted_defects(agent: Client) -> None:
    cid = await contract(agent)
    await judge_iteration(agent, miss_all, cid, 1)
    await canaries(agent, cid, miss_all, 3)
    await canaries(agent, cid, catch_all, 3)
    report = await call(agent, "calibration_report", contract_id=cid)
    missed, caught = judge(report, "miss-all"), judge(report, "catch-all")
    # Six canaries rotate over the kinds; a credential the secret scan finds is the evidence's
    # catch, no measure of the judge.
    assert missed["canary"]["cases"] == 3 and missed["canary"]["rate"] == 0
    assert set(missed["canary"]["by_kind"]) == {"off_by_one", "removed_check", "swallowed_error"}
    assert caught["canary"]["rate"] == 1
    assert caught["canary"]["cases"] + caught["canary"]["evidence_caught"] == 3
    assert all(r["rate"] == 1 for r in caught["canary"]["by_kind"].values())
    assert "below 80%" in missed["flagged"] and caught.get("flagged") is None
    # The canaries decided nothing: the iteration is still the real card's.
    decided = await call(agent, "aggregate", contract_id=cid)
    assert decided["decision"] == "DELIVER"


async def test_recall_by_kind_shows_what_a_judge_sees_and_what_it_does_not(agent: Client) -> None:
    cid = await contract(agent)
    await judge_iteration(agent, miss_all, cid, 1)
    await canaries(agent, cid, credentials_only, 5)  # the fifth of the rotation is a credential
    seen = judge(await call(agent, "calibration_report", contract_id=cid), "credentials-only")
    kinds = {k: r["rate"] for k, r in seen["canary"]["by_kind"].items()}
    assert kinds == {
        "off_by_one": 0.0,
        "removed_check": 0.0,
        "swallowed_error": 0.0,
        "inverted_condition": 0.0,
        "hardcoded_credential": 1.0,
    }
    assert seen["canary"]["rate"] == 0.2 and seen["canary"]["evidence_caught"] == 0
    assert "canary recall 20%" in seen["flagged"]


async def test_a_judge_that_flips_on_the_same_tree_is_unstable(agent: Client) -> None:
    cid = await contract(agent)
    flipper = Flipper()
    for _ in range(3):  # the same tree, judged on three runs
        await judge_iteration(agent, flipper, cid, 1)
    report = await call(agent, "calibration_report", contract_id=cid)
    stability = judge(report, "flipper")["stability"]
    assert stability["pairs"] == 2 and stability["rate"] < 1
    assert stability["verdict"] == {"cases": 2, "hits": 0, "rate": 0.0}
    assert stability["criteria"]["AC-F-001"]["rate"] == 1.0
    assert stability["dimensions"]["design_quality"]["rate"] == 0.0


async def test_a_steady_judge_is_stable_and_a_resubmission_is_no_second_judgement(
    agent: Client,
) -> None:
    cid = await contract(agent)
    evaluation, _ = await judge_iteration(agent, miss_all, cid, 1)
    again = await miss_all(agent, evaluation)  # the same run, submitted again
    assert (await call(agent, "validate_scorecard", scorecard=again))["replaced"]
    _, checked = await judge_iteration(agent, miss_all, cid, 1)
    human = {"scorecard_id": int(checked["scorecard_id"]), "verdict": "REVISE"}
    await call(agent, "record_human_verdict", **human)
    steady = judge(await call(agent, "calibration_report", contract_id=cid), "miss-all")
    assert steady["stability"]["pairs"] == 1 and steady["stability"]["rate"] == 1.0
    assert steady["human"]["cases"] == 1 and steady["human"]["rate"] == 0.0
    assert steady["canary"] is None


async def test_the_cli_reports_each_judge_with_its_cases(
    agent: Client, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cid = await contract(agent)
    await judge_iteration(agent, miss_all, cid, 1)
    await canaries(agent, cid, miss_all, 3)
    capsys.readouterr()
    assert main(["--root", str(project), "calibration", cid]) == 0
    out = capsys.readouterr().out
    assert "judge evaluator (miss-all, prompt" in out and "canary recall 0% of 3" in out
    assert "FLAGGED" in out
    assert main(["--root", str(project), "calibration", cid, "--json"]) == 0
    (listed,) = json.loads(capsys.readouterr().out)["judges"]
    assert listed["canary"]["cases"] == 3
