"""Rubrics: the scoring instrument, with level definitions and scored few-shot examples."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from referee.tools.models.common import Model, Verdict


class Scale(Model):
    """The score range of a rubric and the levels every dimension defines."""

    kind: Literal["integer", "unit"] = Field(
        description="integer: 0–3 steps; unit: 0.0–1.0 with anchor levels"
    )
    min: float
    max: float
    levels: list[float] = Field(min_length=2, description="Scores that have a written definition")
    labels: dict[str, str] = Field(default_factory=dict, description="Short name of each level")


class Dimension(Model):
    key: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="snake_case key used in scorecards")
    name: str
    weight: float = Field(gt=0, le=1)
    description: str = Field(min_length=1)
    levels: dict[str, str] = Field(
        description="Definition of each level of the scale, keyed by the level"
    )
    signals: list[str] = Field(
        default_factory=list, description="Evidence referee can derive this from"
    )


class ExampleScore(Model):
    score: float
    rationale: str = Field(min_length=1)


class RubricExample(Model):
    """A scored few-shot example: calibrates judges so scores stay comparable."""

    title: str = Field(min_length=1)
    situation: str = Field(min_length=1, description="What was built and what the evidence showed")
    scores: dict[str, ExampleScore]
    weighted_score: float
    verdict: Verdict | None = None
    band: str | None = None


class Rubric(Model):
    name: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_]*$")
    version: str = Field(min_length=1)
    description: str = Field(min_length=1)
    scale: Scale
    dimensions: list[Dimension] = Field(min_length=1)
    examples: list[RubricExample] = Field(min_length=2, max_length=3)

    def weights(self) -> dict[str, float]:
        return {d.key: d.weight for d in self.dimensions}

    def dimension(self, key: str) -> Dimension | None:
        return next((d for d in self.dimensions if d.key == key), None)
