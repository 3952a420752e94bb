"""The loop's budget: what each iteration cost, the total, and the solo baseline.

The loop costs many times a solo attempt's time and money, and is worth it only beyond what the
model does reliably alone; so every decision carries what the loop has cost so far and what its
first iteration (the solo attempt) already achieved. Seconds come from referee's own records:
each run's duration (the checks), the time from each run to its judge's card (the client's
judging call, the last card of the run), and the generator's time as the client reports it, else
from the previous decision (or the contract's creation) to the iteration's first run. Tokens and
money exist only where the client reports them: a card's `usage` (its judge), aggregate's
`usage` (the generator). Canary runs and their cards are the judge's measurement, not the loop's
work: they are left out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from referee.tools.models.budget import Budget, IterationCost
from referee.tools.models.contract import Contract
from referee.tools.store import Store, StoredRun, StoredScorecard, load_contract, scorecards_for
from referee.tools.store.aggregates import aggregates_for
from referee.tools.store.budget import first_iteration_deliveries, usage_for
from referee.tools.store.canaries import real_runs
from referee.tools.store.contracts import contract_ids
from referee.tools.text import counted

__all__ = ["OVERHEAD_STREAK", "loop_budget"]

# How many contracts of one kind in a row must deliver their first iteration for the note.
OVERHEAD_STREAK = 3


def loop_budget(store: Store, contract: Contract, upto: int, decision: str) -> Budget:
    """The cost of iterations 1…`upto` and the solo baseline (`decision`: the one being made
    for `upto`, not stored yet)."""
    runs = [r for r in real_runs(store, contract.id) if r.evaluation.iteration <= upto]
    cards = [c for c in scorecards_for(store, contract.id, history=True) if c.iteration <= upto]
    generator = usage_for(store, contract.id, "generator")
    anchors = _anchors(store, contract)
    iterations = sorted({r.evaluation.iteration for r in runs})
    costs = [_iteration(n, runs, cards, generator.get(n, {}), anchors) for n in iterations]
    passed, judged = _solo(runs, cards, contract)
    return Budget(
        iterations=costs,
        total=_total(costs) if costs else None,
        solo_passed=passed,
        solo_criteria=judged,
        solo=f"the solo attempt already passed {passed} of"
        f" {counted(judged, 'criterion', 'criteria')}"
        if judged
        else "",
        note=_overhead(store, contract, decision if upto == 1 else None),
    )


def _time(text: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(text) if text else None
    except ValueError:
        return None


def _seconds(start: datetime | None, end: datetime | None) -> float:
    if start is None or end is None:
        return 0.0
    return max(0.0, round((end - start).total_seconds(), 3))


def _anchors(store: Store, contract: Contract) -> dict[int, datetime | None]:
    """When the generator's work for each iteration began: the previous decision, else the
    contract's creation (iteration 1)."""
    found: dict[int, datetime | None] = {1: _time(contract.created_at)}
    for stored in aggregates_for(store, contract.id):
        found[stored.iteration + 1] = _time(stored.created_at)
    return found


def _ran_at(run: StoredRun) -> datetime | None:
    return _time(run.evaluation.draft_scorecard.timestamp)


def _iteration(
    number: int,
    runs: Sequence[StoredRun],
    cards: Sequence[StoredScorecard],
    reported: Mapping[str, Any],
    anchors: Mapping[int, datetime | None],
) -> IterationCost:
    mine = [r for r in runs if r.evaluation.iteration == number]
    checks = round(sum(r.evaluation.duration_s for r in mine), 3)
    last = _last_cards(c for c in cards if c.iteration == number)
    when: dict[str | None, datetime | None] = {r.run_id: _ran_at(r) for r in mine}
    spans = [_seconds(when.get(c.run_id), _time(c.stored_at)) for c in last]
    judging = round(sum(spans), 3)
    generator = reported.get("seconds")
    if generator is None:
        first = min((t for t in when.values() if t is not None), default=None)
        start = anchors.get(number)
        generator = _seconds(start, first) if start and first else None
    usages = [u for u in (_usage(c) for c in last) if u] + ([dict(reported)] if reported else [])
    return IterationCost(
        iteration=number,
        checks_s=checks,
        judging_s=judging,
        generator_s=generator,
        wall_s=round(checks + judging + (generator or 0.0), 3),
        tokens=_summed(usages, "tokens"),
        cost_usd=_summed(usages, "cost_usd"),
    )


def _last_cards(cards: Iterable[StoredScorecard]) -> list[StoredScorecard]:
    """The last card of each run: a resubmission corrects a card, it is not more judging."""
    last: dict[str | None, StoredScorecard] = {}
    for card in sorted(cards, key=lambda c: c.id):
        last[card.run_id or f"#{card.id}"] = card
    return list(last.values())


def _usage(card: StoredScorecard) -> dict[str, Any] | None:
    usage = card.body.get("usage")
    return usage if isinstance(usage, dict) else None


def _summed(usages: Sequence[Mapping[str, Any]], key: str) -> Any:
    values = [u[key] for u in usages if isinstance(u.get(key), int | float)]
    return (round(sum(values), 6) if key == "cost_usd" else sum(values)) if values else None


def _total(costs: Sequence[IterationCost]) -> IterationCost:
    def add(values: Iterable[float | int | None]) -> Any:
        known = [v for v in values if v is not None]
        return round(sum(known), 6) if known else None

    return IterationCost(
        iteration=0,
        checks_s=round(sum(c.checks_s for c in costs), 3),
        judging_s=round(sum(c.judging_s for c in costs), 3),
        generator_s=add(c.generator_s for c in costs),
        wall_s=round(sum(c.wall_s for c in costs), 3),
        tokens=add(c.tokens for c in costs),
        cost_usd=add(c.cost_usd for c in costs),
    )


def _solo(
    runs: Sequence[StoredRun], cards: Sequence[StoredScorecard], contract: Contract
) -> tuple[int, int]:
    """Criteria the first iteration passed, by its judges' latest cards (referee's own runs where
    no card judged a criterion), of every criterion of the contract."""
    verdicts: dict[str, bool] = defaultdict(bool)
    for run in (r for r in runs if r.evaluation.iteration == 1):
        for c in run.evaluation.criteria:
            verdicts[c.id] |= c.pass_ is True
    for card in (c for c in cards if c.iteration == 1 and c.superseded_by is None):
        items = card.body.get("criteria")
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                verdicts[item["id"]] = item.get("pass") is True
    ids = [c.id for c in contract.all_criteria()]
    if not any(i in verdicts for i in ids):
        return 0, 0
    return sum(verdicts.get(i, False) for i in ids), len(ids)


def _overhead(store: Store, contract: Contract, first: str | None) -> str | None:
    """The note when the last contracts of this kind all delivered their first iteration."""
    delivered = first_iteration_deliveries(store)
    if first is not None and first != "PENDING":
        delivered[contract.id] = first == "DELIVER"
    kind = [
        c
        for c in (load_contract(store, i) for i in contract_ids(store) if i in delivered)
        if c.rubric_ref == contract.rubric_ref
    ]
    recent = [delivered[c.id] for c in kind[-OVERHEAD_STREAK:]]
    if len(recent) < OVERHEAD_STREAK or not all(recent):
        return None
    return (
        f"the last {OVERHEAD_STREAK} {contract.rubric_ref} contracts delivered their first"
        " iteration: for this kind of task the loop may be overhead (a solo attempt with"
        " referee's checks may do)"
    )
