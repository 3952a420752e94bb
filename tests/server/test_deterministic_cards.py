"""A card may agree with or lower what referee's own run decided, never raise it: through
`referee validate`, the MCP `validate_scorecard` and `aggregate` (inline cards), and aggregate's
re-verification of a card stored before the rule."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from runs import CORPUS, corpus_contract, corpus_run

from referee.server.cli import main
from referee.tools.models import Contract
from referee.tools.repo import working_tree_hash
from referee.tools.store import Store, save_scorecard
from referee.tools.validate_scorecard.card import dimension_key

pytestmark = pytest.mark.anyio

SECRET_AT = "app/login.py:3"
REGRESSION = "regression: tests/test_login.py::test_logout passed at base and fails now"
SECRET = "[hardcoded_secrets] an AWS access key pair is written into the source"


def _det(score: float, evidence: str, ids: list[str]) -> dict[str, Any]:
    return {
        "score": score,
        "source": "deterministic",
        "confidence": 0.9,
        "evidence": evidence,
        "evidence_ids": ids,
    }


_ISSUES: list[dict[str, Any]] = [
    {
        "severity": "HIGH",
        "description": REGRESSION,
        "suggestion": "restore the behaviour this test checks",
        "evidence_ids": ["E2"],
    },
    {
        "severity": "HIGH",
        "description": SECRET,
        "location": SECRET_AT,
        "suggestion": "remove the secret, rotate it, read it from the environment",
        "evidence_ids": ["E3"],
    },
]

# What referee decided: AC-F-001's check timed out, the hold-out AC-F-002 failed, a secret in the
# source (security 0); its draft scorecard lists a regression and the secret as issues.
DECIDED: dict[str, Any] = {
    "criteria": [
        {
            "id": "AC-F-001",
            "evaluator": "judge",
            "pass": False,
            "status": "unscored",
            "reason_code": "timed_out",
            "reason": "timed out after 600 s",
            "evidence_ids": ["E1"],
        },
        {
            "id": "AC-F-002",
            "evaluator": "judge",
            "pass": False,
            "status": "fail",
            "reason": "test_lockout failed",
            "evidence_ids": ["E2"],
            "holdout": True,
        },
    ],
    "dimensions": {
        "correctness": _det(1, "test checks: 0/1 checked criteria pass", ["E1", "E2"]),
        "security": _det(0, f"a hardcoded secret at {SECRET_AT}", ["E3"]),
    },
    # Beyond the draft's bound, an issue stays in the run's report and need not be kept.
    "issues": [
        *_ISSUES,
        {"severity": "LOW", "description": "TODO density", "location": "app/util.py:1"},
    ],
    "draft_scorecard": {"issues": _ISSUES},
}


def honest(store: Store, tree: str) -> dict[str, Any]:
    """A card that agrees with everything referee decided."""
    run_id, signature = corpus_run(store, tree, copy.deepcopy(DECIDED))
    doc = json.loads((CORPUS / "cases" / "referee-valid-accept.json").read_text("utf-8"))
    card: dict[str, Any] = doc["scorecard"]
    card.update(run_id=run_id, signature=signature, target={"tree": tree, "commit": None})
    card["dimensions"]["correctness"]["score"] = 1
    card["dimensions"]["security"]["score"] = 0
    card["criteria"] = [
        {"id": "AC-F-001", "pass": False, "evidence": "E1 timed out", "evidence_ids": ["E1"]},
        {"id": "AC-F-002", "pass": False, "evidence": "E2: exit code 1", "evidence_ids": ["E2"]},
    ]
    card["issues"] = [
        {"severity": "HIGH", "description": REGRESSION},
        {
            "severity": "CRITICAL",
            "description": "AWS key pair in the source",
            "location": SECRET_AT,
        },
    ]
    card["guidance"] = "Remove the key from app/login.py; make the login test finish."
    for stated in ("verdict", "weighted_score"):
        card.pop(stated, None)
    return card


def _set(*where: Any) -> Callable[[dict[str, Any], Any], None]:
    def change(card: dict[str, Any], value: Any) -> None:
        node = card
        for step in where[:-1]:
            node = node[step]
        node[where[-1]] = value

    return change


def _drop_issue(index: int) -> Callable[[dict[str, Any], Any], None]:
    return lambda card, _: card["issues"].pop(index)


# name: (change, value, code, pointer)
RAISES: dict[str, tuple[Callable[[dict[str, Any], Any], None], Any, str, str]] = {
    "security lifted from 0 to 3": (
        _set("dimensions", "security", "score"),
        3,
        "contradicts_evidence",
        "/dimensions/security/score",
    ),
    "security lifted from 0 to 1": (
        _set("dimensions", "security", "score"),
        1,
        "contradicts_evidence",
        "/dimensions/security/score",
    ),
    "correctness lifted from 1 to 2": (
        _set("dimensions", "correctness", "score"),
        2,
        "contradicts_evidence",
        "/dimensions/correctness/score",
    ),
    "a failed criterion marked passed": (
        _set("criteria", 1, "pass"),
        True,
        "contradicts_evidence",
        "/criteria/1/pass",
    ),
    "a criterion that could not run marked passed": (
        _set("criteria", 0, "pass"),
        True,
        "unverified_pass",
        "/criteria/0/pass",
    ),
    "the regression left out": (_drop_issue(0), None, "contradicts_evidence", "/issues"),
    "the secret finding left out": (_drop_issue(1), None, "contradicts_evidence", "/issues"),
    "every issue left out": (_set("issues"), [], "contradicts_evidence", "/issues"),
    "the regression kept only as a look-alike test": (
        _set("issues", 0, "description"),
        "test_logout_twice in tests/test_login.py regressed",
        "contradicts_evidence",
        "/issues",
    ),
    "the secret finding kept as LOW": (
        _set("issues", 1, "severity"),
        "LOW",
        "contradicts_evidence",
        "/issues/1/severity",
    ),
    "the regression kept as MEDIUM": (
        _set("issues", 0, "severity"),
        "MEDIUM",
        "contradicts_evidence",
        "/issues/0/severity",
    ),
}


def raised(store: Store, tree: str, name: str) -> dict[str, Any]:
    card = honest(store, tree)
    change, value, _, _ = RAISES[name]
    change(card, value)
    return card


@pytest.fixture
def contract(store: Store, repo: Path) -> Contract:
    return corpus_contract(store, repo)


@pytest.fixture
def cli_validate(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """`referee validate FILE --json` of one card: its result."""

    def validate(card: dict[str, Any]) -> dict[str, Any]:
        path = tmp_path / "card.json"
        path.write_text(json.dumps(card), encoding="utf-8")
        capsys.readouterr()
        code = main(["--root", str(repo), "validate", str(path), "--json", "--no-store"])
        result = dict(json.loads(capsys.readouterr().out)["results"][0])
        assert code == (0 if result["valid"] else 1)
        return result

    return validate


CliValidate = Callable[[dict[str, Any]], dict[str, Any]]


def test_the_honest_card_is_valid_on_every_channel(
    repo: Path, cli_validate: CliValidate, contract: Contract, store: Store
) -> None:
    result = cli_validate(honest(store, working_tree_hash(repo)))
    assert result["valid"] is True, result["errors"]
    assert result["computed"]["verdict"] == "BLOCK"


def assert_refused(name: str, problems: list[dict[str, Any]], prefix: str = "") -> None:
    _, _, code, where = RAISES[name]
    assert (code, prefix + where) in {(p["code"], p["path"]) for p in problems}, problems


@pytest.mark.parametrize("name", list(RAISES))
def test_referee_validate_refuses_a_card_that_raises_what_the_run_decided(
    name: str, repo: Path, cli_validate: CliValidate, contract: Contract, store: Store
) -> None:
    result = cli_validate(raised(store, working_tree_hash(repo), name))
    assert result["valid"] is False
    assert_refused(name, result["errors"])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(RAISES))
async def test_validate_scorecard_refuses_a_card_that_raises_what_the_run_decided(
    name: str, client: Client, repo: Path, contract: Contract, store: Store
) -> None:
    card = raised(store, working_tree_hash(repo), name)
    result = await client.call_tool("validate_scorecard", {"scorecard": card, "store": False})
    assert result.is_error is False and result.structured_content["valid"] is False
    assert_refused(name, result.structured_content["errors"])


@pytest.mark.parametrize("name", list(RAISES))
async def test_aggregate_refuses_an_inline_card_that_raises_what_the_run_decided(
    name: str, client: Client, repo: Path, contract: Contract, store: Store
) -> None:
    card = raised(store, working_tree_hash(repo), name)
    result = await client.call_tool("aggregate", {"contract_id": contract.id, "scorecards": [card]})
    assert result.is_error is True
    assert_refused(name, json.loads(result.content[0].text)["problems"], "/scorecards/0")


def test_the_messages_name_both_values_and_the_evidence(
    repo: Path, cli_validate: CliValidate, contract: Contract, store: Store
) -> None:
    tree = working_tree_hash(repo)
    errors = cli_validate(raised(store, tree, "security lifted from 0 to 3"))["errors"]
    (lifted,) = [e for e in errors if e["path"] == "/dimensions/security/score"]
    assert "security is 3" in lifted["message"] and "referee derived 0" in lifted["message"]
    assert "E3" in lifted["message"] and SECRET_AT in lifted["message"]
    dropped = cli_validate(raised(store, tree, "the regression left out"))
    (issue,) = [e for e in dropped["errors"] if e["path"] == "/issues"]
    assert "test_logout" in issue["message"] and "[HIGH]" in issue["message"]


def test_a_lowered_score_and_reworded_issues_are_valid_with_the_override_named(
    repo: Path, cli_validate: CliValidate, contract: Contract, store: Store
) -> None:
    card = honest(store, working_tree_hash(repo))
    card["dimensions"]["correctness"]["score"] = 0
    card["issues"] = [
        {"severity": "CRITICAL", "description": "test_logout regressed (tests/test_login.py)"},
        {
            "severity": "HIGH",
            "description": "credentials committed",
            "location": "./app/login.py:4",
        },
        {"severity": "LOW", "description": "the judge's own remark"},
    ]
    result = cli_validate(card)
    assert result["valid"] is True, result["errors"]
    (override,) = [w for w in result["warnings"] if w["code"] == "deterministic_override"]
    assert override["path"] == "/dimensions/correctness/score"
    assert "lowered" in override["message"] and "E1, E2" in override["message"]


def _tenpoint(store: Store, tree: str, correctness: int) -> dict[str, Any]:
    corpus_run(store, tree, copy.deepcopy(DECIDED))
    doc = json.loads((CORPUS / "cases" / "tenpoint-valid.json").read_text("utf-8"))
    card: dict[str, Any] = doc["scorecard"]
    card["domains"]["general"]["dimensions"]["correctness"]["score"] = correctness
    # security was derived 0: at most 1 of 10, and a card that leaves it out is refused too.
    card["domains"]["general"]["dimensions"]["security"] = {"score": 1, "evidence": SECRET_AT}
    card["criteria"] = [
        {"id": c, "pass": False, "evidence": "referee's check did not pass"}
        for c in ("AC-F-001", "AC-F-002")
    ]
    card["guidance"] = "Make the login test finish."
    return card


@pytest.mark.parametrize(("score", "valid"), [(4, True), (5, False), (8, False), (10, False)])
def test_a_tenpoint_dimension_answers_to_the_derived_one_on_its_own_scale(
    score: int, valid: bool, repo: Path, cli_validate: CliValidate, contract: Contract, store: Store
) -> None:
    # correctness was derived 1 of 3: at most 4 of 10.
    result = cli_validate(_tenpoint(store, working_tree_hash(repo), score))
    lifted = [e for e in result["errors"] if e["code"] == "contradicts_evidence"]
    assert result["valid"] is valid and bool(lifted) is not valid, result["errors"]
    if valid:  # security at 1 of 10 is the place of 0 on the rubric: the card blocks, as the run
        assert result["computed"]["verdict"] == "BLOCK", result["computed"]
    if lifted:
        assert lifted[0]["path"] == "/domains/general/dimensions/correctness/score"
        assert "at most 4 on the 1–10 scale" in lifted[0]["message"]


async def test_a_tenpoint_card_lifting_a_derived_dimension_is_refused_over_mcp(
    client: Client, repo: Path, contract: Contract, store: Store
) -> None:
    card = _tenpoint(store, working_tree_hash(repo), 9)
    data = (
        await client.call_tool("validate_scorecard", {"scorecard": card, "store": False})
    ).structured_content
    assert "/domains/general/dimensions/correctness/score" in {
        e["path"] for e in data["errors"] if e["code"] == "contradicts_evidence"
    }


@pytest.mark.parametrize(
    "name",
    [
        "security lifted from 0 to 3",
        "the secret finding left out",
        "a failed criterion marked passed",
    ],
)
async def test_a_stored_card_that_raises_its_run_is_left_out_when_aggregate_reverifies(
    name: str, client: Client, repo: Path, contract: Contract, store: Store
) -> None:
    card = raised(store, working_tree_hash(repo), name)
    await _left_out_when_stored(client, store, contract, card, "referee")


async def _left_out_when_stored(
    client: Client, store: Store, contract: Contract, card: dict[str, Any], fmt: str
) -> list[str]:
    """As a card stored before the rule existed (no validation, ACCEPT stored with it), aggregate
    leaves it out and says why; the quality notes."""
    save_scorecard(
        store,
        contract_id=contract.id,
        evaluator="judge",
        iteration=1,
        format=fmt,
        body=card,
        computed={"verdict": "ACCEPT", "weighted_score": 3.0, "normalized": 100.0},
        run_id=card.get("run_id"),
        stored_at="2026-03-25T12:30:00+00:00",
    )
    data = (
        await client.call_tool("aggregate", {"contract_id": contract.id, "iteration": 1})
    ).structured_content
    assert data["decision"] == "PENDING" and "judge" in data["missing_evaluators"]
    notes = list(data["quality_notes"])
    assert any("does not count" in n and "raises what its run decided" in n for n in notes), notes
    return notes


# A card's verdict answers to the run's evidence whatever the card names, in both formats.

# The run derived security 0: a tenpoint card that names it otherwise, or not at all, still
# computes a verdict above BLOCK and is refused for it.
RESPELLED = {
    "left out": None,
    "another case": "Security",
    "spaces around it": " security ",
    "a zero-width space": "secu\u200brity",
    "fullwidth letters": "ｓｅｃｕｒｉｔｙ",
    "German": "Sicherheit",
    "Japanese": "セキュリティ",
}


def _without_security(store: Store, tree: str, name: str | None) -> dict[str, Any]:
    card = _tenpoint(store, tree, 4)
    dims = card["domains"]["general"]["dimensions"]
    dims.pop("security")
    if name is not None:
        dims[name] = {"score": 10, "evidence": "no secret in the source"}
    return card


@pytest.mark.parametrize("spelling", list(RESPELLED))
def test_a_tenpoint_card_that_names_a_blocking_dimension_otherwise_is_refused(
    spelling: str, repo: Path, cli_validate: CliValidate, contract: Contract, store: Store
) -> None:
    result = cli_validate(_without_security(store, working_tree_hash(repo), RESPELLED[spelling]))
    assert result["valid"] is False, (spelling, result["computed"])
    # The respelled name answers to `security` (at most 1); another language's name, or none,
    # leaves the card's verdict (REVISE) above the run's (BLOCK).
    assert "contradicts_evidence" in {e["code"] for e in result["errors"]}, result["errors"]


def test_the_verdict_refusal_names_the_ceiling_and_what_holds_it(
    repo: Path, cli_validate: CliValidate, contract: Contract, store: Store
) -> None:
    result = cli_validate(_without_security(store, working_tree_hash(repo), "Sicherheit"))
    (refused,) = [e for e in result["errors"] if e["path"] == ""]
    message = refused["message"]
    assert "allows at most BLOCK" in message and "security derived 0 (E3)" in message, message
    assert "`security`" in message


def test_dimension_names_are_compared_folded() -> None:
    folded = {"Security", " security ", "secu\u200brity", "ｓｅｃｕｒｉｔｙ", "SECURITY\u2060"}
    assert {dimension_key(n) for n in folded} == {"security"}
    assert dimension_key("Code-Quality") == dimension_key("code quality") == "code_quality"
    assert dimension_key("Sicherheit") != "security"


def test_a_canonical_card_cannot_accept_over_a_critical_issue_it_keeps(
    repo: Path, cli_validate: CliValidate, contract: Contract, store: Store
) -> None:
    # Every derived dimension at 3 and every check passed, but a CRITICAL issue in the run.
    tree = working_tree_hash(repo)
    decided = copy.deepcopy(DECIDED)
    decided["criteria"] = [
        {**c, "pass": True, "status": "pass", "reason_code": None} for c in decided["criteria"]
    ]
    for dim in decided["dimensions"].values():
        dim["score"] = 3
    critical = {**_ISSUES[1], "severity": "CRITICAL"}
    decided["issues"] = [critical]
    decided["draft_scorecard"] = {"issues": [critical]}
    run_id, signature = corpus_run(store, tree, decided)
    doc = json.loads((CORPUS / "cases" / "referee-valid-accept.json").read_text("utf-8"))
    card: dict[str, Any] = doc["scorecard"]
    card.update(run_id=run_id, signature=signature, target={"tree": tree, "commit": None})
    card["issues"] = [{"severity": "CRITICAL", "description": "AWS key", "location": SECRET_AT}]
    for stated in ("verdict", "weighted_score"):
        card.pop(stated, None)
    refused = cli_validate(card)
    assert refused["valid"] is False and refused["computed"]["verdict"] == "ACCEPT"
    assert "a CRITICAL issue at app/login.py:3" in refused["errors"][0]["message"]
    card["dimensions"]["security"]["score"] = 1  # the judge lowers it: REVISE, with the override
    card["guidance"] = "Remove the key from app/login.py."
    lowered = cli_validate(card)
    assert lowered["valid"] is True, lowered["errors"]
    assert lowered["computed"]["verdict"] == "REVISE"
    assert "deterministic_override" in {w["code"] for w in lowered["warnings"]}


async def test_a_stored_tenpoint_card_above_its_run_is_left_out_when_aggregate_reverifies(
    client: Client, repo: Path, contract: Contract, store: Store
) -> None:
    card = _without_security(store, working_tree_hash(repo), None)  # security left out
    notes = await _left_out_when_stored(client, store, contract, card, "tenpoint")
    assert any("contradicts_evidence" in n for n in notes), notes
