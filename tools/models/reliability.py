"""How far a judge can be trusted: canary recall, stability and human agreement, per judge."""

from __future__ import annotations

from pydantic import Field

from referee.tools.models.common import Model


class Rate(Model):
    """A share of cases, with how many it rests on."""

    cases: int = Field(ge=0)
    hits: int = Field(ge=0, description="Cases caught (recall) or agreeing (stability)")
    rate: float | None = Field(description="hits / cases, 0–1; null without a case")


class CanaryRecall(Rate):
    """The judge's catches among canaries whose defect referee's evidence did not show."""

    by_kind: dict[str, Rate] = Field(default_factory=dict, description="Per defect kind")
    evidence_caught: int = Field(
        default=0, ge=0, description="Canaries the evidence caught: no measure of the judge"
    )


class Stability(Rate):
    """The same tree judged twice by the same judge: how often the two cards agree (every
    criterion's pass and every dimension's score compared)."""

    pairs: int = Field(ge=0, description="Re-judged trees (pairs of cards on two runs)")
    verdict: Rate | None = None
    criteria: dict[str, Rate] = Field(default_factory=dict)
    dimensions: dict[str, Rate] = Field(default_factory=dict)


class HumanAgreement(Rate):
    kappa: float | None = Field(default=None, description="Cohen's kappa; null when undefined")


class JudgeReliability(Model):
    """One judge: an evaluator with one prompt version and model."""

    evaluator: str
    evaluator_prompt_version: str
    evaluator_model: str
    canary: CanaryRecall | None = None
    stability: Stability | None = None
    human: HumanAgreement | None = None
    flagged: str | None = Field(
        default=None, description="Why this judge is not to be trusted alone (recall too low)"
    )
