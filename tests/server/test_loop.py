"""The whole loop over MCP: three iterations, two evaluators, real evaluations, validated
scorecards,
decisions at each step, a deduplicated brief, the best iteration at the bound, and the report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from referee.server.app import build_server
from referee.server.cli import main
from referee.tools.settings import Settings
from referee.tools.setup.demo import (
    TESTS_JUDGE,
    UX_JUDGE,
    apply,
    chromium_available,
    contract_request,
    holdout_files,
    prepare_repo,
)

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

# What the scripted judges add per iteration: judgement
# scores and issues (the same bug seen by both).
PLAN: dict[int, dict[str, Any]] = {
    1: {
        "version": "attempt",
        "scores": {TESTS_JUDGE: 1, UX_JUDGE: 1},
        "issues": {
            TESTS_JUDGE: [
                ("HIGH", "the percentage is applied twice to the cart", "shop/cart.py:9"),
                ("LOW", "name the magic 100 as PERCENT", "shop/cart.py:8"),
                # Restates the hold-out: withheld from the brief, reported as holdout_leak.
                ("HIGH", "discounted totals are truncated, not rounded", "shop/cart.py:9"),
            ],
            UX_JUDGE: [("MEDIUM", "percentage applied twice to the cart", "shop/cart.py:10")],
        },
    },
    2: {
        "version": "fix",
        "scores": {TESTS_JUDGE: 3, UX_JUDGE: 1},
        "issues": {
            UX_JUDGE: [
                ("MEDIUM", "the page gives no feedback when the cart is empty", "web/index.html:12")
            ]
        },
    },
    3: {
        "version": "fix",
        "scores": {TESTS_JUDGE: 1, UX_JUDGE: 1},
        "issues": {
            TESTS_JUDGE: [("MEDIUM", "cart.py lacks a docstring example", "shop/cart.py:1")],
            UX_JUDGE: [
                ("MEDIUM", "the page gives no feedback when the cart is empty", "web/index.html:12")
            ],
        },
    },
}


def complete(
    draft: dict[str, Any], score: int, issues: list[tuple[str, str, str]]
) -> dict[str, Any]:
    card = {k: v for k, v in draft.items() if k not in ("verdict", "weighted_score")}
    card["provider"], card["evaluator_model"] = "scripted", "judge-v1"
    for dim in card["dimensions"].values():
        if dim["score"] is None:
            dim["score"], dim["evidence"] = score, "read shop/cart.py and web/ by hand"
    card["issues"] = [
        {"severity": s, "description": d, "location": loc, "suggestion": "fix it"}
        for s, d, loc in issues
    ]
    card["guidance"] = "Address the issues listed." if score < 2 or issues else ""
    return card


async def run_iteration(client: Client, repo: Path, cid: str, number: int) -> dict[str, Any]:
    step = PLAN[number]
    apply(repo, step["version"])
    if number == 3:  # the generator's third attempt: another tree, so another iteration
        with (repo / "shop" / "cart.py").open("a", encoding="utf-8") as cart:
            cart.write("\n# Example: total(10.0, discount=15) == 8.5\n")
    for evaluator in (TESTS_JUDGE, UX_JUDGE):
        evaluated = await client.call_tool("evaluate", {"contract_id": cid, "evaluator": evaluator})
        assert evaluated.is_error is False, evaluated.content
        ev = evaluated.structured_content
        assert ev["iteration"] == number
        card = complete(
            ev["draft_scorecard"], step["scores"][evaluator], step["issues"].get(evaluator, [])
        )
        checked = await client.call_tool("validate_scorecard", {"scorecard": card})
        assert checked.structured_content["valid"] is True, checked.structured_content["errors"]
    result = await client.call_tool("aggregate", {"contract_id": cid})
    assert result.is_error is False, result.content
    return result.structured_content


async def test_three_iterations_two_evaluators_end_in_the_best_iteration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = prepare_repo(tmp_path)
    request = {**contract_request(chromium_available()), "slug": "loop"}
    async with Client(build_server(Settings.build([repo]))) as client:
        created = await client.call_tool("create_contract", request)
        assert created.is_error is False, created.content
        cid = created.structured_content["contract"]["id"]
        added = await client.call_tool(
            "add_holdout_files", {"contract_id": cid, "files": holdout_files()}
        )
        assert added.is_error is False, added.content
        assert added.structured_content["warnings"] == []
        assert not (repo / "tests" / "test_rounding.py").exists()
        first = await run_iteration(client, repo, cid, 1)
        second = await run_iteration(client, repo, cid, 2)
        third = await run_iteration(client, repo, cid, 3)

    assert first["decision"] == "REVISE"
    assert first["evaluator_verdicts"] == {TESTS_JUDGE: "REVISE", UX_JUDGE: "REVISE"}
    brief = first["revision_brief"]
    assert brief["iteration_from"] == 1 and brief["iteration_to"] == 2
    merged = [i for i in brief["issues_to_address"] if "twice" in i["description"]]
    assert len(merged) == 1 and merged[0]["severity"] == "HIGH"
    assert "truncated" not in json.dumps(brief) and "rounded" not in json.dumps(brief)
    leaks = first["holdout_leaks"]
    assert [(x["evaluator"], x["code"]) for x in leaks] == [(TESTS_JUDGE, "holdout_leak")]
    assert "restates hold-out criterion" in leaks[0]["why"]
    assert any("holdout_leak" in n for n in first["quality_notes"])
    assert merged[0]["sources"] == [TESTS_JUDGE, UX_JUDGE]
    assert [i["severity"] for i in brief["issues_deferred"]] == ["LOW"]
    order = [i["severity"] for i in brief["issues_to_address"]]
    assert order == sorted(order, key=["CRITICAL", "HIGH", "MEDIUM", "LOW"].index)
    hidden = "AC-F-003" if chromium_available() else "AC-F-002"
    assert hidden not in json.dumps(brief)

    assert second["decision"] == "REVISE" and second["revision_brief"]["iteration_to"] == 3
    assert third["decision"] == "DELIVER" and third["delivered_iteration"] == 2
    assert third["best_iteration"]["iteration"] == 2 and third["quality_notes"]
    assert any(a["kind"] == "regression" for a in third["alerts"])

    html = tmp_path / "report.html"
    assert main(["--root", str(repo), "report", cid, "--html", str(html)]) == 0
    page = html.read_text(encoding="utf-8")
    assert "regression" in page.lower() and "DELIVER" in page
    if chromium_available():
        assert "data:image/png;base64," in page
