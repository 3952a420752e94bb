"""What `evaluate(scope="strategic")` returns: direction from the stored history, no checks run."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, RootModel

from referee.tools.models.common import Model
from referee.tools.models.evaluation import Evaluation

Direction = Literal["improving", "declining", "flat", "unknown"]


class DimensionTrend(Model):
    dimension: str
    values: list[float | None] = Field(
        description="Per iteration (see `iterations`): the evaluators' mean score, else referee's"
    )
    direction: Direction = Field(description="The latest value against the one before it")
    latest: float | None
    high_water: float | None = Field(description="The best value so far")
    high_water_iteration: int | None


class RegressionRisk(Model):
    dimension: str
    iteration: int
    score: float
    high_water: float
    high_water_iteration: int
    message: str
    evidence_ids: list[str] = Field(description="What the latest score rests on")


class Saturation(Model):
    dimension: str
    evaluations: int = Field(description="Consecutive evaluations at the top of the scale")
    message: str


class Priority(Model):
    dimension: str
    score: float
    max: float
    weight: float
    feasibility: float
    fix_kind: Literal["static", "tests", "judgment"]
    priority: float = Field(description="(1 − score / max) × weight × feasibility")
    recommendation: str
    evidence: str
    evidence_ids: list[str]


class StrategicAssessment(Model):
    """Trends, regression risks, saturation and improvement priorities of one contract."""

    contract_ref: str
    scope: Literal["strategic"] = "strategic"
    iterations: list[int]
    evaluations: int = Field(description="Stored evaluation runs read")
    scorecards: int = Field(description="Stored scorecards read")
    trends: list[DimensionTrend]
    regression_risks: list[RegressionRisk]
    saturation: list[Saturation]
    priorities: list[Priority] = Field(description="Highest first")
    notes: list[str] = Field(default_factory=list)
    report: str = Field(description="URI of the contract's full report")


class EvaluateResult(
    RootModel[Annotated[Evaluation | StrategicAssessment, Field(discriminator="scope")]]
):
    """What `evaluate` returns: an evaluation (task and project scope) or, at strategic scope, the
    assessment of the stored history."""

    model_config = ConfigDict(defer_build=True)
