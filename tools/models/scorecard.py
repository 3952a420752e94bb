"""Scorecards: the canonical 0–3 scorecard and the 1–10 ("tenpoint") scorecard."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from referee.tools.models.budget import Usage
from referee.tools.models.common import Model, Severity, Verdict


class RubricRef(Model):
    ref: str
    version: str | None = None


class Target(Model):
    tree: str | None = Field(default=None, description="Tree hash of the evaluated content")
    commit: str | None = None


class DimensionScore(Model):
    score: float = Field(
        ge=0, le=3, description="0–3 (integer) for 0–3 rubrics, 0.0–1.0 for unit-scale rubrics"
    )
    evidence: str = Field(
        min_length=1,
        description="What supports the score: file:line, evidence ids, observed behaviour",
    )
    recommendation: str = ""
    evidence_ids: list[str] = Field(default_factory=list)


class CriterionVerdict(Model):
    id: str
    pass_: bool = Field(alias="pass")
    evidence: str = Field(
        min_length=1,
        description='What shows it; "no evidence" when nothing does (then pass is false)',
    )
    evidence_ids: list[str] = Field(default_factory=list)


class Issue(Model):
    severity: Severity
    description: str = Field(min_length=1)
    location: str | None = Field(default=None, description="file:line")
    suggestion: str | None = None
    evidence_ids: list[str] = Field(default_factory=list)


class DetectedAntipattern(Model):
    id: str = Field(min_length=1)
    evidence: str = Field(min_length=1)


class SpecDefect(Model):
    detected: Literal[True]
    reason: str = Field(min_length=1)


class Scorecard(Model):
    """The canonical scorecard an evaluator returns (schemas/scorecard.schema.json)."""

    contract_ref: str
    evaluator: str = Field(min_length=1)
    provider: str = Field(
        min_length=1, description="Who produced the scorecard (model provider or tool)"
    )
    evaluator_model: str | None = None
    iteration: int = Field(ge=1)
    timestamp: str | None = Field(default=None, description="ISO-8601")
    rubric: RubricRef | None = None
    evaluator_prompt_version: str | None = None
    target: Target | None = None
    dimensions: dict[str, DimensionScore]
    criteria: list[CriterionVerdict]
    issues: list[Issue] = Field(default_factory=list)
    antipatterns_detected: list[DetectedAntipattern] = Field(default_factory=list)
    spec_defect: SpecDefect | None = None
    verdict: Verdict | None = None
    weighted_score: float | None = Field(default=None, ge=0, le=3)
    summary: str | None = None
    guidance: str | None = None
    dispatch_count: Literal[1] = Field(description="Always 1")
    run_id: str | None = Field(
        default=None, description="The referee evaluation this scorecard rests on"
    )
    signature: str | None = Field(
        default=None, description="HMAC of that evaluation, as evaluate returned it"
    )
    usage: Usage | None = Field(
        default=None, description="What judging cost, where the client reports it (the budget)"
    )


class TenpointDimension(Model):
    score: int = Field(ge=1, le=10)
    evidence: str | None = None
    comment: str | None = None
    threshold: float | None = Field(default=None, ge=1, le=10)


class TenpointDomain(Model):
    dimensions: dict[str, TenpointDimension]


class TenpointCriterion(Model):
    id: str
    pass_: bool = Field(alias="pass")
    evidence: str = Field(min_length=1)
    evidence_ids: list[str] = Field(default_factory=list)


class TenpointScorecard(Model):
    """The 1–10 scorecard format teams already produce; task_id is the contract id."""

    model_config = ConfigDict(extra="allow")

    task_id: str
    iteration: int = Field(default=1, ge=1)
    timestamp: str | None = None
    provider: str = Field(min_length=1)
    evaluator: str | None = None
    evaluator_model: str | None = None
    domains: dict[str, TenpointDomain]
    criteria: list[TenpointCriterion]
    antipatterns_detected: list[DetectedAntipattern] = Field(default_factory=list)
    spec_defect: SpecDefect | None = None
    guidance: str = ""
    dispatch_count: Literal[1]
    target: Target | None = None
    run_id: str | None = None
    signature: str | None = None
    usage: Usage | None = None


class DraftDimension(Model):
    score: float | None = None
    evidence: str = ""
    recommendation: str = ""
    evidence_ids: list[str] = Field(default_factory=list)


class DraftCriterion(Model):
    id: str
    pass_: bool | None = Field(alias="pass")
    evidence: str
    evidence_ids: list[str] = Field(default_factory=list)


class DraftScorecard(Model):
    """A canonical scorecard pre-filled by evaluate; nulls mark what only a judge can fill."""

    contract_ref: str
    evaluator: str
    provider: str = "referee"
    evaluator_model: str | None = None
    iteration: int
    timestamp: str
    rubric: RubricRef
    evaluator_prompt_version: str
    target: Target
    dimensions: dict[str, DraftDimension]
    criteria: list[DraftCriterion]
    issues: list[Issue] = Field(default_factory=list)
    antipatterns_detected: list[DetectedAntipattern] = Field(default_factory=list)
    spec_defect: SpecDefect | None = None
    verdict: Verdict | None = None
    weighted_score: float | None = None
    summary: str = ""
    guidance: str = ""
    dispatch_count: Literal[1] = 1
    run_id: str
    signature: str
