"""validate_scorecard's core, driven by the corpus in tests/fixtures/scorecards/.

Each case file holds a scorecard and what validating it must give: `expect.errors` is exactly the
set of error codes, `expect.warnings` codes that must be among the warnings.
"""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from runs import patch_evaluation

from referee.tools.create_contract.files import load_contract_file
from referee.tools.evidence.signing import sign
from referee.tools.models import Contract, Evaluation, EvidenceItem
from referee.tools.rubrics import load_rubrics
from referee.tools.store import Store, StoredRun, scorecards_for
from referee.tools.validate_scorecard.codes import CODES
from referee.tools.validate_scorecard.entry import (
    REFEREE_ANTIPATTERNS,
    EvidenceContext,
    validate_and_store,
    validate_scorecard,
)
from referee.tools.validate_scorecard.schema import models_accept, schema_validator

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "scorecards"
CASES = sorted((CORPUS / "cases").glob("*.json"))
KEY = b"corpus-signing-key"
RUBRICS = load_rubrics(None)
FIXED = datetime(2026, 3, 25, 12, 30, tzinfo=UTC)
# Codes no corpus case can produce: a fallback for schema keywords the schemas do not use yet, and
# the storage outcomes, which test_validate_and_store_* below cover.
NOT_IN_CORPUS = {
    "schema_violation",
    "replaced_scorecard",
    "not_stored",
    "unverified_pass",
    "flaky_pass",
    "generator_evidence_only",
    "store_tampered",
    # Only JSON text has them: the CLI's and the gate's tests cover them.
    "duplicate_key",
    "too_large",
}


def load_case(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def recorded_run(patch: dict[str, Any] | None = None) -> StoredRun:
    """The corpus run; a case's `evidence.run` replaces fields of the evaluation before signing."""
    doc = json.loads((CORPUS / "run.json").read_text(encoding="utf-8"))
    patch_evaluation(doc["evaluation"], patch or {})
    evaluation = Evaluation.model_validate(doc["evaluation"])
    evidence = [EvidenceItem.model_validate(e) for e in doc["evidence"]]
    return StoredRun(
        evaluation=evaluation,
        evidence={e.id: e for e in evidence},
        signature=sign(KEY, evaluation, evidence),
    )


def contract() -> Contract:
    return load_contract_file(CORPUS / "contract.yaml")


def evidence_for(spec: dict[str, Any] | None) -> EvidenceContext | None:
    if spec is None:
        return None
    run = recorded_run(spec.get("run"))
    tree = run.evaluation.target.tree if spec["tree"] == "current" else spec["tree"]
    return EvidenceContext(
        runs=[run] if spec["runs"] else [], tree=tree, key=KEY if spec["key"] else None
    )


def with_signature(card: Any, spec: dict[str, Any] | None = None) -> Any:
    if isinstance(card, dict) and card.get("signature") == "$SIGNATURE":
        return {**card, "signature": recorded_run((spec or {}).get("run")).signature}
    return card


def run_case(case: dict[str, Any]) -> Any:
    return validate_scorecard(
        with_signature(copy.deepcopy(case["scorecard"]), case["evidence"]),
        contract=contract() if case["contract"] else None,
        rubrics=RUBRICS,
        format=case["format"],
        evidence=evidence_for(case["evidence"]),
        require_evidence=case["require_evidence"],
    )


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_each_corpus_scorecard_gives_exactly_its_expected_codes(path: Path) -> None:
    case = load_case(path)
    result = run_case(case)
    expect = case["expect"]
    assert sorted({p.code for p in result.errors}) == expect["errors"], [
        p.model_dump() for p in result.errors
    ]
    assert set(expect["warnings"]) <= {p.code for p in result.warnings}, result.warnings
    assert result.valid is expect["valid"]
    for name in ("verdict", "weighted_score", "normalized"):
        if name in expect:
            assert getattr(result.computed, name) == expect[name]
    assert result.stale is expect.get("stale", False)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_every_problem_has_a_pointer_a_known_code_and_a_sentence(path: Path) -> None:
    result = run_case(load_case(path))
    for problem in [*result.errors, *result.warnings]:
        assert problem.code in CODES
        assert problem.path == "" or problem.path.startswith("/")
        assert len(problem.message.split()) >= 4


def test_the_corpus_exercises_every_code() -> None:
    seen = {
        code
        for path in CASES
        for key in ("errors", "warnings")
        for code in load_case(path)["expect"][key]
    }
    assert seen | NOT_IN_CORPUS == set(CODES)


def test_missing_fields_are_named_in_the_pointer() -> None:
    result = run_case(load_case(CORPUS / "cases" / "referee-required.json"))
    assert {p.path for p in result.errors if p.code == "required"} == {"/provider", "/criteria"}


def test_each_missing_criterion_is_its_own_problem() -> None:
    card = load_case(CORPUS / "cases" / "tenpoint-valid.json")["scorecard"]
    card["criteria"] = []
    result = validate_scorecard(card, contract=contract(), rubrics=RUBRICS)
    missing = [p.message for p in result.errors if p.code == "criterion_missing"]
    assert len(missing) == 2 and "AC-F-001" in missing[0] and "AC-F-002" in missing[1]


def test_an_empty_and_a_blank_evidence_are_each_reported_once() -> None:
    result = run_case(load_case(CORPUS / "cases" / "referee-evidence-empty.json"))
    assert sorted(p.path for p in result.errors) == [
        "/criteria/0/evidence",
        "/dimensions/craft/evidence",
    ]


def test_a_contradiction_names_the_evidence_and_its_exit_code() -> None:
    result = run_case(load_case(CORPUS / "cases" / "referee-contradicts-evidence.json"))
    (problem,) = result.errors
    assert problem.path == "/criteria/1/pass" and "contradicts E2: exit code 1" in problem.message


def test_computed_is_returned_for_an_invalid_scorecard() -> None:
    result = run_case(load_case(CORPUS / "cases" / "referee-many-problems-at-once.json"))
    assert result.valid is False and result.computed.verdict == "ACCEPT"


def test_a_non_object_scorecard_is_reported_at_the_root() -> None:
    result = validate_scorecard("{}", contract=None, rubrics=RUBRICS)
    assert [(p.path, p.code) for p in result.errors] == [
        ("", "not_an_object")
    ] and result.format is None


def test_referee_antipatterns_are_exported_for_other_tools() -> None:
    assert {
        "test_tampering",
        "test_deleted",
        "test_skipped",
        "test_focused",
        "assertions_removed",
        "test_emptied",
        "tree_modified",
        "harness_modified",
        "code_under_test_patched",
        "test_inspects_environment",
        "code_detects_tests",
        "equality_forged",
        "environment_modified",
    } == REFEREE_ANTIPATTERNS


def test_validation_is_pure_and_stores_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / ".referee")
    validate_scorecard(
        load_case(CORPUS / "cases" / "referee-valid-accept.json")["scorecard"],
        contract=contract(),
        rubrics=RUBRICS,
    )
    assert scorecards_for(store, contract().id) == []


