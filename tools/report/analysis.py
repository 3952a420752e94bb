"""Report sections about the current state: summary, dimensions, improvement priorities,
anti-gaming, alerts.

Improvement priority: for each rubric dimension below the top of the scale,
priority = (1 − score / max) × weight × feasibility. Feasibility reflects how mechanical the fix is,
judged from where the dimension's shortfall comes from in the latest referee run:
- 0.9 when deterministic static findings lowered it (the finding names the file and line);
- 0.8 when failing checks lowered it (tests, commands, browser: a failing test is a precise target);
- 0.6 when only judgement put it below the top (the fix has to be worked out first).
The score used is the mean of the evaluators' latest scores, or referee's own score when no
scorecard is stored.
"""

from __future__ import annotations

from pydantic import Field

from referee.tools.models.common import Model
from referee.tools.models.evaluation import DimensionResult, Evaluation
from referee.tools.perturbation.copy import GamingBand, gaming_indicator
from referee.tools.report.data import ReportData
from referee.tools.report.select import (
    active,
    card_normalized,
    clip,
    evaluators,
    evidence_tools,
    latest_cards,
    latest_iteration,
    latest_run,
    mean,
    scale_max,
)
from referee.tools.rubrics import level_key
from referee.tools.text import counted

FEASIBILITY = {"static": 0.9, "tests": 0.8, "judgment": 0.6}
_BAND_ORDER: dict[str, int] = {"clean": 0, "suspect": 1, "gaming": 2}
_FAILING_TOOLS = {"tests", "command", "browser"}


class HealthSummary(Model):
    run_id: str
    composite: float
    band: str
    dimensions: dict[str, float]


class Summary(Model):
    kind: str
    subject: str
    contract_id: str
    goal: str
    rubric: str
    iteration: int | None
    max_iterations: int
    decision: str | None = None
    decision_iteration: int | None = None
    reason: str = ""
    verdicts: dict[str, str] = Field(
        default_factory=dict, description="Each evaluator's latest verdict"
    )
    weighted: float | None = None
    normalized: float | None = None
    score_source: str = ""
    health: HealthSummary | None = None
    gaming: str = "not run"
    isolation: str = Field(default="no run yet", description="What the latest run's checks ran in")


class DimensionRow(Model):
    key: str
    name: str
    weight: float | None
    scores: dict[str, float | None] = Field(description="Latest score per evaluator")
    referee: float | None = Field(description="referee's own score in the latest run")
    source: str
    confidence: float | None
    finding: str
    evidence_ids: list[str]

    @property
    def current(self) -> float | None:
        found = [s for s in self.scores.values() if s is not None]
        return mean(found) if found else self.referee


class PriorityRow(Model):
    key: str
    name: str
    score: float
    max: float
    weight: float
    feasibility: float
    fix_kind: str = Field(description="static · tests · judgment")
    priority: float
    recommendation: str
    evidence: str


class GamingRow(Model):
    evaluator: str
    iteration: int
    original: float
    perturbed: float
    g: float
    band: GamingBand
    penalty: float
    adjusted: float


class PerturbationRow(Model):
    run_id: str
    path: str
    files: int
    transforms: list[str]
    semantics_kept: bool | None


class AlertRow(Model):
    kind: str
    dimension: str | None
    message: str


def summary(data: ReportData, gaming_rows: list[GamingRow]) -> Summary:
    """The headline: decision, iteration, scores, PROJECT_HEALTH and the gaming check."""
    weighted, normalized, source = _scores(data)
    rubric = (
        f"{data.rubric.name} {data.rubric.version}" if data.rubric else data.contract.rubric_ref
    )
    agg = data.aggregate
    return Summary(
        kind=data.kind,
        subject=data.subject,
        contract_id=data.contract.id,
        goal=data.contract.goal,
        rubric=rubric,
        iteration=latest_iteration(data),
        max_iterations=data.contract.max_iterations,
        decision=agg.decision if agg else None,
        decision_iteration=agg.iteration if agg else None,
        reason=agg.reason if agg else "",
        verdicts={
            e: f"{c.verdict or '—'} (iteration {c.iteration})"
            for e, c in latest_cards(data).items()
        },
        weighted=weighted,
        normalized=normalized,
        score_source=source,
        health=_health(data),
        gaming=_worst_band(gaming_rows),
        isolation=_isolation(data),
    )


