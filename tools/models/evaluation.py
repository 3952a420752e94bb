"""The result of `evaluate`: evidence-grounded verdicts and a draft scorecard."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from referee.tools.models.adequacy import TestAdequacy
from referee.tools.models.common import (
    CheckedScope,
    CriterionStatus,
    Depth,
    Isolation,
    Model,
    ReasonCode,
    SandboxKind,
    Scope,
    Severity,
    Verdict,
)
from referee.tools.models.evidence import EvidenceSummary
from referee.tools.models.scorecard import DraftScorecard, Target

DimensionSource = Literal["deterministic", "judgment"]


class EvaluateInput(Model):
    """Everything `evaluate` accepts (the MCP tool's arguments are built from these fields)."""

    contract_id: str = Field(description="The contract to evaluate against")
    evaluator: str | None = Field(
        default=None, description="Run only this evaluator's criteria; omitted: all"
    )
    ref: str | None = Field(
        default=None, description="Commit to evaluate; default the working tree"
    )
    base: str | None = Field(
        default=None, description="Base commit for task scope; default the contract's"
    )
    iteration: int | None = Field(default=None, ge=1, description="Default: the next iteration")
    scope: Scope = Field(
        default="task",
        description=(
            "task: the change since base; project: every file; strategic: the stored history,"
            " no checks"
        ),
    )
    depth: Depth = Field(
        default="standard",
        description=("deep adds mutants of the changed lines and a perturbed copy to re-score"),
    )
    isolation: Isolation = Field(
        default="sandbox",
        description=(
            "sandbox: bubblewrap over an overlay; inplace: none; worktree: a checkout of ref"
        ),
    )
    require_sandbox: bool = Field(
        default=False, description="Refuse to run without a sandbox instead of falling back"
    )
    evaluator_model: str | None = Field(
        default=None, description="The judging model (for the comparability guard)"
    )
    canary: bool = Field(
        default=False,
        description="Orchestrator only: plant a defect in a copy of the iteration",
    )


class EvaluationTarget(Target):
    """The evaluated content and where it came from; a scorecard's `target` is its tree and
    commit."""

    tree: str = Field(description="Tree hash of the evaluated content (working tree or commit)")
    commit: str | None = Field(
        default=None, description="HEAD (inplace) or the evaluated ref's commit"
    )
    repo: str
    ref: str | None = Field(
        default=None,
        description="The ref evaluated, as the caller named it (None: the working tree)",
    )
    base: str | None = None
    changed_files: list[str] = Field(default_factory=list)
    dirty: bool = Field(default=False, description="The working tree differs from the commit")


class TestCounts(Model):
    """Per-test outcomes of a tests check (for `must_fail_at_base`, of the run now)."""

    __test__ = False  # not a pytest test class despite its name

    passed: int = Field(default=0, ge=0)
    failed: int = Field(default=0, ge=0)
    errors: int = Field(default=0, ge=0)
    skipped: int = Field(default=0, ge=0)

    @property
    def ran(self) -> int:
        """Tests that ran to an outcome (skipped ones did not)."""
        return self.passed + self.failed + self.errors


class CriterionResult(Model):
    id: str
    evaluator: str
    pass_: bool | None = Field(
        alias="pass", description="null when only a judging model can decide"
    )
    status: CriterionStatus
    reason_code: ReasonCode | None = Field(
        default=None, description="Why it ended so, as a stable code (could_not_start, timed_out …)"
    )
    reason: str = ""
    evidence: str = ""
    evidence_ids: list[str] = Field(default_factory=list)
    holdout: bool = False
    regressions: list[str] = Field(
        default_factory=list, description="Tests that passed at base and fail now"
    )
    tests: TestCounts | None = Field(
        default=None, description="Per-test outcomes of a tests check (the run now)"
    )
    adequacy: TestAdequacy | None = Field(
        default=None,
        description=(
            "A tests check's diff coverage, mutants of the changed lines and repeated runs"
        ),
    )


class Finding(Model):
    rule: str
    severity: Severity
    location: str = Field(description="file:line")
    message: str


class BaselineFindings(Model):
    """Task scope: static findings that predate the change (the same rule, file and symbol at base,
    outside the changed lines). Shown to the judge; they drive no dimension, criterion, issue or
    brief."""

    total: int = Field(ge=0)
    by_rule: dict[str, int] = Field(default_factory=dict)
    top: list[Finding] = Field(default_factory=list, description="The most severe few")


class DimensionResult(Model):
    score: float | None
    source: DimensionSource
    confidence: float = Field(ge=0, le=1)
    evidence: str = ""
    evidence_ids: list[str] = Field(default_factory=list)


class EvaluationIssue(Model):
    severity: Severity
    description: str
    location: str | None = None
    suggestion: str | None = None
    evidence_ids: list[str] = Field(default_factory=list)


class AntipatternFinding(Model):
    id: str
    evidence: str
    location: str | None = None
    evidence_ids: list[str] = Field(default_factory=list)


class TreeChanged(Model):
    changed: bool = False
    paths: list[str] = Field(default_factory=list)
    holdout_paths: list[str] = Field(
        default_factory=list,
        description=(
            "What only hold-out runs wrote: for the evaluator, never an issue, antipattern or"
            " brief (their names could spell the hold-out)"
        ),
    )


class NeedsJudgment(Model):
    criteria: list[str] = Field(default_factory=list)
    dimensions: list[str] = Field(default_factory=list)


class Perturbation(Model):
    """Anti-gaming (depth `deep`): a semantically equal copy of the changed files, offered for
    re-scoring."""

    path: str = Field(description="Folder holding the perturbed copy of the changed files")
    files: list[str] = Field(default_factory=list)
    transforms: list[str] = Field(
        default_factory=list, description="What was changed: comments, imports, names, layout"
    )
    semantics_kept: bool | None = Field(
        default=None, description="The tests checks still pass on the perturbed tree"
    )
    evidence_ids: list[str] = Field(default_factory=list)
    instructions: str = ""


class HealthDimension(Model):
    score: float = Field(ge=0, le=1)
    confidence: float = Field(ge=0, le=1)
    evidence: str = ""


class ProjectHealth(Model):
    """PROJECT_HEALTH (0–1) from deterministic signals, at project scope."""

    dimensions: dict[str, HealthDimension]
    composite: float
    band: Literal["STRONG", "ADEQUATE", "NEEDS_WORK", "CRITICAL"]


class Evaluation(Model):
    """What `evaluate` returns (full output of each evidence item behind evidence://)."""

    run_id: str
    contract_ref: str
    evaluator: str | None
    iteration: int
    scope: CheckedScope
    depth: Depth
    isolation: Isolation
    sandbox: SandboxKind = Field(
        default="none", description="What the checks ran in: bubblewrap, or none (in place)"
    )
    target: EvaluationTarget
    evidence: list[EvidenceSummary]
    criteria: list[CriterionResult]
    findings: list[Finding]
    findings_total: int = Field(default=0, description="Findings before the compact-result cut")
    baseline_findings: BaselineFindings | None = Field(
        default=None,
        description="Task scope: findings that predate the change, never counted (count per rule)",
    )
    dimensions: dict[str, DimensionResult]
    issues: list[EvaluationIssue]
    antipatterns: list[AntipatternFinding] = Field(default_factory=list)
    tree_changed: TreeChanged
    needs_judgment: NeedsJudgment
    draft_scorecard: DraftScorecard
    verdict: Verdict | None
    weighted_score: float | None
    prompt: str = Field(description="URI of the evaluator prompt for the judging model")
    report: str = Field(description="URI of the full report (report://{run_id})")
    signature: str = Field(description="HMAC of the stored evaluation")
    prior_scorecard: str | None = Field(
        default=None, description="scorecard://{id}: this evaluator's previous stored scorecard"
    )
    pin: str | None = Field(
        default=None,
        description="refs/referee/<contract>/<iteration>: the ref keeping the evaluated tree",
    )
    duration_s: float = 0.0
    warnings: list[str] = Field(default_factory=list)
    omitted: list[str] = Field(
        default_factory=list, description="What was cut to keep the result compact"
    )
    generator_evidence: list[str] = Field(
        default_factory=list,
        description=(
            "Captured generator sessions (G-…) in this repository: the player's own account, never"
            " enough alone"
        ),
    )
    perturbation: Perturbation | None = None
    project_health: ProjectHealth | None = None
