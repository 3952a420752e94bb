"""Did the judge catch the planted defect? Read from its validated card for the canary's run.

Four signs, each recorded: a criterion the copied iteration passed is failed, an issue lies within
a few lines of the defect (aggregate's duplicate rule: same file, at most 3 lines apart), the
defect's dimension is scored below the judge's own card for the copied iteration (or below the
scale's top when it has none), and the verdict is not ACCEPT. The defect is caught when an issue
points at it, or when the verdict is not ACCEPT and a criterion or the right dimension says why:
a judge that asks for revision of everything without naming the defect has not seen it.

The judge is measured on what it added: an issue of the run's own draft (referee's, which a card
may not drop) is not the judge's finding. When referee's evidence already shows the defect (a
criterion the copy passed fails on the canary, or an issue the copy's draft did not have lies at
the defect, such as a secret the scan found), the canary is `evidence_caught`: recorded, but no
measure of the judge, so recall leaves it out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["CanaryOutcome", "PlantedDefect", "judge_card"]

NEAR_LINES = 3
_LOCATION = re.compile(r"(?P<path>[^\s:]+):(?P<line>\d+)")


@dataclass(frozen=True)
class PlantedDefect:
    """What the judge is measured against (the stored canary)."""

    kind: str
    path: str
    line: int
    dimension: str


@dataclass(frozen=True)
class CanaryOutcome:
    evidence_caught: bool
    caught: bool
    criterion_failed: bool
    issue_near: bool
    dimension_lowered: bool
    verdict_not_accept: bool

    def as_dict(self) -> dict[str, bool]:
        return {
            "evidence_caught": self.evidence_caught,
            "caught": self.caught,
            "criterion_failed": self.criterion_failed,
            "issue_near": self.issue_near,
            "dimension_lowered": self.dimension_lowered,
            "verdict_not_accept": self.verdict_not_accept,
        }


def judge_card(
    defect: PlantedDefect,
    card: Mapping[str, Any],
    computed: Mapping[str, Any],
    reference: Mapping[str, Any] | None,
    passed_before: Sequence[str],
    draft: Mapping[str, Any],
    draft_before: Mapping[str, Any],
) -> CanaryOutcome:
    """How a validated card for a canary's run fared against its defect.

    Args:
        defect: The planted defect.
        card: The scorecard as submitted.
        computed: What validation computed and stored next to it (verdict, dimensions, scale_max).
        reference: The computed values of the judge's card for the copied iteration, if any.
        passed_before: Criteria ids the copied iteration's run passed.
        draft: The canary run's draft scorecard (what referee itself found).
        draft_before: The copied run's draft.
    """
    before = set(passed_before)
    given = {_key(i) for i in _items(draft.get("issues"))}
    old = {_key(i) for i in _items(draft_before.get("issues"))}
    new = [i for i in _items(draft.get("issues")) if _key(i) not in old]
    shown = {c.get("id") for c in _items(draft.get("criteria")) if c.get("pass") is False}
    evidence = bool(shown & before) or any(_near(defect, i) for i in new)
    failed = {c.get("id") for c in _items(card.get("criteria")) if c.get("pass") is False} & before
    added = [i for i in _items(card.get("issues")) if _key(i) not in given]
    near = any(_near(defect, issue) for issue in added)
    lowered = _lowered(defect.dimension, computed, reference)
    not_accept = computed.get("verdict") not in (None, "ACCEPT")
    caught = near or (not_accept and (bool(failed) or lowered))
    return CanaryOutcome(evidence, caught, bool(failed), near, lowered, not_accept)


def _key(issue: Mapping[str, Any]) -> tuple[object, object]:
    return issue.get("location"), issue.get("description")


def _items(value: object) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _near(defect: PlantedDefect, issue: Mapping[str, Any]) -> bool:
    texts = [issue.get("location"), issue.get("description")]
    for text in texts:
        if not isinstance(text, str):
            continue
        for m in _LOCATION.finditer(text):
            same_file = m["path"] == defect.path or m["path"].endswith("/" + defect.path)
            if same_file and abs(int(m["line"]) - defect.line) <= NEAR_LINES:
                return True
    return False


def _score(computed: Mapping[str, Any] | None, dimension: str) -> float | None:
    dims = computed.get("dimensions") if computed else None
    if not isinstance(dims, dict):
        return None
    # Tenpoint keys are "domain.dimension".
    values = [v for k, v in dims.items() if k.rsplit(".", 1)[-1] == dimension]
    numbers = [float(v) for v in values if isinstance(v, int | float)]
    return min(numbers) if numbers else None


def _lowered(
    dimension: str, computed: Mapping[str, Any], reference: Mapping[str, Any] | None
) -> bool:
    score = _score(computed, dimension)
    if score is None:
        return False
    before = _score(reference, dimension)
    if before is None:
        top = computed.get("scale_max")
        before = float(top) if isinstance(top, int | float) else None
    return before is not None and score < before
