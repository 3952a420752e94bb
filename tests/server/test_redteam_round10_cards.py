"""Red team, round 10: lenient evaluator cards, hold-out leaks through a judge's issues, and
secrets in forms not tried before.

Three classes of the issue, attacked through the MCP server (and `referee validate` where a card's
text is read strictly):

- class 4, cards may only agree with or lower referee's evidence: scores in odd types and
  spellings, criterion ids in look-alike forms, duplicated or omitted criteria, a stated verdict,
  forged evidence references, another run's signature, a tenpoint card that keeps none of the
  issues referee found, card JSON text that is not strict;
- class 5, nothing of a hold-out reaches the generator: a judge who read the hidden test puts what
  it checks into an issue in a form the hold-out guard (tools/aggregate/holdouts.py) may not know;
- class 6, secrets in every cheap form: a check prints the server's token in new encodings.

A variant referee holds is a plain test; one that gets through is a strict expected failure whose
reason names the code that lets it. Honest cases beside them must stay valid.
"""

from __future__ import annotations

import copy
import json
import textwrap
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from holdout_attacks import completed, generator_side, leaky_calc, with_holdout
from mcp import Client
from mcp_calls import call
from projects import calc_repo, command_check, pytest_check, server_env, stored_text
from runs import CORPUS, corpus_contract, corpus_run
from test_deterministic_cards import _ISSUES, REGRESSION, SECRET_AT, _det

from referee.server.app import build_server
from referee.server.cli import main
from referee.tools.models import Contract
from referee.tools.repo import working_tree_hash
from referee.tools.settings import Settings
from referee.tools.store import Store

pytestmark = pytest.mark.anyio

# referee's run: AC-F-001 timed out, the hold-out AC-F-002 failed, security derived 0,
# correctness 1; the draft lists a regression and the secret.
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
    "issues": list(_ISSUES),
    "draft_scorecard": {"issues": _ISSUES},
}


def _corpus_card() -> dict[str, Any]:
    doc = json.loads((CORPUS / "cases" / "referee-valid-accept.json").read_text("utf-8"))
    card: dict[str, Any] = doc["scorecard"]
    for stated in ("verdict", "weighted_score"):
        card.pop(stated, None)
    return card


def honest(store: Store, tree: str, decided: dict[str, Any] | None = None) -> dict[str, Any]:
    """A canonical card that agrees with everything referee decided in DECIDED."""
    run_id, signature = corpus_run(store, tree, copy.deepcopy(decided or DECIDED))
    card = _corpus_card()
    card.update(run_id=run_id, signature=signature, target={"tree": tree, "commit": None})
    card["dimensions"]["correctness"]["score"] = 1
    card["dimensions"]["security"]["score"] = 0
    card["criteria"] = [
        {"id": "AC-F-001", "pass": False, "evidence": "E1 timed out", "evidence_ids": ["E1"]},
        {"id": "AC-F-002", "pass": False, "evidence": "E2: exit code 1", "evidence_ids": ["E2"]},
    ]
    card["issues"] = [
        {"severity": "HIGH", "description": REGRESSION},
        {"severity": "CRITICAL", "description": "AWS key pair", "location": SECRET_AT},
    ]
    card["guidance"] = "Remove the key from app/login.py; make the login test finish."
    return card


def _security(value: Any) -> Callable[[dict[str, Any]], None]:
    def change(card: dict[str, Any]) -> None:
        card["dimensions"]["security"]["score"] = value

    return change


def _criterion_id(index: int, ident: str, passed: bool = True) -> Callable[[dict[str, Any]], None]:
    def change(card: dict[str, Any]) -> None:
        card["criteria"][index].update(id=ident, **{"pass": passed})

    return change