def store_card(store: Store | None, card: dict[str, Any], *, store_result: bool = True) -> Any:
    return validate_and_store(
        card,
        contract=contract(),
        rubrics=RUBRICS,
        format="auto",
        evidence=None,
        store=store,
        store_result=store_result,
        now=lambda: FIXED,
    )


def test_validate_and_store_records_a_valid_scorecard_with_its_arithmetic(tmp_path: Path) -> None:
    store = Store(tmp_path / ".referee")
    result = store_card(
        store, load_case(CORPUS / "cases" / "referee-valid-accept.json")["scorecard"]
    )
    assert result.stored is True and result.replaced is False and result.scorecard_id
    (stored,) = scorecards_for(store, contract().id)
    assert stored.evaluator == "judge" and stored.iteration == 1 and stored.format == "referee"
    assert stored.computed["verdict"] == "ACCEPT" and stored.computed["weighted_score"] == 2.55
    assert stored.computed["dimensions"]["correctness"] == 3 and stored.computed["scale_max"] == 3


def test_validate_and_store_replaces_the_evaluators_earlier_scorecard(tmp_path: Path) -> None:
    store = Store(tmp_path / ".referee")
    card = load_case(CORPUS / "cases" / "tenpoint-valid.json")["scorecard"]
    first = store_card(store, card)
    second = store_card(store, card)
    assert first.replaced is False and second.replaced is True
    assert "replaced_scorecard" in {w.code for w in second.warnings}
    assert [s.id for s in scorecards_for(store, contract().id)] == [int(second.scorecard_id or 0)]
    assert len(scorecards_for(store, contract().id, history=True)) == 2


def test_validate_and_store_never_records_an_invalid_scorecard(tmp_path: Path) -> None:
    store = Store(tmp_path / ".referee")
    result = store_card(
        store, load_case(CORPUS / "cases" / "referee-criterion-unknown.json")["scorecard"]
    )
    assert (
        result.valid is False
        and result.stored is False
        and scorecards_for(store, contract().id) == []
    )


def test_validate_and_store_without_a_store_says_it_did_not_record() -> None:
    result = store_card(
        None, load_case(CORPUS / "cases" / "referee-valid-accept.json")["scorecard"]
    )
    assert result.valid and not result.stored and "not_stored" in {w.code for w in result.warnings}


# The fast path must never accept what the JSON Schema rejects.

_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 12)
    | st.floats(-1, 11, allow_nan=False)
    | st.sampled_from(["", " ", "x", "ACCEPT", "LOW", "1"]),
    lambda inner: (
        st.lists(inner, max_size=2)
        | st.dictionaries(st.sampled_from(["id", "x"]), inner, max_size=2)
    ),
    max_leaves=4,
)


