"""The arithmetic of a scorecard: weighted score, normalized score, verdict.

Computed from whatever parts of the scorecard are usable, so an invalid scorecard still gets
as much of `computed` as can be known.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from referee.tools.errors import Problem
from referee.tools.models.common import ACCEPT, BLOCK, REVISE, Verdict
from referee.tools.models.validation import Computed
from referee.tools.rubrics import compute_weighted, final_verdict, normalized, verdict_for
from referee.tools.validate_scorecard.card import (
    Card,
    below_threshold,
    detected_antipatterns,
    failed_criteria,
    is_number,
    scored_dimensions,
    spec_defect,
)

TOLERANCE = 0.01
_EPSILON = 1e-9
_VERDICTS = (ACCEPT, REVISE, BLOCK)


@dataclass(frozen=True)
class Arithmetic:
    """The computed scores, the dimension scores they rest on, and why the verdict is what it is."""

    computed: Computed
    dimensions: dict[str, float] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)


def compute(card: Card) -> Arithmetic:
    """Compute a scorecard's weighted score, normalized score and verdict.

    Canonical: Σ score × weight on the rubric's dimensions; any 0 blocks, any 1 asks for a
    revision (unit scales: below 0.4 / 0.6). Tenpoint: the mean of every scored dimension; a
    dimension below its threshold asks for a revision. Both: a failed criterion or a detected
    antipattern turns ACCEPT into REVISE, and a spec defect blocks.

    Args:
        card: The scorecard.

    Returns:
        The computed values (None where they cannot be known) and the reasons of the verdict.
    """
    dims = {d.key: d.score for d in scored_dimensions(card)}
    if card.format == "tenpoint":
        weighted = round(math.fsum(dims.values()) / len(dims), 2) if dims else None
        scaled = round(weighted * 10, 2) if weighted is not None else None
        weak = any(below_threshold(card, d) for d in scored_dimensions(card))
        base: Verdict | None = REVISE if weak else ACCEPT
    else:
        weighted, scaled, base = _canonical(card, dims)
    verdict = _overall(card, base)
    return Arithmetic(
        Computed(weighted_score=weighted, normalized=scaled, verdict=verdict), dims, _reasons(card)
    )


def _canonical(
    card: Card, dims: dict[str, float]
) -> tuple[float | None, float | None, Verdict | None]:
    rubric = card.rubric
    if rubric is None:
        return None, None, None
    scores = {key: dims[key] for key in rubric.weights() if key in dims}
    base = verdict_for(rubric, scores) if scores else None
    if len(scores) < len(rubric.dimensions):
        return None, None, base
    weighted = compute_weighted(rubric, scores)
    return weighted, normalized(rubric, weighted), base


def _overall(card: Card, base: Verdict | None) -> Verdict | None:
    return final_verdict(
        base,
        failed_criteria=bool(failed_criteria(card)),
        antipatterns=bool(detected_antipatterns(card)),
        spec_defect=spec_defect(card),
    )


def _reasons(card: Card) -> list[str]:
    reasons = ["spec_defect is set"] if spec_defect(card) else []
    weak = [d for d in scored_dimensions(card) if below_threshold(card, d)]
    reasons += [f"{d.key} scored {d.score:g}" for d in weak]
    reasons += [f"criterion {ident} failed" for ident in failed_criteria(card)]
    reasons += [f"antipattern {ident} was detected" for ident in detected_antipatterns(card)]
    return reasons


def arithmetic_problems(card: Card, result: Arithmetic) -> list[Problem]:
    """Return the disagreements between stated and computed values.

    Args:
        card: The scorecard.
        result: Its computed arithmetic.

    Returns:
        weighted_score_mismatch and verdict_mismatch problems.
    """
    computed = result.computed
    problems = []
    stated = card.data.get("weighted_score")
    if (
        is_number(stated)
        and computed.weighted_score is not None
        and abs(stated - computed.weighted_score) > TOLERANCE + _EPSILON
    ):
        how = (
            "the mean of the scored dimensions" if card.format == "tenpoint" else "Σ score × weight"
        )
        problems.append(
            Problem(
                path="/weighted_score",
                code="weighted_score_mismatch",
                message=(
                    f"stated {stated:g}, but {how} is {computed.weighted_score:g}; state"
                    f" {computed.weighted_score:g}"
                ),
            )
        )
    said = card.data.get("verdict")
    if said in _VERDICTS and computed.verdict is not None and said != computed.verdict:
        why = (
            "; ".join(result.reasons)
            or "no dimension is weak, no criterion failed and nothing was detected"
        )
        problems.append(
            Problem(
                path="/verdict",
                code="verdict_mismatch",
                message=(
                    f"stated {said}, but the scorecard gives {computed.verdict} ({why}); state"
                    f" {computed.verdict}"
                ),
            )
        )
    return problems
