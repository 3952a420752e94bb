"""aggregate through its core: the decision table, the revision brief, history and alerts."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from aggregate_cards import (
    RUBRICS,
    card,
    clock,
    issue,
    store_card,
    store_perturbed,
    two_evaluator_contract,
)
from runs import bound

from referee.tools.aggregate.dedupe import duplicates, place_of, similarity
from referee.tools.aggregate.entry import aggregate, latest_brief
from referee.tools.aggregate.rules import Situation, decide
from referee.tools.create_contract.files import load_contract_file
from referee.tools.errors import InvalidInput, NotFound
from referee.tools.evidence.signing import sign
from referee.tools.models import AggregateResult, Contract, Evaluation, EvidenceItem
from referee.tools.models import TestOutcome as JUnitOutcome
from referee.tools.store import Store, replace_contract, save_run, scorecards_for
from referee.tools.store.aggregates import aggregates_for

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "scorecards"


@pytest.fixture
def store(repo: Path, store_url: str | None) -> Store:
    return Store(repo / ".referee", url=store_url)


@pytest.fixture
def contract(store: Store, repo: Path) -> Contract:
    return two_evaluator_contract(store, repo)


def run(store: Store, contract: Contract, **kw: Any) -> AggregateResult:
    return aggregate(contract.id, store=store, rubrics=RUBRICS, now=clock, **kw)


def both(
    store: Store, contract: Contract, iteration: int, judge: Any = 2, radar: Any = 2, **kw: Any
) -> None:
    store_card(store, contract, card(contract, "judge", iteration, judge, **kw))
    store_card(store, contract, card(contract, "radar", iteration, radar, **kw))


# The decision table


@pytest.mark.parametrize(
    ("verdicts", "missing", "iteration", "expected"),
    [
        ({"judge": "BLOCK"}, ["radar"], 1, "PENDING"),
        ({"judge": "BLOCK", "radar": "REVISE"}, [], 1, "ESCALATE"),
        ({"judge": "BLOCK", "radar": "ACCEPT"}, [], 3, "ESCALATE"),
        ({"judge": "ACCEPT", "radar": "ACCEPT"}, [], 1, "DELIVER"),
        ({"judge": "REVISE", "radar": "ACCEPT"}, [], 2, "REVISE"),
        ({"judge": "REVISE", "radar": "ACCEPT"}, [], 3, "DELIVER"),
        ({"judge": "REVISE", "radar": "REVISE"}, [], 4, "DELIVER"),
        ({}, ["judge", "radar"], 1, "PENDING"),
    ],
)
def test_decision_table_applies_the_rules_in_order(
    verdicts: dict[str, Any], missing: list[str], iteration: int, expected: str
) -> None:
    assert decide(Situation(iteration, 3, verdicts, missing)).decision == expected


def test_an_unknown_contract_is_not_found(store: Store) -> None:
    with pytest.raises(NotFound) as exc:
        aggregate("SC-nothing-20260101", store=store, rubrics=RUBRICS, now=clock)
    assert exc.value.as_problem().path == "/contract_id"


def test_no_scorecard_at_all_is_pending_with_every_evaluator_missing(
    store: Store, contract: Contract
) -> None:
    result = run(store, contract)
    assert result.decision == "PENDING" and result.iteration == 1
    assert result.missing_evaluators == ["judge", "radar"] and result.evaluator_verdicts == {}
    assert result.scores.normalized is None and "judge, radar" in result.reason


def test_a_missing_evaluator_is_pending_even_when_another_blocks(
    store: Store, contract: Contract
) -> None:
    store_card(store, contract, card(contract, "judge", 1, {"correctness": 0}))
    result = run(store, contract)
    assert result.decision == "PENDING" and result.missing_evaluators == ["radar"]
    assert result.evaluator_verdicts == {"judge": "BLOCK"} and "radar" in result.reason
    assert result.escalation is None and result.revision_brief is None


def test_all_accept_delivers_this_iteration(store: Store, contract: Contract) -> None:
    both(store, contract, 1, judge=3, radar=2)
    result = run(store, contract)
    assert result.decision == "DELIVER" and result.delivered_iteration == 1
    assert result.evaluator_verdicts == {"judge": "ACCEPT", "radar": "ACCEPT"}
    assert result.scores.weighted == 2.5 and result.scores.normalized == pytest.approx(
        83.33, abs=0.02
    )
    assert result.best_iteration is not None and result.best_iteration.iteration == 1


def test_any_block_escalates_with_each_reason_and_context(store: Store, contract: Contract) -> None:
    store_card(
        store,
        contract,
        card(
            contract,
            "judge",
            1,
            {"security": 0},
            issues=[issue("CRITICAL", "Passwords are stored in plain text", "app/users.py:12")],
        ),
    )
    store_card(
        store,
        contract,
        card(contract, "radar", 1, spec_defect="the criterion contradicts the API spec"),
    )
    result = run(store, contract)
    assert result.decision == "ESCALATE" and result.escalation is not None
    reasons = "\n".join(result.escalation.reasons)
    assert "judge returned BLOCK" in reasons and "radar returned BLOCK" in reasons
    assert (
        "judge: security scored 0: security seen in app/login.py" in reasons
    )  # with the dimension's evidence
    assert "spec defect: the criterion contradicts the API spec" in reasons
    assert result.revision_brief is not None  # the blocking evaluators' issues, as context
    assert [i.text for i in result.revision_brief.issues_to_address] == [
        "[CRITICAL] Passwords are stored in plain text (from judge)"
    ]


def test_revise_within_the_bound_sends_a_brief_for_the_next_iteration(
    store: Store, contract: Contract
) -> None:
    store_card(
        store,
        contract,
        card(
            contract,
            "judge",
            1,
            {"craft": 1},
            issues=[issue("MEDIUM", "login() is 80 lines long", "app/login.py:10")],
        ),
    )
    store_card(store, contract, card(contract, "radar", 1, 3))
    result = run(store, contract)
    assert result.decision == "REVISE" and result.delivered_iteration is None
    brief = result.revision_brief
    assert brief is not None and (brief.iteration_from, brief.iteration_to) == (1, 2)
    assert brief.evaluator_verdicts == {"judge": "REVISE", "radar": "ACCEPT"}
    assert [i.text for i in brief.issues_to_address] == [
        "[MEDIUM] login() is 80 lines long (from judge)"
    ]
    assert "judge asked for a revision at iteration 1 of 3" in result.reason


def test_three_iteration_loop_delivers_the_best_iteration_not_the_last(
    store: Store, contract: Contract
) -> None:
    decisions = []
    for iteration, judge, radar in [
        (1, {"correctness": 1}, {"craft": 1}),
        (2, {"craft": 1}, 3),
        (3, {"correctness": 1, "security": 1}, {"craft": 1}),
    ]:
        store_card(store, contract, card(contract, "judge", iteration, judge))
        store_card(store, contract, card(contract, "radar", iteration, radar))
        decisions.append(run(store, contract))
    assert [d.decision for d in decisions] == ["REVISE", "REVISE", "DELIVER"]
    final = decisions[-1]
    assert final.iteration == 3 and final.delivered_iteration == 2
    assert final.best_iteration is not None and final.best_iteration.iteration == 2
    assert "iteration 2" in final.reason
    notes = "\n".join(final.quality_notes)
    assert "delivered iteration 2" in notes and "last iteration 3 scored lower" in notes
    assert "judge asked for revision" in notes


def test_the_bound_compares_normalized_scores_of_the_mean_over_evaluators(
    store: Store, repo: Path
) -> None:
    contract = two_evaluator_contract(store, repo, max_iterations=2)
    both(store, contract, 1, judge={"craft": 1}, radar={"craft": 1})  # 1.9 each
    both(store, contract, 2, judge={"security": 1}, radar=3)  # 1.9 and 3.0: better on average
    result = run(store, contract)
    assert result.decision == "DELIVER" and result.delivered_iteration == 2


def test_iteration_defaults_to_the_latest_with_a_scorecard(
    store: Store, contract: Contract
) -> None:
    both(store, contract, 1, judge={"craft": 1})
    store_card(store, contract, card(contract, "judge", 2, 3))
    assert run(store, contract).iteration == 2
    assert run(store, contract, iteration=1).decision == "REVISE"


def test_an_iteration_below_one_is_invalid_input(store: Store, contract: Contract) -> None:
    with pytest.raises(InvalidInput) as exc:
        run(store, contract, iteration=0)
    assert [p.path for p in exc.value.problems] == ["/iteration"]


# The revision brief


def test_duplicates_across_evaluators_merge_keeping_the_highest_severity_and_every_source(
    store: Store, contract: Contract
) -> None:
    store_card(
        store,
        contract,
        card(
            contract,
            "judge",
            1,
            {"security": 1},
            issues=[
                issue(
                    "MEDIUM",
                    "Missing input validation on the email field",
                    "app/login.py:42",
                    "Validate with a regex",
                )
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
            issues=[issue("HIGH", "No validation of the email input", "app/login.py:44")],
        ),
    )
    brief = run(store, contract).revision_brief
    assert brief is not None and len(brief.issues_to_address) == 1
    merged = brief.issues_to_address[0]
    assert merged.severity == "HIGH" and merged.sources == ["judge", "radar"]
    assert merged.text == "[HIGH] No validation of the email input (from judge, radar)"
    assert merged.suggestion == "Validate with a regex"


def test_issues_far_apart_or_saying_different_things_stay_apart(
    store: Store, contract: Contract
) -> None:
    store_card(
        store,
        contract,
        card(
            contract,
            "judge",
            1,
            {"security": 1},
            issues=[
                issue("HIGH", "SQL injection in the query builder", "app/db.py:10"),
                issue("MEDIUM", "Missing input validation on the email field", "app/login.py:42"),
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
                issue("MEDIUM", "The query builder lacks tests", "app/db.py:11"),
                issue("MEDIUM", "Missing input validation on the email field", "app/login.py:49"),
            ],
        ),
    )
    brief = run(store, contract).revision_brief
    assert brief is not None and len(brief.issues_to_address) == 4


def test_brief_orders_by_severity_and_defers_low_issues(store: Store, contract: Contract) -> None:
    store_card(
        store,
        contract,
        card(
            contract,
            "judge",
            1,
            {"craft": 1},
            issues=[
                issue("LOW", "Magic number for the lockout duration", "app/login.py:55"),
                issue("MEDIUM", "Error message reveals whether the user exists", "app/login.py:30"),
                issue("CRITICAL", "Session id is predictable", "app/session.py:5"),
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
            issues=[issue("HIGH", "Cookie lacks the Secure flag", "app/session.py:20")],
        ),
    )
    brief = run(store, contract).revision_brief
    assert brief is not None
    assert [i.severity for i in brief.issues_to_address] == ["CRITICAL", "HIGH", "MEDIUM"]
    assert [i.text for i in brief.issues_deferred] == [
        "[LOW] Magic number for the lockout duration (from judge)"
    ]


def test_issues_of_accepting_evaluators_are_not_in_the_brief(
    store: Store, contract: Contract
) -> None:
    store_card(
        store,
        contract,
        card(contract, "judge", 1, {"craft": 1}, issues=[issue("HIGH", "Too long", "a.py:1")]),
    )
    store_card(
        store,
        contract,
        card(contract, "radar", 1, 3, issues=[issue("MEDIUM", "Rename x", "b.py:1")]),
    )
    brief = run(store, contract).revision_brief
    assert brief is not None and [i.sources for i in brief.issues_to_address] == [["judge"]]


def test_the_brief_never_reveals_a_holdout_criterion(store: Store, contract: Contract) -> None:
    hidden = next(c for c in contract.all_criteria() if c.holdout)
    store_card(
        store,
        contract,
        card(
            contract,
            "judge",
            1,
            {"correctness": 1},
            failed=("AC-F-001", hidden.id),
            issues=[
                issue("HIGH", f"{hidden.id} fails: the account is never locked", "app/login.py:70"),
                issue("MEDIUM", "Five failed logins lock the account is not implemented", None),
                issue("MEDIUM", "The login handler swallows exceptions", "app/login.py:12"),
            ],
        ),
    )
    store_card(store, contract, card(contract, "radar", 1, 3))
    result = run(store, contract)
    brief = result.revision_brief
    assert brief is not None and brief.failed_criteria == ["AC-F-001"]
    assert [i.description for i in brief.issues_to_address] == [
        "The login handler swallows exceptions"
    ]
    text = json.dumps(brief.model_dump(mode="json"))
    assert hidden.id not in text and hidden.criterion not in text
    assert latest_brief(store, contract.id) == brief.model_dump(mode="json", by_alias=True)


def test_an_evaluator_with_only_holdout_criteria_is_not_named_in_the_brief(
    store: Store, repo: Path
) -> None:
    from projects import contract_for

    contract = contract_for(
        store,
        repo,
        {"criterion": "Login works", "verification_method": "manual", "evaluator": "judge"},
        {
            "criterion": "Lockout works",
            "verification_method": "manual",
            "evaluator": "shadow",
            "holdout": True,
        },
        evaluators=["judge", "shadow"],
    )
    store_card(
        store,
        contract,
        card(contract, "judge", 1, {"craft": 1}, issues=[issue("HIGH", "Too long", "a.py:1")]),
    )
    store_card(
        store,
        contract,
        card(contract, "shadow", 1, {"craft": 1}, issues=[issue("HIGH", "Odd", "b.py:9")]),
    )
    brief = run(store, contract).revision_brief
    assert brief is not None and brief.evaluator_verdicts == {"judge": "REVISE"}
    assert "shadow" not in json.dumps(brief.model_dump(mode="json"))


def test_location_parsing_and_the_duplicate_test() -> None:
    assert place_of("./app/x.py:12-18") == ("app/x.py", 12, 18)
    assert place_of("app/x.py:12:5") == ("app/x.py", 12, 12)
    assert place_of("app/x.py") == ("app/x.py", None, None) and place_of("  ") is None
    assert duplicates("a.py:10", "Cookie lacks HttpOnly", "a.py:13", "cookie lacks httponly!")
    assert not duplicates("a.py:10", "Cookie lacks HttpOnly", "a.py:14", "Cookie lacks HttpOnly")
    assert not duplicates("a.py:10", "Cookie lacks HttpOnly", None, "Cookie lacks HttpOnly")
    assert duplicates(None, "Validate the email input", None, "Validates email inputs")
    assert duplicates(
        "a.py",
        "Lockout duration is a magic number",
        "a.py:3",
        "Magic number for lockout duration 15",
    )
    apart = similarity("SQL injection in query builder", "query builder lacks tests")
    assert apart.jaccard < 0.5 and apart.ratio < 0.8


# Inline scorecards


def test_inline_scorecards_are_validated_used_and_never_stored(
    store: Store, contract: Contract
) -> None:
    store_card(store, contract, card(contract, "judge", 1, 3))
    result = run(
        store, contract, scorecards=[bound(store, contract, card(contract, "radar", 1, 3))]
    )
    assert result.decision == "DELIVER" and result.evaluator_verdicts == {
        "judge": "ACCEPT",
        "radar": "ACCEPT",
    }
    assert [s.evaluator for s in scorecards_for(store, contract.id)] == ["judge"]
    assert any("not stored" in n for n in result.quality_notes)
    assert aggregates_for(store, contract.id) == []  # a what-if: no report, brief or prompt uses it


def test_an_inline_scorecard_replaces_the_stored_one_for_that_call_only(
    store: Store, contract: Contract
) -> None:
    both(store, contract, 1, judge=3, radar=3)
    assert (
        run(
            store,
            contract,
            scorecards=[bound(store, contract, card(contract, "judge", 1, {"craft": 1}))],
        ).decision
        == "REVISE"
    )
    assert run(store, contract).decision == "DELIVER"


def test_invalid_inline_scorecards_list_every_problem_under_their_index(
    store: Store, contract: Contract
) -> None:
    bad = bound(store, contract, card(contract, "radar", 1, 3))
    del bad["provider"]
    bad["dimensions"]["craft"]["score"] = 7
    with pytest.raises(InvalidInput) as exc:
        run(
            store,
            contract,
            scorecards=[
                bound(store, contract, card(contract, "judge", 1, 3)),
                bad,
                bound(store, contract, card(contract, "judge", 2, 3)),
            ],
        )
    paths = {p.path for p in exc.value.problems}
    assert {
        "/scorecards/1/provider",
        "/scorecards/1/dimensions/craft/score",
        "/scorecards/2/iteration",
    } <= paths
    assert not any(p.startswith("/scorecards/0") for p in paths)
    assert scorecards_for(store, contract.id) == []


# History and alerts


def test_a_changed_evaluator_model_is_not_comparable_and_silences_regression(
    store: Store, contract: Contract
) -> None:
    both(store, contract, 1, judge=3, radar=3)
    both(store, contract, 2, judge={"correctness": 1}, radar=3, model="model-b")
    result = run(store, contract)
    assert result.comparable is False
    kinds = [a.kind for a in result.alerts]
    assert kinds.count("not_comparable") == 2 and "regression" not in kinds
    message = next(a.message for a in result.alerts if a.kind == "not_comparable")
    assert "evaluator_model model-a → model-b" in message


def test_the_best_iteration_is_chosen_only_among_comparable_iterations(
    store: Store, repo: Path
) -> None:
    contract = two_evaluator_contract(store, repo, max_iterations=2)
    both(store, contract, 1, judge=3, radar={"craft": 1})
    both(store, contract, 2, judge={"craft": 1}, radar={"craft": 1}, prompt="v2")
    result = run(store, contract)
    assert result.decision == "DELIVER" and result.delivered_iteration == 2
    assert any(n.startswith("iteration 1 was not considered") for n in result.quality_notes)


def test_a_dimension_below_its_high_water_mark_raises_a_regression(
    store: Store, contract: Contract
) -> None:
    both(store, contract, 1, judge=3, radar=3)
    both(store, contract, 2, judge=2, radar=3)
    both(store, contract, 3, judge={"correctness": 3}, radar=3)
    result = run(store, contract)
    regressions = [a for a in result.alerts if a.kind == "regression"]
    assert {a.dimension for a in regressions} == {
        "design_quality",
        "functionality",
        "craft",
        "security",
    }
    assert "below its high-water mark 3 (iteration 1)" in regressions[0].message
    assert result.comparable is True


def test_three_evaluations_at_the_maximum_ask_for_harder_criteria(store: Store, repo: Path) -> None:
    contract = two_evaluator_contract(store, repo, max_iterations=5)
    for iteration in (1, 2):
        both(store, contract, iteration, judge={"correctness": 3, "craft": 1}, radar={"craft": 1})
    assert not [a for a in run(store, contract).alerts if a.kind == "saturation"]
    both(store, contract, 3, judge={"correctness": 3, "craft": 1}, radar={"craft": 1})
    saturated = [a for a in run(store, contract).alerts if a.kind == "saturation"]
    assert [(a.dimension, "judge" in a.message) for a in saturated] == [("correctness", True)]
    assert "harder" in saturated[0].message


def test_three_consecutive_drops_raise_a_trend_alert(store: Store, repo: Path) -> None:
    contract = two_evaluator_contract(store, repo, max_iterations=5)
    for iteration, judge in [
        (1, 3),
        (2, {"security": 1, "craft": 3, "correctness": 3, "functionality": 3}),
        (3, {"craft": 1}),
    ]:
        both(store, contract, iteration, judge=judge, radar={"craft": 1})
    assert not [a for a in run(store, contract).alerts if a.kind == "trend"]
    both(store, contract, 4, judge={"craft": 1, "security": 1}, radar={"craft": 1})
    trend = [a for a in run(store, contract).alerts if a.kind == "trend"]
    assert len(trend) == 1 and "iterations 1–4" in trend[0].message


def test_per_dimension_changes_are_noted(store: Store, contract: Contract) -> None:
    both(store, contract, 1, judge={"correctness": 1}, radar={"craft": 1})
    both(store, contract, 2, judge={"craft": 1}, radar={"craft": 1})
    notes = run(store, contract).quality_notes
    assert "judge since iteration 1: improved correctness 1 → 2; regressed craft 2 → 1" in notes
    if "dimension_changes" in AggregateResult.model_fields:
        changes = run(store, contract).model_dump()["dimension_changes"]
        assert {(c["dimension"], c["change"]) for c in changes} == {
            ("correctness", "improved"),
            ("craft", "regressed"),
        }


# Gaming


def test_a_gamed_score_loses_twenty_percent_before_the_best_iteration_is_chosen(
    store: Store, repo: Path
) -> None:
    contract = two_evaluator_contract(store, repo, max_iterations=2)
    both(store, contract, 1, judge={"craft": 1}, radar={"craft": 1})  # 1.9 / 1.9
    both(store, contract, 2, judge={"craft": 1, "correctness": 3}, radar={"craft": 1})  # 2.25 / 1.9
    store_perturbed(store, contract, card(contract, "judge", 2, 1))  # 2.25 → 1.0: G = 0.556
    result = run(store, contract)
    assert result.delivered_iteration == 1
    assert any("gaming detected" in n and "G = 0.556" in n for n in result.quality_notes)
    assert result.scores.weighted == pytest.approx((2.25 * 0.8 + 1.9) / 2, abs=0.01)
    if "gaming" in AggregateResult.model_fields:
        assert result.model_dump()["gaming"]["judge"]["status"] == "gaming"


def test_a_suspect_score_is_noted_but_not_penalised(store: Store, contract: Contract) -> None:
    both(store, contract, 1, judge=3, radar=3)
    store_perturbed(
        store,
        contract,
        card(
            contract,
            "judge",
            1,
            {"correctness": 2, "design_quality": 2, "functionality": 3, "craft": 3, "security": 3},
        ),
    )  # 3 → 2.4
    result = run(store, contract)
    assert any("gaming suspect" in n and "G = 0.2" in n for n in result.quality_notes)
    assert result.scores.weighted == 3.0


# Proxy-true correlation


def _run(
    template: dict[str, Any], iteration: int, passed: int, failed: int
) -> tuple[Evaluation, list[EvidenceItem]]:
    doc = copy.deepcopy(template)
    doc["evaluation"].update(run_id=f"run-{iteration}", iteration=iteration, evaluator=None)
    evaluation = Evaluation.model_validate(doc["evaluation"])
    evidence = [
        EvidenceItem.model_validate({**e, "run_id": f"run-{iteration}"}) for e in doc["evidence"]
    ]
    outcomes = [
        JUnitOutcome(name=f"t{i}", outcome="passed" if i < passed else "failed")
        for i in range(passed + failed)
    ]
    evidence = [e.model_copy(update={"tests": outcomes}) if e.id == "E1" else e for e in evidence]
    return evaluation, evidence


@pytest.mark.parametrize(("correctness", "flagged"), [((3, 2, 1), True), ((1, 2, 3), False)])
def test_correctness_scores_that_do_not_follow_pass_rates_flag_the_evaluator(
    store: Store, correctness: tuple[int, int, int], flagged: bool
) -> None:
    contract = load_contract_file(CORPUS / "contract.yaml").model_copy(update={"max_iterations": 5})
    replace_contract(store, contract)
    template = json.loads((CORPUS / "run.json").read_text(encoding="utf-8"))
    for iteration, (score, passed) in enumerate(zip(correctness, (1, 5, 9), strict=True), start=1):
        evaluation, evidence = _run(template, iteration, passed, 10 - passed)
        signature = sign(store.key, evaluation, evidence)
        save_run(
            store,
            evaluation,
            evidence,
            signature=signature,
            created_at=f"2026-03-25T12:0{iteration}:00+00:00",
        )
        ran = {
            "run_id": evaluation.run_id,
            "signature": signature,
            "target": {"tree": evaluation.target.tree, "commit": evaluation.target.commit},
        }
        store_card(
            store,
            contract,
            card(contract, "judge", iteration, {"correctness": score}, failed=("AC-F-002",), **ran),
        )
        store_card(store, contract, card(contract, "ux", iteration, 3, **ran))
    alerts = [
        a
        for a in aggregate(contract.id, store=store, rubrics=RUBRICS, now=clock).alerts
        if a.kind == "recalibrate"
    ]
    assert bool(alerts) is flagged
    if flagged:
        assert alerts[0].dimension == "correctness" and alerts[0].message.startswith("judge:")
        assert "r = -1.00 over 3 scorecards" in alerts[0].message


# Storage


def test_every_aggregate_is_stored_with_its_decision(store: Store, contract: Contract) -> None:
    run(store, contract)
    both(store, contract, 1, judge={"craft": 1})
    run(store, contract)
    both(store, contract, 2, judge=3, radar=3)
    run(store, contract)
    stored = aggregates_for(store, contract.id)
    assert [(a.iteration, a.decision) for a in stored] == [
        (1, "PENDING"),
        (1, "REVISE"),
        (2, "DELIVER"),
    ]
    assert stored[1].body["revision_brief"]["iteration_to"] == 2
    assert (
        latest_brief(store, contract.id) is None
    )  # the latest decision delivered: nothing to revise


def test_two_antipatterns_of_one_kind_at_two_places_are_two_brief_issues() -> None:
    """Two tests deleted are two issues; the same one from two evaluators is one."""
    from referee.tools.aggregate.brief import issues_of, merge
    from referee.tools.aggregate.records import CardRecord

    def card(evaluator: str, *places: str) -> CardRecord:
        found = [
            {"id": "test_deleted", "evidence": f"test `{n}` was removed at {p}"}
            for n, p in zip(("TestMD5", "TestSHA1"), places, strict=False)
        ]
        return CardRecord(evaluator, 1, {"antipatterns_detected": found}, {})

    one = card("tests-judge", "hash_test.go:12", "hash_test.go:40")
    other = card("code-judge", "hash_test.go:12")
    groups = merge([*issues_of(one), *issues_of(other)])
    assert [(g.lead.location, len(g.members)) for g in groups] == [
        ("hash_test.go:12", 2),
        ("hash_test.go:40", 1),
    ]
