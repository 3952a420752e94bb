"""The result of `validate_scorecard`."""

from __future__ import annotations

from pydantic import Field

from referee.tools.errors import Problem
from referee.tools.models.common import Model, ScorecardFormat, Verdict


class Computed(Model):
    weighted_score: float | None
    normalized: float | None
    verdict: Verdict | None


class ValidationResult(Model):
    valid: bool
    format: ScorecardFormat | None
    errors: list[Problem]
    warnings: list[Problem]
    computed: Computed
    contract_ref: str | None = None
    evaluator: str | None = None
    iteration: int | None = None
    stored: bool = False
    replaced: bool = Field(
        default=False, description="A scorecard for this evaluator and iteration was replaced"
    )
    scorecard_id: str | None = None
    stale: bool = False
