"""validate_scorecard over MCP, in-process, in both protocol eras, against a real store and real
runs."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from runs import corpus_accepted, corpus_contract

from referee.tools.create_contract.files import load_contract_file
from referee.tools.evidence.signing import sign
from referee.tools.models import Contract, Evaluation, EvidenceItem
from referee.tools.repo import working_tree_hash
from referee.tools.settings import Settings
from referee.tools.store import Store, save_run, scorecards_for

pytestmark = pytest.mark.anyio

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "scorecards"
CID = "SC-login-form-20260325"


def case(name: str) -> dict[str, Any]:
    card = json.loads((CORPUS / "cases" / f"{name}.json").read_text(encoding="utf-8"))["scorecard"]
    card.pop(
        "target", None
    )  # the corpus tree is not the test repository's: staleness has tests of its own
    return copy.deepcopy(card)


@pytest.fixture
def contract(store: Store, repo: Path) -> Contract:
    return corpus_contract(store, repo)


def record_run(store: Store, settings: Settings, tree: str) -> tuple[str, str]:
    """Store the corpus run as a real signed evaluation of `tree`; return (run_id, signature)."""
    doc = json.loads((CORPUS / "run.json").read_text(encoding="utf-8"))
    doc["evaluation"]["target"]["tree"] = tree
    evaluation = Evaluation.model_validate(doc["evaluation"])
    evidence = [EvidenceItem.model_validate(e) for e in doc["evidence"]]
    signature = sign(Store(settings.home).key, evaluation, evidence)
    save_run(
        store,
        evaluation.model_copy(update={"signature": signature}),
        evidence,
        signature,
        "2026-03-25T12:05:00+00:00",
    )
    return evaluation.run_id, signature


def grounded(run_id: str, signature: str, tree: str) -> dict[str, Any]:
    card = case("referee-valid-grounded-in-a-signed-run")
    card.update(run_id=run_id, signature=signature, target={"tree": tree, "commit": None})
    return card


async def test_validate_scorecard_is_listed_with_an_output_schema_and_records_annotations(
    client: Client,
) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    tool = tools["validate_scorecard"]
    assert tool.output_schema and {"valid", "errors", "warnings", "computed"} <= set(
        tool.output_schema["properties"]
    )
    assert tool.input_schema["required"] == ["scorecard"]
    assert tool.annotations.read_only_hint is False and tool.annotations.destructive_hint is False


@pytest.fixture
def accepted(store: Store, repo: Path, contract: Contract) -> dict[str, Any]:
    """The corpus's scorecard, resting on a signed run of the current tree."""
    return corpus_accepted(store, working_tree_hash(repo))


async def test_a_valid_scorecard_is_stored_and_a_resubmission_replaces_it(
    client: Client, contract: Contract, store: Store, accepted: dict[str, Any]
) -> None:
    first = await client.call_tool("validate_scorecard", {"scorecard": accepted})
    assert first.is_error is False, first.content
    data = first.structured_content
    assert data["valid"] is True and data["stored"] is True and data["replaced"] is False
    assert data["computed"] == {"weighted_score": 2.55, "normalized": 85.0, "verdict": "REVISE"}
    again = (
        await client.call_tool("validate_scorecard", {"scorecard": accepted, "contract_id": CID})
    ).structured_content
    assert again["replaced"] is True and "replaced_scorecard" in {
        w["code"] for w in again["warnings"]
    }
    (active,) = scorecards_for(store, CID)
    assert str(active.id) == again["scorecard_id"] and active.evaluator == "judge"


async def test_an_invalid_scorecard_is_a_successful_call_listing_every_problem(
    client: Client, contract: Contract
) -> None:
    result = await client.call_tool(
        "validate_scorecard", {"scorecard": case("referee-many-problems-at-once")}
    )
    assert result.is_error is False
    data = result.structured_content
    assert data["valid"] is False and data["stored"] is False
    codes = {e["code"] for e in data["errors"]}
    assert {
        "required",
        "type",
        "dimension_unknown",
        "dispatch_count",
        "weighted_score_mismatch",
    } <= codes
    assert all(e["path"].startswith("/") and e["message"] for e in data["errors"])


async def test_a_verdict_that_contradicts_a_recorded_run_names_the_evidence(
    client: Client, contract: Contract, store: Store, settings: Settings, repo: Path
) -> None:
    tree = working_tree_hash(repo)
    run_id, signature = record_run(store, settings, tree)
    card = grounded(run_id, signature, tree)
    ok = (await client.call_tool("validate_scorecard", {"scorecard": card})).structured_content
    assert ok["valid"] is True, ok["errors"]
    card["criteria"][1].update({"pass": True, "evidence": "looks right"})
    card["verdict"] = "ACCEPT"
    data = (await client.call_tool("validate_scorecard", {"scorecard": card})).structured_content
    (problem,) = data["errors"]
    assert problem["code"] == "contradicts_evidence" and problem["path"] == "/criteria/1/pass"
    assert "contradicts E2: exit code 1" in problem["message"]


