"""Evidence: what referee saw when it ran a tool. A client can cite it, never write it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from referee.tools.models.common import Model

EvidenceSource = Literal["referee", "generator_session"]


class TestOutcome(Model):
    """One test case read from a JUnit XML report."""

    name: str
    outcome: Literal["passed", "failed", "error", "skipped"]
    duration_s: float = 0.0
    message: str = ""


class EvidenceItem(Model):
    """A full evidence record, as stored and as served by evidence://{run_id}/{id}."""

    id: str = Field(pattern=r"^[A-Za-z]*\d+$", description="E1, E2 … within a run")
    run_id: str
    timestamp: str
    tool: str = Field(
        description="tests · command · browser · static · git · serve · tampering · capture"
    )
    source: EvidenceSource = "referee"
    command: str = Field(default="", description="The command line, shell-quoted")
    argv: list[str] = Field(default_factory=list)
    cwd: str | None = None
    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    timed_out: bool = False
    duration_s: float = 0.0
    truncated: bool = False
    sha256: str = Field(default="", description="SHA-256 of the full (redacted) stdout then stderr")
    artifacts: list[str] = Field(
        default_factory=list, description="Paths of logs, JUnit XML, screenshots"
    )
    summary: str = ""
    criterion_id: str | None = None
    tests: list[TestOutcome] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)
    holdout: bool = Field(
        default=False,
        description=(
            "A hold-out's run produced it (or the served app, while a hidden check drove it):"
            " for the evaluator only"
        ),
    )
    sealed: str | None = Field(
        default=None,
        description=(
            "Hold-out evidence only: SHA-256 of the full item, kept outside the repository (the"
            " stored copy is a stub)"
        ),
    )


class EvidenceSummary(Model):
    """The compact form of an evidence item returned inline by evaluate."""

    id: str
    tool: str
    command: str
    exit_code: int | None
    duration_s: float
    summary: str
    truncated: bool
    artifacts: list[str] = Field(default_factory=list)
    source: EvidenceSource = "referee"

    @classmethod
    def of(cls, item: EvidenceItem) -> EvidenceSummary:
        return cls(
            id=item.id,
            tool=item.tool,
            command=item.command,
            exit_code=item.exit_code,
            duration_s=item.duration_s,
            summary=item.summary,
            truncated=item.truncated,
            artifacts=item.artifacts,
            source=item.source,
        )
