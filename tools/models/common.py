"""Shared bases and closed vocabularies of referee's models."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Severity = Literal["CRITICAL", "HIGH", "MEDIUM", "LOW"]
SEVERITY_ORDER: dict[str, int] = {"CRITICAL": 0, "HIGH": 1, "MEDIUM": 2, "LOW": 3}

Verdict = Literal["ACCEPT", "REVISE", "BLOCK"]
ACCEPT: Verdict = "ACCEPT"
REVISE: Verdict = "REVISE"
BLOCK: Verdict = "BLOCK"

Decision = Literal["DELIVER", "REVISE", "ESCALATE", "PENDING"]
HealthBand = Literal["STRONG", "ADEQUATE", "NEEDS_WORK", "CRITICAL"]

TaskType = Literal["feature", "bug", "security", "other"]
VerificationMethod = Literal["test", "e2e", "static", "manual"]
ContextStrategy = Literal["reset", "continuous", "hybrid"]
Scope = Literal["task", "project"]
Depth = Literal["quick", "standard", "deep"]
Isolation = Literal["inplace", "worktree"]
ScorecardFormat = Literal["referee", "tenpoint"]


class Model(BaseModel):
    """Base of every referee model: strict about unknown fields, JSON names by alias."""

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        serialize_by_alias=True,
        use_attribute_docstrings=True,
    )


class OpenModel(BaseModel):
    """A model that keeps fields it does not know (outputs and foreign formats)."""

    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
        serialize_by_alias=True,
        use_attribute_docstrings=True,
    )