def _isolation(data: ReportData) -> str:
    if not data.runs:
        return "no run yet"
    run = data.runs[-1]
    if run.sandbox == "none":
        return (
            f"NO SANDBOX ({run.isolation}): the checks of run {run.run_id} ran on the machine "
            "itself, where the code under test could reach anything the user can"
        )
    return f"{run.sandbox} sandbox ({run.isolation}) in run {run.run_id}"


def _scores(data: ReportData) -> tuple[float | None, float | None, str]:
    agg = data.aggregate
    if agg is not None and agg.scores.weighted is not None:
        return agg.scores.weighted, agg.scores.normalized, f"aggregate of iteration {agg.iteration}"
    return _card_scores(data) or _run_scores(data)


def _card_scores(data: ReportData) -> tuple[float | None, float | None, str] | None:
    iteration = latest_iteration(data)
    cards = [c for c in active(data, iteration=iteration) if c.weighted_score is not None]
    if not cards:
        return None
    normals = [n for c in cards if (n := card_normalized(c)) is not None]
    # Weighted scores on different scales (0–3 and tenpoint cards) have no meaningful mean.
    same_scale = len({c.scale_max for c in cards}) == 1
    weighted = (
        mean([c.weighted_score for c in cards if c.weighted_score is not None])
        if same_scale
        else None
    )
    return (
        weighted,
        mean(normals),
        f"mean of {counted(len(cards), 'scorecard')} of iteration {iteration}",
    )


def _run_scores(data: ReportData) -> tuple[float | None, float | None, str]:
    run = next((r for r in reversed(data.runs) if r.weighted_score is not None), None)
    if run is None or run.weighted_score is None:
        return None, None, "no score yet"
    return (
        run.weighted_score,
        round(run.weighted_score / scale_max(data) * 100, 2),
        f"referee run {run.run_id}",
    )


def _health(data: ReportData) -> HealthSummary | None:
    run = next((r for r in reversed(data.runs) if r.project_health is not None), None)
    if run is None or run.project_health is None:
        return None
    health = run.project_health
    return HealthSummary(
        run_id=run.run_id,
        composite=health.composite,
        band=health.band,
        dimensions={k: d.score for k, d in health.dimensions.items()},
    )


def _worst_band(rows: list[GamingRow]) -> str:
    if not rows:
        return "not run"
    latest = max(r.iteration for r in rows)
    return max((r.band for r in rows if r.iteration == latest), key=lambda b: _BAND_ORDER[b])


def dimensions(data: ReportData) -> list[DimensionRow]:
    """Per rubric dimension: each evaluator's latest score, referee's own score and the key
    finding."""
    run, cards = latest_run(data), latest_cards(data)
    keys = [d.key for d in data.rubric.dimensions] if data.rubric else _keys(data)
    rows = []
    for key in keys:
        derived = run.dimensions.get(key) if run else None
        spec = data.rubric.dimension(key) if data.rubric else None
        texts = [c.dimension_text(key, "evidence") for c in cards.values()]
        rows.append(
            DimensionRow(
                key=key,
                name=spec.name if spec else key,
                weight=spec.weight if spec else None,
                scores={
                    e: cards[e].dimensions.get(key) if e in cards else None
                    for e in evaluators(data)
                },
                referee=derived.score if derived else None,
                source=derived.source if derived else "judgment",
                confidence=derived.confidence if derived and derived.score is not None else None,
                finding=clip(next((t for t in texts if t), derived.evidence if derived else "")),
                evidence_ids=_dimension_ids(key, derived, data),
            )
        )
    return rows


def _keys(data: ReportData) -> list[str]:
    run = latest_run(data)
    found = list(run.dimensions) if run else []
    return found + sorted({k for c in data.scorecards for k in c.dimensions} - set(found))


def _dimension_ids(key: str, derived: DimensionResult | None, data: ReportData) -> list[str]:
    ids = list(derived.evidence_ids) if derived else []
    for card in latest_cards(data).values():
        entry = (card.body.get("dimensions") or {}).get(key)
        if isinstance(entry, dict):
            ids += entry.get("evidence_ids") or []
    return list(dict.fromkeys(str(i) for i in ids))


