"""Test adequacy: do a tests check's tests execute the change (diff coverage), would they notice
if it were wrong (mutants of the changed lines), and do they give the same answer every time
(repeats)?"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from referee.tools.models.common import Model

__all__ = [
    "DiffCoverage",
    "FileDiffCoverage",
    "FlakyTest",
    "Mutant",
    "MutantStatus",
    "Mutation",
    "TestAdequacy",
]

# not_compiled: the build rejected the mutant; not_run: nothing was decided (a rebuild outlasted the
# mutant's timeout, the tests stopped their own sandbox). Neither is killed nor survived.
MutantStatus = Literal["killed", "survived", "timeout", "not_compiled", "not_run"]


class FileDiffCoverage(Model):
    """One changed source file: its changed statements and which of them the tests executed."""

    path: str
    changed: int = Field(ge=0, description="Changed lines that are statements (executable)")
    covered: int = Field(ge=0, description="Of those, the lines the check's tests executed")
    uncovered: list[str] = Field(
        default_factory=list, description="Changed statements no test executed, as `12-14`, `20`"
    )
    percent: float = Field(ge=0, le=100)


class DiffCoverage(Model):
    """The changed lines a tests check executed, per file (measured in the criterion's own run)."""

    tool: str = Field(
        description=(
            "What measured it, and its version (Python: coverage.py, or before 3.12 referee's"
            " line probes)"
        )
    )
    percent: float | None = Field(
        default=None, ge=0, le=100, description="Covered / changed statements; null when none"
    )
    changed: int = Field(default=0, ge=0)
    covered: int = Field(default=0, ge=0)
    files: list[FileDiffCoverage] = Field(default_factory=list)
    unmeasured: list[str] = Field(
        default_factory=list,
        description="Changed source files referee cannot measure (another language, unparsable)",
    )
    note: str = Field(
        default="",
        description=(
            "Why nothing was measured, when nothing could be (an interpreter referee's coverage.py"
            " does not support)"
        ),
    )
    evidence_id: str | None = None


class Mutant(Model):
    """One mutation of a changed line, and whether the criterion's tests noticed it."""

    location: str = Field(description="file:line")
    original: str = Field(description="The source text that was replaced")
    replacement: str
    operator: str = Field(description="comparison · boundary · arithmetic · boolean · constant …")
    status: MutantStatus
    duration_s: float = 0.0
    killed_by: list[str] = Field(
        default_factory=list, description="Tests that failed against this mutant (the first few)"
    )
    note: str = Field(
        default="",
        description="Why the mutant was not judged: the compiler's first error (`did not compile:"
        " …`)",
    )


class Mutation(Model):
    """The mutants of the changed lines run against one criterion's tests."""

    score: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Killed (timeouts included) / mutants run: those that built and were judged",
    )
    generated: int = Field(default=0, ge=0, description="Mutants possible on the changed lines")
    run: int = Field(
        default=0, ge=0, description="Mutants the tests judged: killed, timed out or survived"
    )
    killed: int = Field(default=0, ge=0)
    not_compiled: int = Field(
        default=0,
        ge=0,
        description="Mutants the build rejected (Go, Rust, Java …): neither killed nor survived,"
        " left out of the score",
    )
    survived: list[Mutant] = Field(default_factory=list)
    mutants: list[Mutant] = Field(default_factory=list)
    timeout_s: float | None = Field(default=None, description="Each mutant's timeout")
    duration_s: float = 0.0
    note: str = ""
    evidence_id: str | None = None


class FlakyTest(Model):
    """A test that both passed and failed across a check's repeated runs."""

    test: str
    passed: int = Field(ge=0)
    runs: int = Field(ge=1)
    location: str | None = Field(default=None, description="file:line of the test, when found")
    evidence_ids: list[str] = Field(default_factory=list, description="Every run of the suite")


class TestAdequacy(Model):
    """How far a tests criterion's tests cover and pin the change."""

    __test__ = False  # not a pytest test class despite its name

    diff_coverage: DiffCoverage | None = None
    mutation: Mutation | None = None
    repeats: int = Field(default=1, ge=1, description="How many times the suite ran")
    flaky: list[FlakyTest] = Field(default_factory=list)
