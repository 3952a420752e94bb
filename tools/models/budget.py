"""What the loop cost: wall time per iteration from the runs and the client's calls, and the
tokens and money a client reports."""

from __future__ import annotations

from pydantic import Field

from referee.tools.models.common import Model


class Usage(Model):
    """What one agent's work cost, as its client reports it (every field optional)."""

    tokens: int | None = Field(default=None, ge=0)
    cost_usd: float | None = Field(default=None, ge=0)
    seconds: float | None = Field(default=None, ge=0, description="Wall time of the work")


class IterationCost(Model):
    """One iteration: seconds from referee's runs and the client's calls, and reported usage."""

    iteration: int
    checks_s: float = Field(description="referee's runs of the iteration (evaluate)")
    judging_s: float = Field(description="From each run to its judge's card (the client's call)")
    generator_s: float | None = Field(
        default=None,
        description="Reported by the client, else from the previous decision to the first run",
    )
    wall_s: float = Field(description="checks + judging + generator")
    tokens: int | None = Field(default=None, description="Reported tokens (judges and generator)")
    cost_usd: float | None = Field(default=None, description="Reported cost")


class Budget(Model):
    """The loop's cost so far, and what the first iteration (the solo attempt) already did."""

    iterations: list[IterationCost] = Field(default_factory=list)
    total: IterationCost | None = Field(default=None, description="Summed (iteration 0)")
    solo_passed: int = Field(default=0, description="Criteria the first iteration passed")
    solo_criteria: int = Field(default=0, description="Criteria judged in the first iteration")
    solo: str = Field(default="", description="'the solo attempt already passed N of M criteria'")
    note: str | None = Field(
        default=None, description="When first iterations of this kind keep delivering"
    )
