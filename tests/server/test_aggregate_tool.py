"""aggregate, record_human_verdict and calibration_report over MCP, in-process, in both protocol
eras."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aggregate_cards import card, issue, store_card, two_evaluator_contract
from mcp import Client
from runs import bound

from referee.tools.models import Contract
from referee.tools.repo import working_tree_hash
from referee.tools.store import Store, scorecards_for

pytestmark = pytest.mark.anyio

TOOLS = {"aggregate", "record_human_verdict", "calibration_report"}


@pytest.fixture
def contract(store: Store, repo: Path) -> Contract:
    return two_evaluator_contract(store, repo)


def problems(result: Any) -> dict[str, str]:
    payload = json.loads(result.content[0].text)
    return {p["path"]: p["code"] for p in payload["problems"]}


async def test_the_tools_are_listed_with_schemas_and_annotations(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) >= TOOLS
    for name in TOOLS:
        assert tools[name].output_schema and tools[name].description
    assert tools["aggregate"].annotations.read_only_hint is False
    assert tools["aggregate"].annotations.destructive_hint is False
    assert tools["calibration_report"].annotations.read_only_hint is True
    assert "decision" in tools["aggregate"].output_schema["properties"]


async def test_aggregate_returns_a_revision_brief_without_holdouts(
    client: Client, store: Store, contract: Contract
) -> None:
    hidden = next(c for c in contract.all_criteria() if c.holdout)
    store_card(
        store,
        contract,
        card(
            contract,
            "judge",
            1,
            {"correctness": 1},
            failed=(hidden.id,),
            issues=[
                issue("HIGH", "Missing input validation on the email field", "app/login.py:42"),
                issue("HIGH", f"{hidden.id} is not met", "app/login.py:80"),
            ],
        ),
    )
    store_card(
        store,
        contract,
        card(
            contract,
            "radar",
            1,
            {"craft": 1},
            issues=[
                issue("MEDIUM", "No validation of the email input", "app/login.py:43"),
                issue("LOW", "Rename the helper", "app/util.py:3"),
            ],
        ),
    )
    result = await client.call_tool("aggregate", {"contract_id": contract.id})
    assert result.is_error is False, result.content
    data = result.structured_content
    assert data["decision"] == "REVISE" and data["evaluator_verdicts"] == {
        "judge": "REVISE",
        "radar": "REVISE",
    }
    brief = data["revision_brief"]
    assert [i["text"] for i in brief["issues_to_address"]] == [
        "[HIGH] Missing input validation on the email field (from judge, radar)"
    ]
    assert [i["severity"] for i in brief["issues_deferred"]] == ["LOW"]
    assert hidden.id not in json.dumps(brief)


async def test_generator_brief_prompt_serves_the_latest_brief(
    client: Client, store: Store, contract: Contract
) -> None:
    store_card(
        store,
        contract,
        card(
            contract,
            "judge",
            1,
            {"craft": 1},
            issues=[issue("HIGH", "login() is 80 lines long", "app/login.py:10")],
        ),
    )
    store_card(store, contract, card(contract, "radar", 1, 3))
    await client.call_tool("aggregate", {"contract_id": contract.id})
    prompt = await client.get_prompt("generator_brief", {"contract_id": contract.id})
    text = prompt.messages[0].content.text
    assert "Revision brief" in text and "[HIGH] login() is 80 lines long (from judge)" in text


async def test_pending_names_the_missing_evaluator(
    client: Client, store: Store, contract: Contract
) -> None:
    store_card(store, contract, card(contract, "judge", 1, 3))
    data = (await client.call_tool("aggregate", {"contract_id": contract.id})).structured_content
    assert data["decision"] == "PENDING" and data["missing_evaluators"] == ["radar"]


async def test_inline_scorecards_decide_without_being_stored(
    client: Client, store: Store, contract: Contract, repo: Path
) -> None:
    now = {"target": {"tree": working_tree_hash(repo)}}  # the tree the cards judge is current
    inline = [bound(store, contract, card(contract, e, 1, 3, **now)) for e in ("judge", "radar")]
    result = await client.call_tool("aggregate", {"contract_id": contract.id, "scorecards": inline})
    assert result.structured_content["decision"] == "DELIVER"
    assert scorecards_for(store, contract.id) == []


async def test_invalid_inline_scorecards_are_a_tool_error_listing_every_problem(
    client: Client, contract: Contract
) -> None:
    bad = card(contract, "radar", 1, 3)
    bad["evaluator"] = "nobody"
    del bad["dispatch_count"]
    result = await client.call_tool("aggregate", {"contract_id": contract.id, "scorecards": [bad]})
    assert result.is_error is True
    found = problems(result)
    assert (
        found["/scorecards/0/evaluator"] == "evaluator_unknown"
        and "/scorecards/0/dispatch_count" in found
    )


async def test_an_unknown_contract_is_a_tool_error(client: Client) -> None:
    result = await client.call_tool("aggregate", {"contract_id": "SC-nothing-20260101"})
    assert result.is_error is True and problems(result) == {"/contract_id": "unknown_contract"}


async def test_an_iteration_below_one_is_refused(client: Client, contract: Contract) -> None:
    result = await client.call_tool("aggregate", {"contract_id": contract.id, "iteration": 0})
    assert result.is_error is True


async def test_human_verdicts_are_logged_and_reported(
    client: Client, store: Store, contract: Contract
) -> None:
    ident = store_card(store, contract, card(contract, "judge", 1, {"craft": 1}))
    logged = await client.call_tool(
        "record_human_verdict",
        {"scorecard_id": ident, "verdict": "ACCEPT", "note": "generated code"},
    )
    assert logged.is_error is False, logged.content
    assert (
        logged.structured_content["agrees"] is False
        and logged.structured_content["evaluator_verdict"] == "REVISE"
    )
    report = (
        await client.call_tool("calibration_report", {"contract_id": contract.id})
    ).structured_content
    assert report["overall"]["count"] == 1 and report["overall"]["kappa"] == 0.0
    missing = await client.call_tool(
        "record_human_verdict", {"scorecard_id": 4242, "verdict": "ACCEPT"}
    )
    assert missing.is_error is True and problems(missing) == {"/scorecard_id": "unknown_scorecard"}
    wrong = await client.call_tool(
        "record_human_verdict", {"scorecard_id": ident, "verdict": "MAYBE"}
    )
    assert wrong.is_error is True
