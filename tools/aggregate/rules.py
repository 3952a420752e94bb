"""The decision rules, one small named function each, tried in order.

Each rule looks at the situation and either decides (returns a Ruling) or passes (None). The
order is the policy: PENDING first (a verdict with someone missing is no verdict), then a BLOCK
from anyone, then unanimous ACCEPT, then REVISE within the iteration bound, then the bound.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from referee.tools.models.common import ACCEPT, BLOCK, REVISE, Decision, Verdict


@dataclass(frozen=True)
class Situation:
    """What the rules decide on: one iteration's verdicts and the contract's bound."""

    iteration: int
    max_iterations: int
    verdicts: Mapping[str, Verdict]
    missing: list[str]

    def with_verdict(self, verdict: Verdict) -> list[str]:
        return [name for name, given in self.verdicts.items() if given == verdict]


@dataclass(frozen=True)
class Ruling:
    decision: Decision
    reason: str
    rule: str


Rule = Callable[[Situation], Ruling | None]


def pending(s: Situation) -> Ruling | None:
    """An evaluator named in the contract has no scorecard for the iteration: wait for it."""
    if not s.missing:
        return None
    return Ruling(
        "PENDING", f"waiting for {_names(s.missing)} to score iteration {s.iteration}", "pending"
    )


def escalate_on_block(s: Situation) -> Ruling | None:
    """Any BLOCK goes to a human: the work or the spec needs a decision the loop cannot make."""
    blocking = s.with_verdict(BLOCK)
    if not blocking:
        return None
    return Ruling(
        "ESCALATE",
        f"{_names(blocking)} returned BLOCK at iteration {s.iteration}",
        "escalate_on_block",
    )


def deliver_when_all_accept(s: Situation) -> Ruling | None:
    """Every evaluator accepts: deliver this iteration."""
    if any(v != ACCEPT for v in s.verdicts.values()):
        return None
    return Ruling(
        "DELIVER", f"every evaluator accepted iteration {s.iteration}", "deliver_when_all_accept"
    )


def revise_within_bound(s: Situation) -> Ruling | None:
    """Someone asks for a revision and iterations remain: send the revision brief to the
    generator."""
    revising = s.with_verdict(REVISE)
    if not revising or s.iteration >= s.max_iterations:
        return None
    reason = (
        f"{_names(revising)} asked for a revision at iteration {s.iteration} of {s.max_iterations};"
        f" the brief is for iteration {s.iteration + 1}"
    )
    return Ruling("REVISE", reason, "revise_within_bound")


def deliver_best_at_bound(s: Situation) -> Ruling | None:
    """Someone still asks for a revision at the last iteration: deliver the best iteration, with
    notes."""
    revising = s.with_verdict(REVISE)
    if not revising:
        return None
    return Ruling(
        "DELIVER",
        f"{_names(revising)} still asked for a revision at iteration {s.iteration}, the last of "
        f"{s.max_iterations}: delivering the best iteration",
        "deliver_best_at_bound",
    )


RULES: tuple[Rule, ...] = (
    pending,
    escalate_on_block,
    deliver_when_all_accept,
    revise_within_bound,
    deliver_best_at_bound,
)


def decide(situation: Situation, rules: tuple[Rule, ...] = RULES) -> Ruling:
    """Return the ruling of the first rule that decides.

    Args:
        situation: The iteration's verdicts, who is missing, and the bound.
        rules: The rules in order of precedence.

    Returns:
        The ruling; PENDING when no rule decides (no evaluator at all).
    """
    for rule in rules:
        ruling = rule(situation)
        if ruling is not None:
            return ruling
    return Ruling("PENDING", f"no scorecard for iteration {situation.iteration}", "pending")


def _names(names: list[str]) -> str:
    return ", ".join(names)
