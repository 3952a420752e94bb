"""An evaluator's history across iterations: comparability, gaming penalties, iteration scores.

Scores are compared across iterations only within a *comparable segment*: the run of an
evaluator's scorecards that share rubric version, evaluator prompt version and evaluator model
(the comparability guard). An iteration's score is the mean over its evaluators of their
normalized scores (0–100, so 0–3, unit and tenpoint cards compare), after the gaming penalty.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from referee.tools.aggregate.records import CardRecord, Versions
from referee.tools.models.common import BLOCK
from referee.tools.perturbation.copy import GAMING_PENALTY as PENALTY_SHARE
from referee.tools.perturbation.copy import gaming_indicator

GAMING_PENALTY = 1 - PENALTY_SHARE
"""A gamed score keeps 80 % of its value (a −20 % penalty)."""

GamingStatus = Literal["clean", "suspect", "gaming"]
Series = dict[str, list[CardRecord]]


def series_of(records: Iterable[CardRecord]) -> Series:
    """Group records by evaluator, each list ordered by iteration."""
    grouped: Series = {}
    for record in sorted(records, key=lambda r: r.iteration):
        grouped.setdefault(record.evaluator, []).append(record)
    return grouped


def segment(history: Sequence[CardRecord]) -> list[CardRecord]:
    """Return the tail of one evaluator's history that is comparable with its last scorecard."""
    if not history:
        return []
    last = history[-1].versions
    start = len(history)
    while start > 0 and history[start - 1].versions == last:
        start -= 1
    return list(history[start:])


@dataclass(frozen=True)
class VersionChange:
    evaluator: str
    before: CardRecord
    after: CardRecord

    def changed(self) -> list[str]:
        old, new = self.before.versions, self.after.versions
        return [
            f"{name} {getattr(old, name) or '(none)'} → {getattr(new, name) or '(none)'}"
            for name in Versions._fields
            if getattr(old, name) != getattr(new, name)
        ]


def version_changes(series: Series, iteration: int) -> list[VersionChange]:
    """Return, per evaluator, a change of versions between its previous scorecard and this
    iteration's."""
    changes = []
    for name, history in series.items():
        if (
            len(history) >= 2
            and history[-1].iteration == iteration
            and history[-1].versions != history[-2].versions
        ):
            changes.append(VersionChange(name, history[-2], history[-1]))
    return changes


@dataclass(frozen=True)
class Gaming:
    """The anti-gaming indicator G = |original − perturbed| / original for one evaluator and
    iteration."""

    evaluator: str
    iteration: int
    g: float
    original: float
    perturbed: float

    @property
    def status(self) -> GamingStatus:
        return gaming_indicator(self.original, self.perturbed).band


def gaming_checks(
    originals: Iterable[CardRecord], perturbed: Iterable[CardRecord]
) -> dict[tuple[str, int], Gaming]:
    """Pair each perturbed re-scoring with its original and compute G on weighted scores.

    Args:
        originals: Original scorecards.
        perturbed: Scorecards of the perturbed (semantically equal) copy.

    Returns:
        G by (evaluator, iteration); pairs whose original score is missing or 0 are skipped (G
        undefined).
    """
    by_key = {(r.evaluator, r.iteration): r for r in originals}
    checks = {}
    for p in perturbed:
        o = by_key.get((p.evaluator, p.iteration))
        if o is None or not o.weighted or p.weighted is None:
            continue
        g = round(gaming_indicator(o.weighted, p.weighted).g, 3)
        checks[(p.evaluator, p.iteration)] = Gaming(
            p.evaluator, p.iteration, g, o.weighted, p.weighted
        )
    return checks


@dataclass(frozen=True)
class IterationScore:
    """One iteration's score: the mean over its evaluators, gaming penalty applied."""

    iteration: int
    weighted: float | None
    normalized: float | None
    evaluators: frozenset[str]
    blocked: bool


def penalty(gaming: Mapping[tuple[str, int], Gaming], evaluator: str, iteration: int) -> float:
    """Return the factor an evaluator's score for an iteration is multiplied by (0.8 when gamed)."""
    check = gaming.get((evaluator, iteration))
    return GAMING_PENALTY if check is not None and check.status == "gaming" else 1.0


def iteration_score(
    records: Sequence[CardRecord], gaming: Mapping[tuple[str, int], Gaming]
) -> IterationScore:
    """Score one iteration from its scorecards (one per evaluator).

    The weighted mean is given only when every scorecard uses the same scale; the normalized mean
    always compares.
    """
    iteration = records[0].iteration
    factors = [penalty(gaming, r.evaluator, iteration) for r in records]
    normalized = _mean(
        [
            r.normalized * f
            for r, f in zip(records, factors, strict=True)
            if r.normalized is not None
        ]
    )
    same_scale = len({r.scale for r in records}) == 1
    weighted = _mean(
        [r.weighted * f for r, f in zip(records, factors, strict=True) if r.weighted is not None]
    )
    if not same_scale:
        weighted = None
    return IterationScore(
        iteration,
        _round(weighted),
        _round(normalized),
        frozenset(r.evaluator for r in records),
        any(r.verdict == BLOCK for r in records),
    )


def _mean(values: list[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _round(value: float | None) -> float | None:
    return round(value, 2) if value is not None else None


def comparable_iterations(series: Series, current: int) -> set[int]:
    """Return the iterations whose every scorecard is comparable with its evaluator's scorecard at
    `current`."""
    allowed: dict[str, set[int]] = {}
    for name, history in series.items():
        upto = [r for r in history if r.iteration <= current]
        if upto and upto[-1].iteration == current:
            allowed[name] = {r.iteration for r in segment(upto)}
    if not allowed:
        return set()
    return set.intersection(*allowed.values())


def iteration_scores(
    records: Iterable[CardRecord],
    evaluators: Sequence[str],
    current: int,
    gaming: Mapping[tuple[str, int], Gaming],
) -> list[IterationScore]:
    """Return the scores of complete, comparable iterations up to `current`, oldest first.

    Complete: every evaluator of the contract scored it. Comparable: no evaluator changed rubric
    version, prompt version or model between it and `current`.
    """
    by_iteration: dict[int, list[CardRecord]] = {}
    for record in records:
        if record.iteration <= current:
            by_iteration.setdefault(record.iteration, []).append(record)
    comparable = comparable_iterations(
        series_of(r for rs in by_iteration.values() for r in rs), current
    )
    scores = [
        iteration_score(rs, gaming)
        for k, rs in sorted(by_iteration.items())
        if k in comparable and {r.evaluator for r in rs} >= set(evaluators)
    ]
    return scores


def best_of(scores: Sequence[IterationScore]) -> IterationScore | None:
    """Return the best deliverable iteration: no BLOCK, highest normalized score, the later one on a
    tie."""
    candidates = [s for s in scores if not s.blocked and s.normalized is not None]
    if not candidates:
        return None
    return max(candidates, key=lambda s: (s.normalized, s.iteration))
