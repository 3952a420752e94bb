"""The calibration log: human verdicts on stored scorecards, agreement and Cohen's kappa per prompt
version."""

from __future__ import annotations

from pathlib import Path

import pytest
from aggregate_cards import card, clock, store_card, two_evaluator_contract

from referee.tools.calibration import calibration_report, cohen_kappa, record_human_verdict
from referee.tools.errors import InvalidInput, NotFound
from referee.tools.models import Contract
from referee.tools.store import Store


@pytest.fixture
def store(repo: Path, store_url: str | None) -> Store:
    return Store(repo / ".referee", url=store_url)


@pytest.fixture
def contract(store: Store, repo: Path) -> Contract:
    return two_evaluator_contract(store, repo, max_iterations=5)


def test_a_human_verdict_is_logged_next_to_the_evaluators(store: Store, contract: Contract) -> None:
    ident = store_card(store, contract, card(contract, "judge", 1, {"craft": 1}))
    record = record_human_verdict(
        ident, "accept", "the long function is generated code", store=store, now=clock
    )
    assert (record.scorecard_id, record.evaluator, record.iteration) == (ident, "judge", 1)
    assert (record.evaluator_verdict, record.human_verdict, record.agrees) == (
        "REVISE",
        "ACCEPT",
        False,
    )
    assert record.evaluator_prompt_version == contract.evaluator_prompt_version
    assert record.note == "the long function is generated code" and record.created_at.startswith(
        "2026-03-25"
    )


def test_an_unknown_scorecard_is_not_found(store: Store) -> None:
    with pytest.raises(NotFound) as exc:
        record_human_verdict(999, "ACCEPT", "", store=store, now=clock)
    assert exc.value.as_problem().path == "/scorecard_id"


def test_a_verdict_outside_the_three_is_invalid_input(store: Store, contract: Contract) -> None:
    ident = store_card(store, contract, card(contract, "judge", 1))
    with pytest.raises(InvalidInput) as exc:
        record_human_verdict(ident, "MAYBE", "", store=store, now=clock)
    assert [p.path for p in exc.value.problems] == ["/verdict"]


def test_kappa_corrects_agreement_for_chance() -> None:
    ratings = (
        [("ACCEPT", "ACCEPT")] * 4
        + [("REVISE", "REVISE")] * 3
        + [("ACCEPT", "REVISE"), ("REVISE", "ACCEPT"), ("REVISE", "REVISE")]
    )
    # p_o = 0.8; evaluator 5 ACCEPT / 5 REVISE, human 5 / 5: p_e = 0.5; kappa = 0.6
    assert cohen_kappa(ratings) == (0.6, None)
    assert cohen_kappa([("ACCEPT", "REVISE"), ("REVISE", "ACCEPT")]) == (-1.0, None)


def test_kappa_is_undefined_when_everything_got_one_verdict() -> None:
    kappa, note = cohen_kappa([("ACCEPT", "ACCEPT")] * 3)
    assert kappa is None and note is not None and "undefined" in note


def test_the_report_groups_agreement_by_evaluator_prompt_version(
    store: Store, contract: Contract
) -> None:
    verdicts = {
        1: ({"craft": 1}, "REVISE"),
        2: (3, "ACCEPT"),
        3: (3, "REVISE"),
        4: ({"craft": 1}, "REVISE"),
    }
    for iteration, (scores, human) in verdicts.items():
        ident = store_card(store, contract, card(contract, "judge", iteration, scores))
        record_human_verdict(ident, human, "", store=store, now=clock)
    ident = store_card(store, contract, card(contract, "radar", 1, 3, prompt="v2"))
    record_human_verdict(ident, "ACCEPT", "", store=store, now=clock)
    report = calibration_report(store, contract.id)
    assert (
        report.contract_ref == contract.id
        and report.overall is not None
        and report.overall.count == 5
    )
    by_version = {v.evaluator_prompt_version: v for v in report.versions}
    v1 = by_version[contract.evaluator_prompt_version]
    assert (v1.count, v1.agreements, v1.agreement_rate) == (4, 3, 0.75)
    assert v1.kappa == 0.5 and set(v1.evaluators) == {"judge"}
    v2 = by_version["v2"]
    assert (v2.count, v2.kappa) == (1, None) and v2.kappa_note is not None


def test_the_latest_human_verdict_on_a_scorecard_counts(store: Store, contract: Contract) -> None:
    ident = store_card(store, contract, card(contract, "judge", 1, 3))
    record_human_verdict(ident, "REVISE", "first look", store=store, now=clock)
    record_human_verdict(ident, "ACCEPT", "on reflection", store=store, now=clock)
    overall = calibration_report(store).overall
    assert overall is not None and (overall.count, overall.agreements) == (1, 1)


def test_the_report_of_another_contract_is_empty(
    store: Store, contract: Contract, repo: Path
) -> None:
    other = two_evaluator_contract(store, repo)
    record_human_verdict(
        store_card(store, contract, card(contract, "judge", 1)),
        "ACCEPT",
        "",
        store=store,
        now=clock,
    )
    report = calibration_report(store, other.id)
    assert report.overall is None and report.versions == []