def priorities(data: ReportData, rows: list[DimensionRow]) -> list[PriorityRow]:
    """Dimensions below the top of the scale, ranked by (1 − score/max) × weight × feasibility."""
    top, run = scale_max(data), latest_run(data)
    found = []
    for row in rows:
        score = row.current
        if score is None or row.weight is None or score >= top:
            continue
        kind = fix_kind(run.dimensions.get(row.key) if run else None, run, top)
        feasibility = FEASIBILITY[kind]
        found.append(
            PriorityRow(
                key=row.key,
                name=row.name,
                score=score,
                max=top,
                weight=row.weight,
                feasibility=feasibility,
                fix_kind=kind,
                priority=round((1 - score / top) * row.weight * feasibility, 4),
                recommendation=_recommendation(data, row, kind, run, score),
                evidence=_evidence(row),
            )
        )
    return sorted(found, key=lambda p: (-p.priority, p.key))


def fix_kind(derived: DimensionResult | None, run: Evaluation | None, top: float) -> str:
    """static, tests or judgment: what lowered the dimension in referee's own evidence."""
    if (
        derived is None
        or derived.source != "deterministic"
        or derived.score is None
        or derived.score >= top
    ):
        return "judgment"
    tools = {evidence_tools(run).get(i) for i in derived.evidence_ids}
    if "static" in tools:
        return "static"
    return "tests" if tools & _FAILING_TOOLS else "judgment"


def _recommendation(
    data: ReportData, row: DimensionRow, kind: str, run: Evaluation | None, score: float
) -> str:
    cards = sorted(latest_cards(data).values(), key=lambda c: c.dimensions.get(row.key, 99))
    advice = next((t for c in cards if (t := c.dimension_text(row.key, "recommendation"))), "")
    if not advice and run is not None and kind != "judgment":
        ids = set(row.evidence_ids)
        advice = (
            next(
                (i.suggestion for i in run.issues if i.suggestion and ids & set(i.evidence_ids)),
                None,
            )
            or ""
        )
    return clip(advice or _next_level(data, row.key, score))


def _next_level(data: ReportData, key: str, score: float) -> str:
    spec = data.rubric.dimension(key) if data.rubric else None
    if spec is None or data.rubric is None:
        return "raise this dimension (no rubric guidance available)"
    scale = data.rubric.scale
    level = next((lv for lv in sorted(scale.levels) if lv > score), scale.max)
    return f"reach level {level:g}: {spec.levels.get(level_key(scale, level), spec.description)}"


def _evidence(row: DimensionRow) -> str:
    ids = ids_text(row.evidence_ids)
    return clip(f"{row.finding} [{ids}]" if ids else row.finding, 200)


def ids_text(ids: list[str], shown: int = 6) -> str:
    """Evidence ids for a table cell: the first `shown`, then how many more."""
    text = ", ".join(ids[:shown])
    return text + (f" (+{len(ids) - shown} more)" if len(ids) > shown else "")


def gaming(data: ReportData) -> list[GamingRow]:
    """G for each perturbed scorecard that has an original from the same evaluator and iteration."""
    originals = {(c.evaluator, c.iteration): c for c in active(data)}
    rows = []
    for card in active(data, variant="perturbed"):
        original = originals.get((card.evaluator, card.iteration))
        if original is None or original.weighted_score is None or card.weighted_score is None:
            continue
        check = gaming_indicator(original.weighted_score, card.weighted_score)
        rows.append(
            GamingRow(evaluator=card.evaluator, iteration=card.iteration, **check.model_dump())
        )
    return sorted(rows, key=lambda r: (r.iteration, r.evaluator))


def perturbations(data: ReportData) -> list[PerturbationRow]:
    """The perturbed copies referee offered (depth deep)."""
    return [
        PerturbationRow(
            run_id=r.run_id,
            path=r.perturbation.path,
            files=len(r.perturbation.files),
            transforms=r.perturbation.transforms,
            semantics_kept=r.perturbation.semantics_kept,
        )
        for r in data.runs
        if r.perturbation is not None
    ]


def alerts(data: ReportData) -> list[AlertRow]:
    """The latest aggregate's alerts (regression, saturation, trend, comparability)."""
    agg = data.aggregate
    if agg is None:
        return []
    rows = [AlertRow(kind=a.kind, dimension=a.dimension, message=a.message) for a in agg.alerts]
    if not agg.comparable and not any(a.kind == "not_comparable" for a in agg.alerts):
        rows.append(
            AlertRow(
                kind="not_comparable",
                dimension=None,
                message="scores of different rubric, prompt or model versions are not compared",
            )
        )
    return rows