def _leaf_paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(node, dict):
        return [prefix] + [p for k, v in node.items() for p in _leaf_paths(v, (*prefix, k))]
    if isinstance(node, list):
        return [prefix] + [p for i, v in enumerate(node) for p in _leaf_paths(v, (*prefix, i))]
    return [prefix]


def _replace(node: Any, where: tuple[Any, ...], value: Any) -> Any:
    if not where:
        return value
    clone = copy.copy(node)
    clone[where[0]] = _replace(node[where[0]], where[1:], value)
    return clone


_BASES = [
    load_case(CORPUS / "cases" / name)["scorecard"]
    for name in (
        "referee-valid-accept.json",
        "tenpoint-valid.json",
        "referee-valid-spec-defect-blocks.json",
    )
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(_BASES), data=st.data(), value=_JSON)
def test_the_model_fast_path_never_accepts_what_the_schema_rejects(
    base: dict[str, Any], data: Any, value: Any
) -> None:
    where = data.draw(st.sampled_from(_leaf_paths(base)[1:]))
    mutated = _replace(base, where, value)
    fmt = "tenpoint" if "task_id" in base else "referee"
    if models_accept(fmt, mutated):
        assert schema_validator(fmt).is_valid(mutated), (where, value)


def _card_from(case_name: str) -> dict[str, Any]:
    return copy.deepcopy(load_case(CORPUS / "cases" / case_name)["scorecard"])


def test_a_check_referee_could_not_run_cannot_be_marked_passed() -> None:
    run = recorded_run()
    criteria = [
        (
            c.model_copy(
                update={"status": "unscored", "pass_": False, "reason": "timed out after 600 s"}
            )
            if c.id == "AC-F-002"
            else c
        )
        for c in run.evaluation.criteria
    ]
    evaluation = run.evaluation.model_copy(update={"criteria": criteria})
    unscored = StoredRun(evaluation=evaluation, evidence=run.evidence, signature=run.signature)
    card = _card_from("referee-contradicts-evidence.json")
    result = validate_scorecard(
        card,
        contract=contract(),
        rubrics=RUBRICS,
        evidence=EvidenceContext(runs=[unscored], tree=evaluation.target.tree, key=None),
    )
    problems = {p.code: p for p in result.errors}
    assert "unverified_pass" in problems and "timed out" in problems["unverified_pass"].message
    assert "contradicts_evidence" not in problems


def test_a_flaky_criterion_cannot_be_marked_passed() -> None:
    run = recorded_run()
    reason = "flaky: tests/test_x.py::test_y passed 2 of 3"
    criteria = [
        (
            c.model_copy(
                update={
                    "status": "unscored",
                    "pass_": False,
                    "reason_code": "flaky",
                    "reason": reason,
                }
            )
            if c.id == "AC-F-002"
            else c
        )
        for c in run.evaluation.criteria
    ]
    evaluation = run.evaluation.model_copy(update={"criteria": criteria})
    flaky = StoredRun(evaluation=evaluation, evidence=run.evidence, signature=run.signature)
    result = validate_scorecard(
        _card_from("referee-contradicts-evidence.json"),
        contract=contract(),
        rubrics=RUBRICS,
        evidence=EvidenceContext(runs=[flaky], tree=evaluation.target.tree, key=None),
    )
    problems = {p.code: p for p in result.errors}
    assert "passed 2 of 3" in problems["flaky_pass"].message
    assert {"unverified_pass", "contradicts_evidence"}.isdisjoint(problems)


def test_generator_session_evidence_alone_cannot_carry_a_pass() -> None:
    card = _card_from("referee-valid-accept.json")
    card["criteria"][0]["evidence_ids"] = ["G-session1/E1"]
    run = recorded_run()
    context = EvidenceContext(
        runs=[run], tree=run.evaluation.target.tree, key=None, captured={"G-session1": {"E1"}}
    )
    result = validate_scorecard(card, contract=contract(), rubrics=RUBRICS, evidence=context)
    own = [p for p in result.errors if p.code == "generator_evidence_only"]
    assert [p.path for p in own] == ["/criteria/0/evidence_ids"]
    assert "evidence_unknown" not in {p.code for p in result.errors}
    unknown = EvidenceContext(runs=[run], tree=run.evaluation.target.tree, key=None)
    assert "evidence_unknown" in {
        p.code
        for p in validate_scorecard(
            card, contract=contract(), rubrics=RUBRICS, evidence=unknown
        ).errors
    }


def test_an_object_nested_10000_deep_is_too_deep_and_never_a_recursion_error() -> None:
    # What a client other than the SDK's could hand the core: no parser bounded it.
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(10_000):
        node["x"] = {}
        node = node["x"]
    card = {**_card_from("referee-valid-accept.json"), "summary": deep}
    result = validate_scorecard(card, contract=contract(), rubrics=RUBRICS)
    assert [p.code for p in result.errors] == ["too_deep"] and result.valid is False
