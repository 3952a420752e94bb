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
from referee.tools.rubrics import (
    compute_weighted,
    final_verdict,
    normalized,
    verdict_for,
    verdict_of_values,
)
from referee.tools.validate_scorecard.card import (
    Card,
    ScoredDimension,
    below_threshold,
    detected_antipatterns,
    dimension_key,
    failed_criteria,
    is_number,
    rubric_dimensions,
    scored_dimensions,
    spec_defect,
    tenpoint_place,
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
    dimension below its threshold asks for a revision, and a dimension named as one of the
    contract's rubric is that dimension on 1–10 (1 the rubric's minimum, 10 its maximum), held
    to the same floors (0–3: below 4 blocks, below 7 asks for a revision). Both: a failed
    criterion or a detected antipattern turns ACCEPT into REVISE, and a spec defect blocks.

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
        base: Verdict | None = _worse(REVISE if weak else ACCEPT, _rubric_floors(card))
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


_RANK = {BLOCK: 0, REVISE: 1, ACCEPT: 2}


def _worse(a: Verdict, b: Verdict) -> Verdict:
    return a if _RANK[a] <= _RANK[b] else b


def _placed(card: Card) -> list[tuple[ScoredDimension, float]]:
    """The tenpoint dimensions named as the contract rubric's, with their place on its scale."""
    keys = rubric_dimensions(card)
    placed = []
    for dim in scored_dimensions(card):
        place = tenpoint_place(card, dim.score)
        if place is not None and dimension_key(dim.key.rpartition(".")[2]) in keys:
            placed.append((dim, place))
    return placed


def _rubric_floors(card: Card) -> Verdict:
    """The verdict the rubric's floors give the tenpoint dimensions named as its own."""
    if card.run_rubric is None:
        return ACCEPT
    return verdict_of_values(card.run_rubric.scale.kind, [p for _, p in _placed(card)])


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
    if card.format == "tenpoint" and card.run_rubric is not None:
        kind, name = card.run_rubric.scale.kind, card.run_rubric.name
        reasons += [
            f"{d.key} scored {d.score:g} of 10, {place:g} on {name}'s scale"
            for d, place in _placed(card)
            if d not in weak and verdict_of_values(kind, [place]) != ACCEPT
        ]
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
