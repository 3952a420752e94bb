"""The result of `validate_scorecard`."""

from __future__ import annotations

from typing import Any, Literal

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


class ValidateScorecardInput(Model):
    """Everything `validate_scorecard` accepts."""

    scorecard: dict[str, Any] = Field(
        description=(
            "A canonical (contract_ref, dimensions, criteria …) or tenpoint (task_id, domains …)"
            " scorecard, sent as is"
        )
    )
    contract_id: str | None = Field(
        default=None,
        description=(
            "The contract to check against; default the scorecard's contract_ref"
            " (tenpoint: task_id)"
        ),
    )
    contract: dict[str, Any] | None = Field(
        default=None,
        description=(
            "An exported contract instead of contract_id (stored only if it is the stored one)"
        ),
    )
    format: Literal["auto", "referee", "tenpoint"] = Field(
        default="auto",
        description=("auto tells them apart; referee: canonical 0–3 (or 0.0–1.0); tenpoint: 1–10"),
    )
    store: bool = Field(
        default=True,
        description="Record a valid scorecard as this evaluator's verdict for its iteration",
    )
    variant: Literal["original", "perturbed"] = Field(
        default="original",
        description=("perturbed: the re-scoring of evaluate's anti-gaming copy (depth deep)"),
    )