async def test_a_scorecard_of_an_older_tree_is_stale(
    client: Client, contract: Contract, store: Store, settings: Settings, repo: Path
) -> None:
    tree = working_tree_hash(repo)
    run_id, signature = record_run(store, settings, tree)
    (repo / "app.py").write_text("print('changed after the evaluation')\n", encoding="utf-8")
    data = (
        await client.call_tool(
            "validate_scorecard", {"scorecard": grounded(run_id, signature, tree)}
        )
    ).structured_content
    assert data["valid"] is False and data["stale"] is True
    assert [e["code"] for e in data["errors"]] == ["stale"]


async def test_a_forged_signature_is_rejected(
    client: Client, contract: Contract, store: Store, settings: Settings, repo: Path
) -> None:
    tree = working_tree_hash(repo)
    run_id, _ = record_run(store, settings, tree)
    card = grounded(run_id, "hmac-sha256:" + "0" * 64, tree)
    data = (await client.call_tool("validate_scorecard", {"scorecard": card})).structured_content
    assert [e["code"] for e in data["errors"]] == ["signature_invalid"]


async def test_a_tenpoint_scorecard_is_recognised_and_stored(
    client: Client, contract: Contract, store: Store, settings: Settings, repo: Path
) -> None:
    record_run(store, settings, working_tree_hash(repo))  # tenpoint: bound to its evaluator's run
    card = case("tenpoint-valid")
    for item in card["criteria"]:
        item["pass"] = item["id"] == "AC-F-001"
    data = (await client.call_tool("validate_scorecard", {"scorecard": card})).structured_content
    assert data["format"] == "tenpoint" and data["valid"] and data["stored"]
    assert scorecards_for(store, CID)[0].computed["dimensions"]["general.correctness"] == 8


async def test_an_inline_contract_that_is_not_stored_validates_without_storing(
    client: Client, store: Store, accepted: dict[str, Any]
) -> None:
    inline = json.loads(
        json.dumps(
            load_contract_file(CORPUS / "contract.yaml").model_dump(mode="json", by_alias=True)
        )
    )
    data = (
        await client.call_tool("validate_scorecard", {"scorecard": accepted, "contract": inline})
    ).structured_content
    assert data["valid"] is True and data["stored"] is False
    assert "not_stored" in {w["code"] for w in data["warnings"]}
    assert scorecards_for(store, CID) == []


async def test_an_unknown_contract_is_a_tool_error_naming_it(client: Client) -> None:
    result = await client.call_tool(
        "validate_scorecard",
        {"scorecard": case("referee-valid-accept"), "contract_id": "SC-nope-20260101"},
    )
    assert result.is_error is True and "SC-nope-20260101" in result.content[0].text


async def test_a_scorecard_naming_an_unstored_contract_is_a_tool_error_at_its_field(
    client: Client,
) -> None:
    result = await client.call_tool("validate_scorecard", {"scorecard": case("tenpoint-valid")})
    assert result.is_error is True
    assert result.structured_content["problems"][0]["path"] == "/scorecard/task_id"


async def test_contract_id_and_an_inline_contract_together_are_refused(
    client: Client, contract: Contract
) -> None:
    result = await client.call_tool(
        "validate_scorecard",
        {"scorecard": case("referee-valid-accept"), "contract_id": CID, "contract": {"id": CID}},
    )
    assert (
        result.is_error is True
        and result.structured_content["problems"][0]["code"] == "contract_ambiguous"
    )


async def test_a_broken_inline_contract_lists_its_problems_under_contract(client: Client) -> None:
    result = await client.call_tool(
        "validate_scorecard",
        {"scorecard": case("referee-valid-accept"), "contract": {"id": "nope"}},
    )
    assert result.is_error is True
    assert all(p["path"].startswith("/contract") for p in result.structured_content["problems"])


async def test_no_contract_anywhere_is_a_tool_error(client: Client) -> None:
    result = await client.call_tool("validate_scorecard", {"scorecard": {"dimensions": {}}})
    assert (
        result.is_error is True
        and result.structured_content["problems"][0]["code"] == "contract_required"
    )


async def test_store_false_validates_without_recording(
    client: Client, contract: Contract, store: Store, accepted: dict[str, Any]
) -> None:
    data = (
        await client.call_tool("validate_scorecard", {"scorecard": accepted, "store": False})
    ).structured_content
    assert data["valid"] and not data["stored"] and scorecards_for(store, CID) == []
