"""The result of `aggregate`: one decision from several evaluators' verdicts."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from referee.tools.models.budget import Budget, Usage
from referee.tools.models.common import Decision, Model, Severity, Verdict


class BriefIssue(Model):
    severity: Severity
    description: str
    location: str | None = None
    suggestion: str | None = None
    sources: list[str] = Field(description="Evaluators that reported it")
    text: str = Field(description="'[SEVERITY] description (from evaluator, …)'")


class RevisionBrief(Model):
    contract_ref: str
    iteration_from: int
    iteration_to: int
    issues_to_address: list[BriefIssue]
    issues_deferred: list[BriefIssue]
    evaluator_verdicts: dict[str, Verdict]
    failed_criteria: list[str] = Field(
        default_factory=list, description="Visible criteria that did not pass"
    )
    hidden_checks_failed: int = Field(
        default=0,
        ge=0,
        description="How many hidden checks failed: a count, never which ones, nor their output",
    )


class HoldoutLeak(Model):
    """An issue withheld from the brief because it would reveal a hold-out to the generator."""

    code: Literal["holdout_leak"] = "holdout_leak"
    evaluator: str
    severity: Severity
    description: str
    why: str = Field(description="What it reveals: hold-out evidence, a file or test, the wording")


class Escalation(Model):
    reasons: list[str]


class BestIteration(Model):
    iteration: int
    weighted_score: float | None


class Scores(Model):
    weighted: float | None
    normalized: float | None


class Alert(Model):
    kind: Literal["regression", "saturation", "trend", "not_comparable", "recalibrate"]
    dimension: str | None = None
    message: str


class GamingIndicator(Model):
    g: float = Field(description="|original − perturbed| / original, on weighted scores")
    status: Literal["clean", "suspect", "gaming"]
    original: float
    perturbed: float


class DimensionChange(Model):
    evaluator: str
    dimension: str
    from_iteration: int
    to_iteration: int
    before: float
    after: float
    change: Literal["improved", "regressed"]


class AggregateResult(Model):
    contract_ref: str
    iteration: int
    decision: Decision
    reason: str
    evaluator_verdicts: dict[str, Verdict]
    missing_evaluators: list[str] = Field(default_factory=list)
    revision_brief: RevisionBrief | None = None
    escalation: Escalation | None = None
    delivered_iteration: int | None = None
    best_iteration: BestIteration | None = None
    scores: Scores
    quality_notes: list[str] = Field(default_factory=list)
    alerts: list[Alert] = Field(default_factory=list)
    comparable: bool = True
    gaming: dict[str, GamingIndicator] = Field(
        default_factory=dict,
        description="Gaming indicator per evaluator for this iteration (perturbed re-scoring)",
    )
    holdout_leaks: list[HoldoutLeak] = Field(
        default_factory=list,
        description=(
            "Issues kept out of the revision brief because they reveal a hold-out (for the"
            " orchestrator only: never hand these to the generator)"
        ),
    )
    dimension_changes: list[DimensionChange] = Field(
        default_factory=list,
        description="Dimensions that moved since each evaluator's previous comparable scorecard",
    )
    budget: Budget | None = Field(default=None, description="What the loop cost")
    checkout: str | None = Field(
        default=None,
        description="DELIVER: the command that writes the delivered iteration's content back",
    )


class AggregateInput(Model):
    """Everything `aggregate` accepts."""

    contract_id: str = Field(description="The contract whose evaluators' verdicts are combined")
    iteration: int | None = Field(
        default=None,
        ge=1,
        description="The iteration to decide; default the latest with a stored scorecard",
    )
    scorecards: list[dict[str, Any]] | None = Field(
        default=None,
        description=(
            "A what-if for this call: validated, never stored, each replacing its evaluator's"
        ),
    )
    usage: Usage | None = Field(
        default=None, description="The generator's usage for this iteration, where known"
    )