def _also(entry: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    return lambda card: card["criteria"].append(entry)


def _field(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(card: dict[str, Any]) -> None:
        card[key] = value

    return change


def _criterion(index: int, **fields: Any) -> Callable[[dict[str, Any]], None]:
    return lambda card: card["criteria"][index].update(fields)


def _drop_criterion(index: int) -> Callable[[dict[str, Any]], None]:
    return lambda card: card["criteria"].pop(index)


# name: (change to the honest card, a code the refusal must carry)
LENIENT: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "security as the string '3'": (_security("3"), "type"),
    "security as 2.9999": (_security(2.9999), "score_not_integer"),
    "security as true": (_security(True), "type"),
    "security as 1e0 (a float one)": (_security(1.0), "contradicts_evidence"),
    "security as 3.0": (_security(3.0), "contradicts_evidence"),
    "security as 1e-12 above its derived 0": (_security(1e-12), "score_not_integer"),
    "security as 10**30": (_security(10**30), "out_of_range"),
    "security as a list [3]": (_security([3]), "type"),
    "security as an object {'value': 3}": (_security({"value": 3}), "type"),
    "security as null": (_security(None), "type"),
    "the failed criterion's id lower-cased, marked passed": (
        _criterion_id(1, "ac-f-002"),
        "criterion_missing",
    ),
    "the failed criterion's id with a trailing space, marked passed": (
        _criterion_id(1, "AC-F-002 "),
        "criterion_missing",
    ),
    "the failed criterion's id with non-breaking hyphens, marked passed": (
        _criterion_id(1, "AC\u2011F\u2011002"),
        "criterion_missing",
    ),
    "the failed criterion's id in fullwidth letters, marked passed": (
        _criterion_id(1, "ＡＣ-Ｆ-002"),
        "criterion_missing",
    ),
    "the failed criterion's id with a zero-width space, marked passed": (
        _criterion_id(1, "AC-F\u200b-002"),
        "criterion_missing",
    ),
    "the failed criterion listed twice, once passed": (
        _also({"id": "AC-F-002", "pass": True, "evidence": "E2 looked fine", "evidence_ids": []}),
        "contradicts_evidence",
    ),
    "the failed criterion listed twice, passed first": (
        lambda card: card["criteria"].insert(
            1, {"id": "AC-F-002", "pass": True, "evidence": "fine", "evidence_ids": []}
        ),
        "criterion_duplicate",
    ),
    "the failed criterion left out": (_drop_criterion(1), "criterion_missing"),
    "the failed criterion's pass as the string 'true'": (_criterion(1, **{"pass": "true"}), "type"),
    "the failed criterion's pass as 1": (_criterion(1, **{"pass": 1}), "type"),
    "a stated verdict of ACCEPT": (_field("verdict", "ACCEPT"), "verdict_mismatch"),
    "a stated weighted score of 3": (_field("weighted_score", 3.0), "weighted_score_mismatch"),
    "an unknown field saying the judge overrides referee": (
        _field("override_referee", True),
        "unknown_field",
    ),
    "a forged evidence id on the failed criterion": (
        _criterion(1, evidence_ids=["E99"]),
        "evidence_unknown",
    ),
    "an evidence URI naming a run that does not exist": (
        _criterion(1, evidence_ids=["evidence://R-forged-run/E2"]),
        "evidence_unknown",
    ),
    "a generator session cited as the only evidence of a pass": (
        _criterion(1, **{"pass": True, "evidence_ids": ["G-session/E1"]}),
        "contradicts_evidence",
    ),
    "another contract's id": (
        _field("contract_ref", "SC-login-form-20260101"),
        "contract_mismatch",
    ),
    "a run id that names no run": (_field("run_id", "R-made-up"), "run_unknown"),
    "the signature of another run": (
        _field("signature", "0" * 64),
        "signature_invalid",
    ),
    "iteration 2 for a run of iteration 1": (_field("iteration", 2), "run_mismatch"),
    "no run id at all": (lambda card: card.pop("run_id"), "run_required"),
    "another tree than the run's": (
        _field("target", {"tree": "f" * 40, "commit": None}),
        "run_mismatch",
    ),
    "the evaluator of the other judge (ux)": (_field("evaluator", "ux"), "run_mismatch"),
}


@pytest.fixture
def contract(store: Store, repo: Path) -> Contract:
    return corpus_contract(store, repo)


def _codes(problems: list[dict[str, Any]]) -> set[str]:
    return {p["code"] for p in problems}


@pytest.mark.parametrize("name", list(LENIENT))
async def test_a_lenient_card_is_refused_by_validate_scorecard(
    name: str, client: Client, repo: Path, contract: Contract, store: Store
) -> None:
    change, code = LENIENT[name]
    card = honest(store, working_tree_hash(repo))
    change(card)
    result = await client.call_tool("validate_scorecard", {"scorecard": card, "store": False})
    if result.is_error:  # another contract that is not stored: nothing to validate against
        assert code == "contract_mismatch" and "unknown_contract" in result.content[0].text
        return
    data = result.structured_content
    assert data["valid"] is False, (name, data["computed"], data["warnings"])
    assert code in _codes(data["errors"]), data["errors"]


@pytest.mark.parametrize(
    "name",
    [
        "security as 3.0",
        "the failed criterion listed twice, once passed",
        "the failed criterion's id lower-cased, marked passed",
        "an evidence URI naming a run that does not exist",
    ],
)
async def test_a_lenient_inline_card_makes_aggregate_a_tool_error(
    name: str, client: Client, repo: Path, contract: Contract, store: Store
) -> None:
    change, code = LENIENT[name]
    card = honest(store, working_tree_hash(repo))
    change(card)
    result = await client.call_tool("aggregate", {"contract_id": contract.id, "scorecards": [card]})
    assert result.is_error is True
    problems = json.loads(result.content[0].text)["problems"]
    assert code in _codes(problems), problems


async def test_the_honest_card_and_a_stricter_one_are_valid(
    client: Client, repo: Path, contract: Contract, store: Store
) -> None:
    card = honest(store, working_tree_hash(repo))
    data = (
        await client.call_tool("validate_scorecard", {"scorecard": card, "store": False})
    ).structured_content
    assert data["valid"] is True, data["errors"]
    assert data["computed"]["verdict"] == "BLOCK"
    # -0 and 0.0 are the derived 0; correctness lowered from 1 to 0 is an override, named.
    card["dimensions"]["security"]["score"] = -0.0
    card["dimensions"]["correctness"]["score"] = 0
    data = (
        await client.call_tool("validate_scorecard", {"scorecard": card, "store": False})
    ).structured_content
    assert data["valid"] is True, data["errors"]
    overrides = [w for w in data["warnings"] if w["code"] == "deterministic_override"]
    assert [w["path"] for w in overrides] == ["/dimensions/correctness/score"]


async def test_a_lenient_card_sent_as_a_json_string_is_refused(
    client: Client, repo: Path, contract: Contract, store: Store
) -> None:
    # The SDK parses a string argument as JSON (mcp's func_metadata pre_parse_json): the rules
    # still apply to what it parsed.
    card = honest(store, working_tree_hash(repo))
    card["dimensions"]["security"]["score"] = 3
    result = await client.call_tool("validate_scorecard", {"scorecard": json.dumps(card)})
    assert result.is_error is False, result.content
    data = result.structured_content
    assert data["valid"] is False and "contradicts_evidence" in _codes(data["errors"])
    nan = json.dumps(card).replace('"score": 3', '"score": NaN', 1)
    result = await client.call_tool("validate_scorecard", {"scorecard": nan, "store": False})
    refused = result.is_error or result.structured_content["valid"] is False
    assert refused, result.structured_content


async def test_a_card_sent_as_a_json_string_with_a_duplicate_key_is_refused(
    client: Client, repo: Path, contract: Contract, store: Store
) -> None:
    card = honest(store, working_tree_hash(repo))
    text = json.dumps(card).replace(
        '"security": {', '"security": {"score": 3, "evidence": "clean"}, "security": {', 1
    )
    assert text.count('"security": {') == 2
    result = await client.call_tool("validate_scorecard", {"scorecard": text, "store": False})
    refused = result.is_error or result.structured_content["valid"] is False
    assert refused, result.structured_content


async def test_two_inline_cards_of_one_evaluator_cannot_let_the_lenient_one_outvote(
    client: Client, repo: Path, contract: Contract, store: Store
) -> None:
    tree = working_tree_hash(repo)
    strict, lenient = honest(store, tree), honest(store, tree)
    lenient["dimensions"]["security"]["score"] = 3
    lenient["criteria"][1]["pass"] = True
    for cards in ([strict, lenient], [lenient, strict]):
        result = await client.call_tool(
            "aggregate", {"contract_id": contract.id, "scorecards": cards}
        )
        assert result.is_error is True
        codes = _codes(json.loads(result.content[0].text)["problems"])
        assert "contradicts_evidence" in codes, codes
    # Two valid cards of one evaluator: refused too, so no order decides which counts.
    result = await client.call_tool(
        "aggregate", {"contract_id": contract.id, "scorecards": [strict, copy.deepcopy(strict)]}
    )
    assert result.is_error is True
    assert "duplicate_evaluator" in _codes(json.loads(result.content[0].text)["problems"])


# A tenpoint card: every dimension derived 3, every check passed, no antipattern; referee's draft
# lists one HIGH issue (changed lines no test reaches). A canonical card that leaves it out is
# refused; a tenpoint card has nowhere to keep it.
UNCOVERED = {
    "severity": "HIGH",
    "description": "uncovered: 12 changed lines of app/login.py run in no test",
    "location": "app/login.py:40",
    "suggestion": "test the lockout branch",
    "evidence_ids": ["E1"],
}


def _clean_run_with_a_high_issue() -> dict[str, Any]:
    decided = copy.deepcopy(DECIDED)
    decided["criteria"] = [
        {**c, "pass": True, "status": "pass", "reason_code": None} for c in decided["criteria"]
    ]
    for dim in decided["dimensions"].values():
        dim["score"] = 3
    decided["issues"] = [UNCOVERED]
    decided["draft_scorecard"] = {"issues": [UNCOVERED]}
    return decided


def _tenpoint_accepting(store: Store, tree: str) -> dict[str, Any]:
    corpus_run(store, tree, _clean_run_with_a_high_issue())
    doc = json.loads((CORPUS / "cases" / "tenpoint-valid.json").read_text("utf-8"))
    card: dict[str, Any] = doc["scorecard"]
    for dim in card["domains"]["general"]["dimensions"].values():
        dim["score"] = 10
    card["domains"]["general"]["dimensions"]["security"] = {"score": 10, "evidence": "clean"}
    card["criteria"] = [
        {"id": c, "pass": True, "evidence": "referee's check passed"}
        for c in ("AC-F-001", "AC-F-002")
    ]
    card.pop("verdict", None)
    return card


async def test_a_canonical_card_that_drops_the_high_issue_is_refused(
    client: Client, repo: Path, contract: Contract, store: Store
) -> None:
    tree = working_tree_hash(repo)
    card = honest(store, tree, _clean_run_with_a_high_issue())
    for dim in card["dimensions"].values():
        dim["score"] = 3
    card["criteria"] = [
        {"id": c, "pass": True, "evidence": "passed", "evidence_ids": []}
        for c in ("AC-F-001", "AC-F-002")
    ]
    card["issues"] = []
    data = (
        await client.call_tool("validate_scorecard", {"scorecard": card, "store": False})
    ).structured_content
    assert data["valid"] is False
    assert ("contradicts_evidence", "/issues") in {(e["code"], e["path"]) for e in data["errors"]}


@pytest.mark.xfail(
    strict=True,
    reason=(
        "tools/validate_scorecard/deterministic.py issue_problems returns [] for any card whose"
        " format is not 'referee' (a tenpoint card has no issues of its own), and"
        " ceiling.py ceiling lowers the verdict only for a CRITICAL issue: a tenpoint card drops"
        " referee's HIGH issue and ACCEPTs, valid"
    ),
)
async def test_a_tenpoint_card_that_keeps_none_of_referees_issues_is_refused(
    client: Client, repo: Path, contract: Contract, store: Store
) -> None:
    card = _tenpoint_accepting(store, working_tree_hash(repo))
    data = (
        await client.call_tool("validate_scorecard", {"scorecard": card, "store": False})
    ).structured_content
    assert data["valid"] is False, (data["computed"], data["errors"])


# Tenpoint dimensions that hide the derived security 0 behind their names: the verdict ceiling
# holds each (ceiling.py), whatever dimension_problems matched.
TENPOINT_NAMES: dict[str, Callable[[dict[str, Any]], None]] = {
    "security in two domains, 1 and 10": lambda dims: dims.update(
        {"security": {"score": 1, "evidence": "x"}}
    ),
    "security with a trailing dot": lambda dims: dims.update(
        {"security.": {"score": 10, "evidence": "x"}}
    ),
    "security behind a dotted prefix": lambda dims: dims.update(
        {"x.security": {"score": 10, "evidence": "x"}}
    ),
    "security with a soft hyphen": lambda dims: dims.update(
        {"secu\u00adrity": {"score": 10, "evidence": "x"}}
    ),
    "security in Cyrillic look-alikes": lambda dims: dims.update(
        {"ѕесurіty": {"score": 10, "evidence": "x"}}
    ),
}


@pytest.mark.parametrize("name", list(TENPOINT_NAMES))
async def test_a_tenpoint_card_that_renames_security_is_refused(
    name: str, client: Client, repo: Path, contract: Contract, store: Store
) -> None:
    corpus_run(store, working_tree_hash(repo), copy.deepcopy(DECIDED))
    doc = json.loads((CORPUS / "cases" / "tenpoint-valid.json").read_text("utf-8"))
    card: dict[str, Any] = doc["scorecard"]
    general = card["domains"]["general"]["dimensions"]
    general["correctness"]["score"] = 4
    general.pop("security", None)
    if name == "security in two domains, 1 and 10":
        card["domains"]["other"] = {"dimensions": {"security": {"score": 10, "evidence": "x"}}}
    TENPOINT_NAMES[name](general)
    card["criteria"] = [
        {"id": c, "pass": False, "evidence": "not passed"} for c in ("AC-F-001", "AC-F-002")
    ]
    card["guidance"] = "Make the login test finish."
    card.pop("verdict", None)
    data = (
        await client.call_tool("validate_scorecard", {"scorecard": card, "store": False})
    ).structured_content
    assert data["valid"] is False, (name, data["computed"], data["warnings"])
    assert "contradicts_evidence" in _codes(data["errors"]), data["errors"]


# Card text read strictly by `referee validate` (the gate and --scorecards read the same way).
SCORE = '"__SCORE__"'


def _card_text(store: Store, tree: str) -> str:
    card = honest(store, tree)
    card["dimensions"]["security"]["score"] = "__SCORE__"
    return json.dumps(card)


def _text_edit(old: str, new: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        assert old in text
        return text.replace(SCORE, "0").replace(old, new, 1)

    return edit


# name: (the file's text from the card's, a code the refusal must carry)
TEXTS: dict[str, tuple[Callable[[str], str], str]] = {
    "a // comment": (_text_edit('{"contract_ref"', '{// lenient\n"contract_ref"'), "json_invalid"),
    "a /* comment */": (_text_edit('"summary"', '/* x */ "summary"'), "json_invalid"),
    "a trailing comma in criteria": (_text_edit('"issues": [', '"issues": [,'), "json_invalid"),
    "single quotes": (
        lambda t: t.replace(SCORE, "0").replace('"summary"', "'summary'"),
        "json_invalid",
    ),
    "a hex score 0x3": (lambda t: t.replace(SCORE, "0x3"), "json_invalid"),
    "a score +3": (lambda t: t.replace(SCORE, "+3"), "json_invalid"),
    "a score 03": (lambda t: t.replace(SCORE, "03"), "json_invalid"),
    "a score .5e1": (lambda t: t.replace(SCORE, ".5e1"), "json_invalid"),
    "a score 1e400": (lambda t: t.replace(SCORE, "1e400"), "non_finite_number"),
    "a score 3e0": (lambda t: t.replace(SCORE, "3e0"), "contradicts_evidence"),
    "a score 1E-400 (rounds to zero) beside a duplicate 3": (
        lambda t: t.replace(SCORE, '1E-400, "score": 3'),
        "duplicate_key",
    ),
    "the criterion's pass given twice, true last": (
        _text_edit(
            '"pass": false, "evidence": "E2', '"pass": false, "pass": true, "evidence": "E2'
        ),
        "duplicate_key",
    ),
    "security given twice, 3 last, in an escaped key": (
        _text_edit('"security": {', '"security": {"score": 0}, "securit\\u0079": {'),
        "duplicate_key",
    ),
    "NaN": (lambda t: t.replace(SCORE, "NaN"), "non_finite_number"),
    "a lone surrogate in the summary": (
        _text_edit('"summary": "', '"summary": "\\udc00'),
        "json_invalid",
    ),
}


@pytest.fixture
def cli_text(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> Callable[[bytes], tuple[int, dict[str, Any]]]:
    def validate(data: bytes) -> tuple[int, dict[str, Any]]:
        path = tmp_path / "card.json"
        path.write_bytes(data)
        capsys.readouterr()
        code = main(["--root", str(repo), "validate", str(path), "--json", "--no-store"])
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err
        return code, dict(json.loads(captured.out)["results"][0])

    return validate


@pytest.mark.parametrize("name", list(TEXTS))
def test_card_text_that_is_not_strict_or_raises_is_refused_by_referee_validate(
    name: str,
    repo: Path,
    contract: Contract,
    store: Store,
    cli_text: Callable[[bytes], tuple[int, dict[str, Any]]],
) -> None:
    make, code = TEXTS[name]
    status, result = cli_text(make(_card_text(store, working_tree_hash(repo))).encode("utf-8"))
    assert status == 1 and result["valid"] is False, result
    assert code in _codes(result["errors"]), result["errors"]


def test_honest_card_text_with_a_bom_and_a_surrogate_pair_is_valid(
    repo: Path,
    contract: Contract,
    store: Store,
    cli_text: Callable[[bytes], tuple[int, dict[str, Any]]],
) -> None:
    text = _card_text(store, working_tree_hash(repo)).replace(SCORE, "-0")
    text = text.replace('"summary": "', '"summary": "\\ud83d\\ude00 ', 1)
    status, result = cli_text(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert status == 0 and result["valid"] is True, result["errors"]


# Class 5: a judge who read the hidden test names what it checks in an issue. The hold-out
# (tests/test_secret_exact.py, holdout_attacks.SECRET_TEST) asserts add(10**20, 1) == 10**20 + 1
# and add(-(10**21), -1) == -(10**21) - 1, in test_adds_large_numbers_exactly and
# test_adds_huge_negatives_exactly; the code adds through float and fails it.

LEAKS: dict[str, tuple[str, str | None]] = {
    # (the issue's description, why the guard lets it through, or None when it holds)
    "the hidden assertion as printed": ("add(10**20, 1) == 10**20 + 1 must hold", None),
    "the hidden sum in full decimal": ("add(100000000000000000000, 1) is off by one", None),
    "the hidden file, Windows-style": ("see tests\\test_secret_exact.py", None),
    "the hidden test id, upper case": ("TEST_ADDS_LARGE_NUMBERS_EXACTLY fails", None),
    "the hidden assertion reversed": ("1 + 02**01 == )1 ,02**01(dda", None),
    "the hidden operand as 1e20": (
        "add(1e20, 1) must give 1e20 + 1 exactly, and add(-1e21, -1) likewise",
        None,
    ),
    "the hidden operand as 10^20": ("adding 10^20 and 1 drops the 1; so does -10^21 and -1", None),
    "the hidden test names in words": (
        "it adds large numbers exactly? no; adds huge negatives exactly? no",
        None,
    ),
    "the hidden test names in CamelCase": (
        "AddsLargeNumbersExactly and AddsHugeNegativesExactly fail",
        None,
    ),
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return calc_repo(tmp_path / "calc")


def _leak_param(name: str) -> Any:
    _, why = LEAKS[name]
    marks = [pytest.mark.slow]
    if why is not None:
        marks.append(pytest.mark.xfail(strict=True, reason=why))
    return pytest.param(name, id=name, marks=marks)


@pytest.mark.parametrize("name", [_leak_param(n) for n in LEAKS])
async def test_a_judges_issue_that_spells_the_hidden_test_is_withheld_from_the_brief(
    name: str, agent: Client, project: Path
) -> None:
    cid = await with_holdout(agent)
    (project / "src" / "calc.py").write_text(leaky_calc())
    evaluation = await call(agent, "evaluate", contract_id=cid)
    status = {c["id"]: c["status"] for c in evaluation["criteria"]}
    assert status == {"AC-F-001": "pass", "AC-F-002": "fail"}, evaluation["criteria"]
    description, _ = LEAKS[name]
    card = completed(evaluation["draft_scorecard"])
    card["issues"] = [
        *card.get("issues", []),
        {"severity": "HIGH", "description": "add() goes through float", "location": "src/calc.py"},
        {"severity": "HIGH", "description": description},
    ]
    checked = await call(agent, "validate_scorecard", scorecard=card)
    assert checked["valid"] is True, checked["errors"]
    decided = await call(agent, "aggregate", contract_id=cid)
    assert decided["decision"] == "REVISE", decided["reason"]
    seen = await generator_side(agent, cid, decided)
    assert "add() goes through float" in seen
    assert description not in seen, name
    assert decided["revision_brief"]["hidden_checks_failed"] == 1


@pytest.mark.slow
async def test_an_issue_citing_the_holdouts_evidence_by_uri_is_withheld(
    agent: Client, project: Path
) -> None:
    cid = await with_holdout(agent)
    (project / "src" / "calc.py").write_text(leaky_calc())
    evaluation = await call(agent, "evaluate", contract_id=cid)
    hidden = evaluation["criteria"][1]
    assert hidden["holdout"] is True and hidden["status"] == "fail", hidden
    uri = f"evidence://{evaluation['run_id']}/{hidden['evidence_ids'][0]}"
    card = completed(evaluation["draft_scorecard"])
    card["issues"] = [
        *card.get("issues", []),
        {
            "severity": "HIGH",
            "description": f"read {uri} for what fails",
            "evidence_ids": [uri],
        },
    ]
    checked = await call(agent, "validate_scorecard", scorecard=card)
    assert checked["valid"] is True, checked["errors"]
    decided = await call(agent, "aggregate", contract_id=cid)
    assert uri not in json.dumps(decided["revision_brief"])


# Class 6: a check prints the server's token in a form not tried before; no 12-character window
# of what it printed may be stored or returned.
TOKEN = "ghp_" + "Xe4Tq9Lm2Vb7Nc5Rk8Wd3Hs6Jy1Pf0Gz4Ua"
WINDOW = 12

_FORMS_REASON = (
    "tools/evidence/forms.py and views.py: redaction searches the known value's fixed forms and"
    " its classes (shifts of every character, rot-N on letters, decimations, look-alikes); "
)

# name: (pieces the check prints from the secret `t`, why it gets through or None)
SECRET_FORMS: dict[str, tuple[str, str | None]] = {
    "base64url without padding": (
        "[base64.urlsafe_b64encode(t.encode()).decode().rstrip('=')]",
        None,
    ),
    "hex, upper case": ("[t.encode().hex().upper()]", None),
    "octal escapes": ("[''.join('\\\\%03o' % b for b in t.encode())]", None),
    "JSON unicode escapes with upper-case hex": (
        "[''.join('\\\\u%04X' % ord(c) for c in t)]",
        None,
    ),
    "HTML hex entities": ("[''.join('&#x%x;' % ord(c) for c in t)]", None),
    "a zero-width space between characters": ("['\\u200b'.join(t)]", None),
    "a zero-width joiner between characters, reversed": ("['\\u200d'.join(t[::-1])]", None),
    "case flipped on every other character": (
        "[''.join(c.swapcase() if i % 2 else c for i, c in enumerate(t))]",
        None,
    ),
    "a Caesar shift of five": ("[''.join(chr(ord(c) + 5) for c in t)]", None),
    "halves as two test-id-like lines": (
        "['test_a[' + t[:18] + ']', 'test_b[' + t[18:] + ']']",
        None,
    ),
    "base64 of the reversed value": ("[base64.b64encode(t[::-1].encode()).decode()]", None),
    "hex bytes separated by colons": ("[':'.join('%02x' % b for b in t.encode())]", None),
    "0x-prefixed character codes": ("[', '.join('0x%02x' % ord(c) for c in t)]", None),
    # Any one-for-one map of the value's bytes, printed as hex (tools/evidence/substitution.py).
    "XOR with a one-byte key, as hex": ("[bytes(b ^ 0x2A for b in t.encode()).hex()]", None),
    "rot-5 on the digits alone": (
        "[t.translate(str.maketrans('0123456789', '5678901234'))]",
        None,
    ),
    "Atbash on letters": (
        "[''.join(chr(ord('a') + ord('z') - ord(c)) if c.islower() else"
        " chr(ord('A') + ord('Z') - ord(c)) if c.isupper() else c for c in t)]",
        None,
    ),
    "each character's bits": (
        "[' '.join(format(ord(c), '08b') for c in t)]",
        None,
    ),
    "each character's Unicode name": (
        "[' '.join(unicodedata.name(c) for c in t)]",
        _FORMS_REASON + "a character's Unicode name is no form or class of it",
    ),
}


@pytest.fixture
def secret_settings(project: Path) -> Settings:
    return Settings.build([project], env=server_env(project, GITHUB_TOKEN=TOKEN))


@pytest.fixture
async def secret_agent(secret_settings: Settings) -> AsyncIterator[Client]:
    async with Client(build_server(secret_settings)) as client:
        yield client


def _printing(expression: str) -> dict[str, Any]:
    script = textwrap.dedent(f"""
        import base64, os, sys, unicodedata
        t = os.environ["T"]
        pieces = {expression}
        print("\\n--- unrelated line ---\\n".join(pieces))
    """)
    return {**command_check(script), "env": {"T": "${GITHUB_TOKEN}"}}


def _pieces(expression: str) -> list[str]:
    import base64
    import unicodedata

    return list(eval(expression, {"base64": base64, "unicodedata": unicodedata, "t": TOKEN}))


async def _evaluate(agent: Client, check: dict[str, Any]) -> dict[str, Any]:
    made = await call(
        agent,
        "create_contract",
        goal="Keep the calculator correct.",
        out_of_scope=["ui"],
        functional=[{"criterion": "prints", "verification_method": "test", "check": check}],
    )
    return await call(agent, "evaluate", contract_id=made["contract"]["id"])


async def _everything(agent: Client, settings: Settings, evaluation: dict[str, Any]) -> str:
    texts = [stored_text(settings.home), json.dumps(evaluation, ensure_ascii=False)]
    for item in evaluation["evidence"]:
        read = await agent.read_resource(f"evidence://{evaluation['run_id']}/{item['id']}")
        texts.append(read.contents[0].text)  # type: ignore[union-attr]
    return "".join("\n".join(texts).split())


def _assert_no_window(everything: str, pieces: list[str]) -> None:
    for piece in pieces:
        squeezed = "".join(piece.split())
        for start in range(max(1, len(squeezed) - WINDOW + 1)):
            window = squeezed[start : start + WINDOW]
            assert window not in everything, (piece, window)


def _form_param(name: str) -> Any:
    _, why = SECRET_FORMS[name]
    marks = [pytest.mark.slow]
    if why is not None:
        marks.append(pytest.mark.xfail(strict=True, reason=why))
    return pytest.param(name, id=name, marks=marks)


@pytest.mark.parametrize("name", [_form_param(n) for n in SECRET_FORMS])
async def test_a_secret_printed_in_a_new_form_is_redacted_everywhere(
    name: str, secret_agent: Client, secret_settings: Settings
) -> None:
    expression, _ = SECRET_FORMS[name]
    evaluation = await _evaluate(secret_agent, _printing(expression))
    everything = await _everything(secret_agent, secret_settings, evaluation)
    if name == "each character's Unicode name":
        # A 12-character window of a name ("LATINSMALLLE") says nothing; four names in a row do.
        import unicodedata

        groups = [TOKEN[i : i + 4] for i in range(0, len(TOKEN) - 3, 4)]
        named = ["".join("".join(unicodedata.name(c) for c in g).split()) for g in groups]
        assert not [n for n in named if n in everything], named
        return
    _assert_no_window(everything, _pieces(expression))


PROPERTY_TESTS = """
import base64, os


def test_records(record_property):
    t = os.environ["T"]
    record_property("token_reversed", t[::-1])
    record_property("token_b32", base64.b32encode(t.encode()).decode())
"""


@pytest.mark.slow
async def test_a_secret_in_a_junit_property_is_redacted(
    secret_agent: Client, secret_settings: Settings, project: Path
) -> None:
    (project / "tests" / "test_props.py").write_text(PROPERTY_TESTS, encoding="utf-8")
    check = {**pytest_check("tests/test_props.py"), "env": {"T": "${GITHUB_TOKEN}"}}
    evaluation = await _evaluate(secret_agent, check)
    assert evaluation["criteria"][0]["status"] == "pass", evaluation["criteria"]
    everything = await _everything(secret_agent, secret_settings, evaluation)
    import base64

    _assert_no_window(everything, [TOKEN[::-1], base64.b32encode(TOKEN.encode()).decode()])


FILE_NAMES = """
import os, pathlib


def test_writes():
    t = os.environ["T"]
    here = pathlib.Path(__file__).parent
    (here / ("out-" + t[::-1].swapcase())).write_text("x")
    (here / ("hex-" + t.encode().hex()[:40])).write_text("x")
"""


@pytest.mark.slow
async def test_a_secret_in_the_names_of_files_a_test_writes_is_redacted(
    secret_agent: Client, secret_settings: Settings, project: Path
) -> None:
    (project / "tests" / "test_names.py").write_text(FILE_NAMES, encoding="utf-8")
    check = {**pytest_check("tests/test_names.py"), "env": {"T": "${GITHUB_TOKEN}"}}
    evaluation = await _evaluate(secret_agent, check)
    everything = await _everything(secret_agent, secret_settings, evaluation)
    _assert_no_window(everything, [TOKEN[::-1].swapcase(), TOKEN.encode().hex()[:40]])


@pytest.mark.slow
async def test_an_ordinary_change_without_a_secret_passes_and_is_stored_as_printed(
    secret_agent: Client, secret_settings: Settings
) -> None:
    check = command_check("print('sum: 3 ok; base64 aGVsbG8gd29ybGQ= and 0x2a')")
    evaluation = await _evaluate(secret_agent, check)
    assert evaluation["criteria"][0]["status"] == "pass", evaluation["criteria"]
    everything = await _everything(secret_agent, secret_settings, evaluation)
    assert "aGVsbG8gd29ybGQ=" in everything and "[REDACTED" not in json.dumps(evaluation)
