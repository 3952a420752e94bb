"""The human-facing texts of an aggregate: escalation reasons and quality notes.

These go to the person running the loop, not to the generator, so they may name hold-out criteria.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from referee.tools.aggregate.history import Gaming, IterationScore
from referee.tools.aggregate.records import CardRecord
from referee.tools.models.aggregate import DimensionChange
from referee.tools.models.common import BLOCK, REVISE

_BLOCK_BELOW = {"integer": 1.0, "unit": 0.4}


def _objects(value: object) -> list[dict[str, object]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def blocking_dimensions(record: CardRecord) -> list[tuple[str, float]]:
    """Return the dimensions scored at the blocking level (0 on 0–3, below 0.4 on unit scales)."""
    floor = _BLOCK_BELOW.get(record.scale.kind)
    if floor is None:
        return []
    return [(key, score) for key, score in record.dimensions.items() if score < floor]


def _dimension_evidence(record: CardRecord, key: str) -> str:
    dims = record.body.get("dimensions")
    entry = dims.get(key) if isinstance(dims, dict) else None
    evidence = entry.get("evidence") if isinstance(entry, dict) else None
    return f": {evidence}" if isinstance(evidence, str) and evidence.strip() else ""


def _spec_defect(record: CardRecord) -> str | None:
    defect = record.body.get("spec_defect")
    if isinstance(defect, dict) and defect.get("detected"):
        return str(defect.get("reason") or "no reason given")
    return None


def escalation_reasons(records: Sequence[CardRecord], verdicts: Mapping[str, str]) -> list[str]:
    """Why the loop stops for a human: each blocking evaluator, its 0 dimensions, spec defects,
    context.

    Args:
        records: The iteration's scorecards.
        verdicts: Every evaluator's verdict.

    Returns:
        One line per reason, blocking evaluators first, then the other verdicts for context.
    """
    reasons: list[str] = []
    for record in (r for r in records if r.verdict == BLOCK):
        reasons.append(f"{record.evaluator} returned BLOCK at iteration {record.iteration}")
        reasons += [
            f"{record.evaluator}: {key} scored {score:g}{_dimension_evidence(record, key)}"
            for key, score in blocking_dimensions(record)
        ]
        defect = _spec_defect(record)
        if defect is not None:
            reasons.append(f"{record.evaluator}: spec defect: {defect} (the contract must change)")
        summary = record.body.get("summary")
        if isinstance(summary, str) and summary.strip():
            reasons.append(f"{record.evaluator}'s summary: {summary.strip()}")
    others = [f"{name} {verdict}" for name, verdict in verdicts.items() if verdict != BLOCK]
    if others:
        reasons.append("other verdicts: " + ", ".join(others))
    return reasons


def gaming_notes(checks: Iterable[Gaming]) -> list[str]:
    """Notes for suspect and gamed scores (G ≥ 0.1)."""
    notes = []
    for c in checks:
        if c.status == "suspect":
            notes.append(
                f"{c.evaluator}: gaming suspect at iteration {c.iteration} (G = {c.g:g}:"
                f" {c.original:g} original vs {c.perturbed:g} perturbed); the score leans on"
                " formatting, review it"
            )
        elif c.status == "gaming":
            notes.append(
                f"{c.evaluator}: gaming detected at iteration {c.iteration} (G = {c.g:g}:"
                f" {c.original:g} original vs {c.perturbed:g} perturbed); its score for the"
                " iteration is reduced by 20%"
            )
    return notes


def change_notes(changes: Sequence[DimensionChange]) -> list[str]:
    """One note per evaluator: the dimensions that improved and regressed since its previous
    scorecard."""
    notes = []
    for name in dict.fromkeys(c.evaluator for c in changes):
        mine = [c for c in changes if c.evaluator == name]
        parts = [
            f"{kind} "
            + ", ".join(
                f"{c.dimension} {c.before:g} → {c.after:g}" for c in mine if c.change == kind
            )
            for kind in ("improved", "regressed")
            if any(c.change == kind for c in mine)
        ]
        notes.append(f"{name} since iteration {mine[0].from_iteration}: " + "; ".join(parts))
    return notes


def bound_notes(
    delivered: IterationScore, last: IterationScore | None, records: Sequence[CardRecord]
) -> list[str]:
    """What the person should know when the bound forces delivery: which iteration, and what still
    fails.

    Args:
        delivered: The best iteration's score.
        last: The last iteration's score, when it differs from the delivered one.
        records: The delivered iteration's scorecards.

    Returns:
        The notes.
    """
    notes = [
        f"delivered iteration {delivered.iteration} (score {delivered.normalized:g}/100), the best"
        " of the retained iterations"
    ]
    if last is not None and last.iteration != delivered.iteration:
        notes.append(
            f"the last iteration {last.iteration} scored lower ({last.normalized:g}/100) and is not"
            " delivered"
        )
    asking = [r.evaluator for r in records if r.verdict == REVISE]
    if asking:
        notes.append(f"in iteration {delivered.iteration}, {', '.join(asking)} asked for revision")
    failed = [
        f"{c.get('id')} ({r.evaluator})"
        for r in records
        for c in _objects(r.body.get("criteria"))
        if c.get("pass") is False
    ]
    if failed:
        notes.append("still failing: " + ", ".join(failed))
    open_issues = [
        f"[{i.get('severity')}] {i.get('description')} ({r.evaluator})"
        for r in records
        for i in _objects(r.body.get("issues"))
        if i.get("severity") in ("CRITICAL", "HIGH")
    ]
    notes += [f"open issue: {text}" for text in open_issues]
    return notes
