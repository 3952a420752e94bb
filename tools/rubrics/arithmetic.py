"""The arithmetic of rubrics: weighted and normalized scores, verdicts, health bands, selection.

The verdict rule lives here once: `verdict_for` reads the dimension scores, and `final_verdict`
applies what a scorecard or an evaluation adds (failed criteria, antipatterns, a spec defect).
Both evaluate's derivation and validate_scorecard's arithmetic call them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from referee.tools.models.common import ACCEPT, BLOCK, REVISE, HealthBand, Verdict
from referee.tools.models.rubric import Rubric, Scale

__all__ = [
    "compute_weighted",
    "final_verdict",
    "health_band",
    "level_key",
    "normalized",
    "select_rubric",
    "verdict_for",
    "verdict_of_values",
    "weighted_of",
]

DECIMALS = {"integer": 2, "unit": 3}
# A dimension below the first floor blocks; below the second it asks for a revision.
_VERDICT_FLOORS = {"integer": (1.0, 2.0), "unit": (0.4, 0.6)}
_BANDS: tuple[tuple[float, HealthBand], ...] = (
    (0.8, "STRONG"),
    (0.6, "ADEQUATE"),
    (0.4, "NEEDS_WORK"),
)
_SELECTION = {"bug": "BUG_FIX", "security": "SECURITY"}


def level_key(scale: Scale, level: float) -> str:
    """Return the key under which a dimension defines `level`: "2" on integer scales, "0.4" on unit
    ones.

    Args:
        scale: The rubric's scale.
        level: A level of that scale.

    Returns:
        The canonical string key.
    """
    if scale.kind == "integer" and float(level).is_integer():
        return str(int(level))
    return str(float(level))


def select_rubric(task_type: str, has_ui: bool) -> str:
    """Choose the rubric for a task when the contract names none.

    Args:
        task_type: feature, bug, security or other (case-insensitive).
        has_ui: Whether the task changes a user interface (only matters for features).

    Returns:
        FEATURE_UI, FEATURE_BACKEND, BUG_FIX or SECURITY; anything unrecognised gets
        FEATURE_BACKEND.
    """
    kind = task_type.strip().lower()
    if kind == "feature":
        return "FEATURE_UI" if has_ui else "FEATURE_BACKEND"
    return _SELECTION.get(kind, "FEATURE_BACKEND")


def compute_weighted(rubric: Rubric, scores: Mapping[str, float]) -> float:
    """Return Σ score × weight over the rubric's dimensions.

    Args:
        rubric: The rubric whose weights apply.
        scores: A score for every dimension key; keys the rubric does not have are ignored.

    Returns:
        The weighted score, rounded to 2 decimals on integer scales and 3 on unit scales.

    Raises:
        ValueError: A dimension of the rubric has no score.
    """
    missing = [d.key for d in rubric.dimensions if d.key not in scores]
    if missing:
        raise ValueError(f"rubric {rubric.name} needs a score for: {', '.join(missing)}")
    return weighted_of(rubric.scale.kind, rubric.weights(), scores)


def weighted_of(kind: str, weights: Mapping[str, float], scores: Mapping[str, float]) -> float:
    return round(math.fsum(scores[key] * weight for key, weight in weights.items()), DECIMALS[kind])


def verdict_for(rubric: Rubric, scores: Mapping[str, float]) -> Verdict:
    """Return the verdict that dimension scores give, before criteria and antipatterns are
    considered.

    On a 0–3 scale any 0 blocks and any 1 asks for a revision. On a unit scale any dimension
    below 0.4 blocks and any below 0.6 asks for a revision. Otherwise the work is accepted.

    Args:
        rubric: The rubric the scores belong to.
        scores: Scores by dimension key; keys the rubric does not have are ignored.

    Returns:
        ACCEPT, REVISE or BLOCK.
    """
    return verdict_of_values(
        rubric.scale.kind, [scores[d.key] for d in rubric.dimensions if d.key in scores]
    )


def verdict_of_values(kind: str, values: Iterable[float]) -> Verdict:
    block_below, revise_below = _VERDICT_FLOORS[kind]
    values = list(values)
    if any(v < block_below for v in values):
        return BLOCK
    if any(v < revise_below for v in values):
        return REVISE
    return ACCEPT


def health_band(composite: float) -> HealthBand:
    """Return the health band of a unit-scale composite.

    >= 0.8 STRONG, >= 0.6 ADEQUATE, >= 0.4 NEEDS_WORK, below that CRITICAL.

    Args:
        composite: A weighted score between 0.0 and 1.0.

    Returns:
        STRONG, ADEQUATE, NEEDS_WORK or CRITICAL.
    """
    value = round(composite, 9)  # 0.7999999999 from float sums is 0.8
    return next((band for floor, band in _BANDS if value >= floor), "CRITICAL")


def normalized(rubric: Rubric, weighted: float) -> float:
    """Return a weighted score on a 0–100 scale (0–3: weighted / 3 × 100; unit: weighted × 100).

    Args:
        rubric: The rubric the score was computed with.
        weighted: Its weighted score.

    Returns:
        The normalized score, rounded to 2 decimals.
    """
    return round(weighted / rubric.scale.max * 100, 2)


def final_verdict(
    base: Verdict | None, *, failed_criteria: bool, antipatterns: bool, spec_defect: bool = False
) -> Verdict | None:
    """Return the verdict once criteria, antipatterns and a spec defect are taken into account.

    A spec defect blocks whatever the scores say (the contract must change). A criterion that
    fails, or a detected antipattern, turns an ACCEPT into a REVISE: a contract criterion that
    fails can never be accepted.

    Args:
        base: The verdict of the dimension scores alone (None when they are not all known).
        failed_criteria: Some criterion did not pass.
        antipatterns: Some antipattern was detected.
        spec_defect: The evaluator reported a defect in the contract itself.

    Returns:
        ACCEPT, REVISE or BLOCK, or None when `base` is None and nothing blocks.
    """
    if spec_defect:
        return BLOCK
    if base == ACCEPT and (failed_criteria or antipatterns):
        return REVISE
    return base
