"""Strategic scope: where the work is heading, read from the stored history (no check runs).

For every rubric dimension: its trend over the iterations, whether it fell below its high-water
mark (a regression risk), whether it has sat at the top of the scale long enough that the criteria
no longer discriminate (saturation), and the improvement priorities of the report, each with the
evidence it rests on. The contract report shows the same assessment.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.tools.aggregate.alerts import REGRESSION_FRACTION, SATURATION_RUN
from referee.tools.models.strategy import (
    DimensionTrend,
    Direction,
    Priority,
    RegressionRisk,
    Saturation,
    StrategicAssessment,
)
from referee.tools.report.analysis import DimensionRow, PriorityRow
from referee.tools.report.data import ReportData
from referee.tools.report.history import Trends
from referee.tools.report.select import active, iterations, runs_at

__all__ = ["assess"]


def assess(
    data: ReportData, trends: Trends, rows: list[DimensionRow], ranked: list[PriorityRow]
) -> StrategicAssessment:
    """The strategic assessment of a contract report's data (and its computed sections)."""
    its = trends.iterations
    span = _span(data)
    series = [_trend(t.label, t.values, its) for t in trends.dimensions]
    ids = {row.key: row.evidence_ids for row in rows}
    return StrategicAssessment(
        contract_ref=data.contract.id,
        iterations=its,
        evaluations=len(data.runs),
        scorecards=len(active(data)),
        trends=series,
        regression_risks=[
            r for t in series if (r := _risk(t, its, span, ids.get(t.dimension, [])))
        ],
        saturation=_saturation(data),
        priorities=[_priority(p, ids.get(p.key, [])) for p in ranked],
        notes=_notes(data, its),
        report=f"report://{data.contract.id}",
    )


def _span(data: ReportData) -> float:
    scale = data.rubric.scale if data.rubric else None
    return (scale.max - scale.min) if scale else 3.0


def _trend(key: str, values: list[float | None], its: list[int]) -> DimensionTrend:
    known = [(v, i) for v, i in zip(values, its, strict=True) if v is not None]
    best = max(known, key=lambda m: (m[0], -m[1])) if known else None
    return DimensionTrend(
        dimension=key,
        values=values,
        direction=_direction([v for v, _ in known]),
        latest=known[-1][0] if known else None,
        high_water=best[0] if best else None,
        high_water_iteration=best[1] if best else None,
    )


def _direction(values: Sequence[float]) -> Direction:
    if len(values) < 2:
        return "unknown"
    before, now = values[-2], values[-1]
    if abs(now - before) < 1e-9:
        return "flat"
    return "improving" if now > before else "declining"


def _risk(
    trend: DimensionTrend, its: list[int], span: float, ids: list[str]
) -> RegressionRisk | None:
    """A dimension whose latest score fell from its high-water mark by more than the regression
    threshold (the fraction of the scale aggregate's regression alert uses)."""
    if trend.latest is None or trend.high_water is None or trend.high_water_iteration is None:
        return None
    if trend.high_water - trend.latest <= REGRESSION_FRACTION * span + 1e-9:
        return None
    latest = max(i for i, v in zip(its, trend.values, strict=True) if v is not None)
    return RegressionRisk(
        dimension=trend.dimension,
        iteration=latest,
        score=trend.latest,
        high_water=trend.high_water,
        high_water_iteration=trend.high_water_iteration,
        message=(
            f"{trend.dimension} is at {trend.latest:g}, below its high-water mark"
            f" {trend.high_water:g} (iteration {trend.high_water_iteration})"
        ),
        evidence_ids=ids,
    )


def _saturation(data: ReportData) -> list[Saturation]:
    top = data.rubric.scale.max if data.rubric else 3.0
    keys = [d.key for d in data.rubric.dimensions] if data.rubric else []
    found = []
    for key in keys:
        run = max((_run_at_top(scores, top) for scores in _evaluations(data, key)), default=0)
        if run >= SATURATION_RUN:
            found.append(
                Saturation(
                    dimension=key,
                    evaluations=run,
                    message=(
                        f"{key} has been at the top of the scale ({top:g}) for {run} evaluations:"
                        " its criteria no longer discriminate; ask for harder ones"
                    ),
                )
            )
    return found


def _evaluations(data: ReportData, key: str) -> list[list[float]]:
    """Each evaluator's scores of one dimension, in iteration order (referee's own scores when no
    scorecard scored it)."""
    per: dict[str, list[float]] = {}
    for card in sorted(active(data), key=lambda c: (c.iteration, c.id)):
        if key in card.dimensions:
            per.setdefault(card.evaluator, []).append(card.dimensions[key])
    if per:
        return list(per.values())
    derived = [
        score
        for i in iterations(data)
        for r in runs_at(data, i)
        if (d := r.dimensions.get(key)) is not None and (score := d.score) is not None
    ]
    return [derived]


def _run_at_top(scores: list[float], top: float) -> int:
    run = 0
    for score in reversed(scores):
        if score < top:
            break
        run += 1
    return run


def _priority(row: PriorityRow, ids: list[str]) -> Priority:
    return Priority(
        dimension=row.key,
        score=row.score,
        max=row.max,
        weight=row.weight,
        feasibility=row.feasibility,
        fix_kind=row.fix_kind,
        priority=row.priority,
        recommendation=row.recommendation,
        evidence=row.evidence,
        evidence_ids=ids,
    )


def _notes(data: ReportData, its: list[int]) -> list[str]:
    notes = []
    if not its:
        notes.append("nothing is stored for this contract yet: evaluate it first")
    elif len(its) == 1:
        notes.append("one iteration only: trends need at least two")
    if data.aggregate is not None and not data.aggregate.comparable:
        notes.append(
            "the latest aggregate found a change of rubric, prompt or model version: scores"
            " across it are not comparable"
        )
    return notes
