"""Proxy-true correlation: does an evaluator's correctness score follow the tests referee ran?

For each of an evaluator's scorecards, the proxy is its correctness score and the truth is the
test pass rate referee recorded in the matching evaluation run (the run the scorecard cites, else
the latest run of its iteration covering that evaluator). A Pearson correlation below
`MIN_CORRELATION` over at least `MIN_POINTS` scorecards flags the evaluator for recalibration.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence

from referee.tools.aggregate.history import Series
from referee.tools.aggregate.records import CardRecord
from referee.tools.models.aggregate import Alert
from referee.tools.models.contract import Contract
from referee.tools.store.runs import StoredRun

MIN_CORRELATION = 0.7
MIN_POINTS = 3
_COUNTED = ("passed", "failed", "error")


def pass_rate(run: StoredRun, contract: Contract) -> float | None:
    """Return the share of tests that passed in a run's tests checks, or None when it ran none.

    Per-test outcomes from the JUnit reports count when there are any; otherwise the share of
    tests criteria that passed.
    """
    tests_ids = {
        c.id for c in contract.all_criteria() if c.check is not None and c.check.kind == "tests"
    }
    results = [c for c in run.evaluation.criteria if c.id in tests_ids]
    outcomes = [
        t.outcome
        for c in results
        for eid in c.evidence_ids
        if (item := run.evidence.get(eid)) is not None
        for t in item.tests
        if t.outcome in _COUNTED
    ]
    if outcomes:
        return outcomes.count("passed") / len(outcomes)
    judged = [c.pass_ for c in results if c.pass_ is not None]
    return sum(judged) / len(judged) if judged else None


def matching_run(record: CardRecord, runs: Sequence[StoredRun]) -> StoredRun | None:
    """Return the run a scorecard rests on: the one it names, else the latest of its iteration."""
    if record.run_id is not None:
        return next((r for r in runs if r.run_id == record.run_id), None)
    fitting = [
        r
        for r in runs
        if r.evaluation.iteration == record.iteration
        and r.evaluation.evaluator in (record.evaluator, None)
    ]
    return fitting[-1] if fitting else None


def correctness_of(record: CardRecord) -> float | None:
    """Return the correctness score on a 0–1 scale ("correctness" or a tenpoint
    "domain.correctness")."""
    key = next(
        (k for k in record.dimensions if k == "correctness" or k.endswith(".correctness")), None
    )
    if key is None:
        return None
    scale = record.scale
    return (record.dimensions[key] - scale.low) / scale.span if scale.span else None


def pairs_for(
    history: Iterable[CardRecord], runs: Sequence[StoredRun], contract: Contract
) -> list[tuple[float, float]]:
    """Return (correctness, pass rate) for every scorecard with both."""
    pairs = []
    for record in history:
        run = matching_run(record, runs)
        proxy, truth = correctness_of(record), pass_rate(run, contract) if run is not None else None
        if proxy is not None and truth is not None:
            pairs.append((proxy, truth))
    return pairs


def pearson(pairs: Sequence[tuple[float, float]]) -> float | None:
    """Return Pearson's r, or None when it is undefined (fewer than 2 points, or a constant
    series)."""
    if len(pairs) < 2:
        return None
    try:
        return statistics.correlation([p for p, _ in pairs], [t for _, t in pairs])
    except statistics.StatisticsError:
        return None


def recalibrate_alerts(
    series: Series, runs: Sequence[StoredRun], contract: Contract
) -> list[Alert]:
    """Flag each evaluator whose correctness scores correlate below MIN_CORRELATION with the pass
    rates."""
    alerts = []
    for name, history in series.items():
        pairs = pairs_for(history, runs, contract)
        r = pearson(pairs) if len(pairs) >= MIN_POINTS else None
        if r is not None and r < MIN_CORRELATION:
            alerts.append(
                Alert(
                    kind="recalibrate",
                    dimension="correctness",
                    message=(
                        f"{name}: its correctness scores follow referee's test pass rates poorly"
                        f" (Pearson r = {r:.2f} over {len(pairs)} scorecards, expected at least"
                        f" {MIN_CORRELATION}); recalibrate its prompt against the calibration log"
                    ),
                )
            )
    return alerts
