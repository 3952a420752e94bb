"""The best verdict referee's own evidence allows a run, held against a card's verdict.

The other rules of deterministic.py hold a card to what it names: a dimension scored above the
derived one, an issue left out, an antipattern dropped. A card can also leave out what it would
have to score low, or name it so that nothing matches (`Security`, `sécurité`, a zero-width space,
another domain): its verdict is then the judge's alone. So the card's verdict, whatever its format,
answers to the evidence as a whole: a deterministic dimension below the rubric's floors (0–3: a 0
blocks, a 1 asks for a revision), a recorded check of the card's evaluator that did not pass, an
antipattern no judge may dismiss, a CRITICAL issue referee found. A card whose verdict is better
than that is `contradicts_evidence`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from referee.tools.errors import Problem
from referee.tools.models.common import ACCEPT, BLOCK, REVISE, Verdict
from referee.tools.rubrics import verdict_of_values
from referee.tools.validate_scorecard.card import Card

if TYPE_CHECKING:
    from referee.tools.store.runs import StoredRun

__all__ = ["Ceiling", "ceiling", "verdict_problems"]

_RANK = {BLOCK: 0, REVISE: 1, ACCEPT: 2}


@dataclass
class Ceiling:
    """The best verdict the run's evidence allows, and what holds it there."""

    verdict: Verdict = ACCEPT
    reasons: list[str] = field(default_factory=list)

    def lower(self, to: Verdict, reason: str) -> None:
        if _RANK[to] < _RANK[self.verdict]:
            self.verdict = to
        if to != ACCEPT:
            self.reasons.append(reason)


def ceiling(card: Card, run: StoredRun, dismissable: frozenset[str]) -> Ceiling:
    """What referee's run allows a card.

    Args:
        card: The card (its run rubric gives the scale; without one, the run's scores do).
        run: The run the card rests on.
        dismissable: The antipatterns a judge may leave out in this run.
    """
    found = Ceiling()
    evaluation = run.evaluation
    kind = card.run_rubric.scale.kind if card.run_rubric is not None else _kind(run)
    for key, dim in evaluation.dimensions.items():
        if dim.source == "deterministic" and dim.score is not None:
            cited = ", ".join(dim.evidence_ids) or run.run_id
            found.lower(
                verdict_of_values(kind, [dim.score]), f"{key} derived {dim.score:g} ({cited})"
            )
    for criterion in evaluation.criteria:
        # Another evaluator's criterion is that evaluator's verdict to give, not this card's.
        if criterion.pass_ is False and criterion.evaluator in (card.evaluator, None):
            found.lower(REVISE, f"criterion {criterion.id} did not pass ({criterion.status})")
    for antipattern in evaluation.antipatterns:
        if antipattern.id not in dismissable:
            found.lower(REVISE, f"antipattern {antipattern.id} ({antipattern.location or 'run'})")
    for issue in evaluation.issues:
        if issue.severity == "CRITICAL":
            at = f" at {issue.location}" if issue.location else ""
            found.lower(REVISE, f"a CRITICAL issue{at}: {issue.description}")
    return found


def _kind(run: StoredRun) -> str:
    """Referee's derived scores lie on 0–3 or on 0.0–1.0; only a 0–3 rubric derives one above 1."""
    scores = [d.score for d in run.evaluation.dimensions.values() if d.score is not None]
    return "integer" if any(s > 1 for s in scores) else "unit"


def verdict_problems(
    card: Card, run: StoredRun, verdict: Verdict | None, dismissable: frozenset[str]
) -> list[Problem]:
    """`contradicts_evidence` when the card's verdict is better than its run allows."""
    if verdict not in _RANK:
        return []
    allowed = ceiling(card, run, dismissable)
    if _RANK[verdict] <= _RANK[allowed.verdict]:
        return []
    how = (
        "score each derived dimension under referee's name for it (`security`, not a translation"
        " or a respelling), at most its allowance on 1–10"
        if card.format == "tenpoint"
        else "score the derived dimensions at most as derived and keep referee's issues"
    )
    return [
        Problem(
            path="",
            code="contradicts_evidence",
            message=(
                f"the scorecard's verdict is {verdict}, but referee's evidence in run {run.run_id}"
                f" allows at most {allowed.verdict}: {'; '.join(allowed.reasons[:6])}; a card may"
                f" agree with the evidence or be harsher, never softer: {how}, or fix the work"
                " and evaluate again"
            ),
        )
    ]
