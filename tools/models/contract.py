"""The sprint contract: what "done" means, written before any code exists."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from referee.tools.errors import Problem
from referee.tools.models.checks import BrowserStep, Check, Serve
from referee.tools.models.common import ContextStrategy, Model, TaskType, VerificationMethod
from referee.tools.models.rubric import Rubric

CONTRACT_ID_PATTERN = r"^SC-[a-z0-9-]+-\d{8}(-\d+)?$"
CRITERION_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$"
SETUP_DESCRIPTION = "Steps before every browser check (Playwright's beforeEach), a goto first"


def _lower(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


Method = Annotated[VerificationMethod, BeforeValidator(_lower)]
Thresholds = dict[str, dict[str, Annotated[float, Field(ge=1, le=10)]]]


class CriterionSpec(Model):
    """A criterion as written by the contract's author (ids may be left to referee)."""

    id: str | None = Field(
        default=None, pattern=CRITERION_ID_PATTERN, description="AC-F-001 … assigned when omitted"
    )
    criterion: str = Field(min_length=1, description="What must hold")
    verification_method: Method
    evaluator: str | None = Field(
        default=None, description="The one evaluator that judges this criterion"
    )
    threshold: str | None = Field(default=None, description="Quality criteria: a measurable bound")
    holdout: bool = Field(
        default=False, description="Hidden from the generator; scored like any other criterion"
    )
    check: Check | None = Field(
        default=None, description="How referee verifies it; required unless manual"
    )


class Criterion(Model):
    """A stored criterion: id and evaluator always set."""

    id: str = Field(pattern=CRITERION_ID_PATTERN)
    criterion: str
    verification_method: VerificationMethod
    evaluator: str
    threshold: str | None = None
    holdout: bool = False
    check: Check | None = None


class GeneratorCriterion(Model):
    """A criterion as the generator sees it: nothing about hold-outs."""

    id: str
    criterion: str
    verification_method: VerificationMethod
    evaluator: str
    threshold: str | None = None
    check: Check | None = None


class ContractScope(Model):
    in_scope: list[str] = Field(default_factory=list)
    out_of_scope: list[str] = Field(default_factory=list)


class AcceptanceCriteria(Model):
    functional: list[Criterion] = Field(default_factory=list)
    quality: list[Criterion] = Field(default_factory=list)


class GeneratorAcceptanceCriteria(Model):
    functional: list[GeneratorCriterion] = Field(default_factory=list)
    quality: list[GeneratorCriterion] = Field(default_factory=list)


class Antipattern(Model):
    id: str = Field(min_length=1)
    description: str = Field(min_length=1)


class _ContractBody(Model):
    id: str = Field(pattern=CONTRACT_ID_PATTERN, description="SC-<slug>-<YYYYMMDD>[-n]")
    goal: str
    task_type: TaskType = "feature"
    has_ui: bool = False
    scope: ContractScope = Field(default_factory=ContractScope)
    rubric_ref: str
    generator: str
    evaluators: list[str] = Field(min_length=1, max_length=4)
    max_iterations: int = Field(default=3, ge=1, le=5)
    context_strategy: ContextStrategy = "reset"
    serve: Serve | None = None
    require_sandbox: bool = Field(
        default=False, description="Refuse to evaluate where no sandbox can run (no fallback)"
    )
    browser_setup: list[BrowserStep] = Field(default_factory=list, description=SETUP_DESCRIPTION)
    repo: str | None = Field(default=None, description="Repository the contract applies to")
    base_commit: str | None = Field(
        default=None, description="Commit the contract was written against"
    )
    created_at: str = Field(description="ISO-8601 timestamp")


class ConfigFile(Model):
    """A configuration file of the repository, as it was when the contract was created."""

    name: str
    text: str


class ContractConfig(Model):
    """What judging a contract reads besides the contract itself, fixed when it is created.

    The evaluated tree is the player's: a rubric in its `.referee/rubrics/`, an allowlist in its
    `.gitleaks.toml`, read at evaluation time, would be the generator's to rewrite. So the
    orchestrator's copies are taken when the contract is written, stored with it and named by
    their digest (`Contract.config_digest`); nothing later reads them from the working tree.
    """

    rubric: Rubric
    allowlist: ConfigFile | None = None
    created: float | None = Field(
        default=None,
        description=(
            "When the contract was written (POSIX seconds, full precision): what the installed"
            " environments in the tree are compared with"
        ),
    )


class Contract(_ContractBody):
    """The evaluator view: everything, hold-outs included."""

    acceptance_criteria: AcceptanceCriteria
    thresholds: Thresholds = Field(default_factory=dict)
    antipatterns: list[Antipattern] = Field(default_factory=list)
    rubric_version: str
    evaluator_prompt_version: str
    config_digest: str | None = Field(
        default=None,
        description="sha256 of the rubric and allowlists fixed when the contract was created",
    )

    def all_criteria(self) -> list[Criterion]:
        return [*self.acceptance_criteria.functional, *self.acceptance_criteria.quality]

    def criterion(self, criterion_id: str) -> Criterion | None:
        return next((c for c in self.all_criteria() if c.id == criterion_id), None)

    def criteria_for(self, evaluator: str | None) -> list[Criterion]:
        return [c for c in self.all_criteria() if evaluator is None or c.evaluator == evaluator]


class GeneratorView(_ContractBody):
    """The generator view: hold-out criteria removed without a trace."""

    acceptance_criteria: GeneratorAcceptanceCriteria
    antipatterns: list[Antipattern] = Field(default_factory=list)


class CreateContractInput(Model):
    """Everything `create_contract` accepts."""

    goal: str = Field(min_length=1, description="1–2 sentences: the deliverable")
    task_type: TaskType = "feature"
    has_ui: bool = Field(
        default=False, description="The change has a user interface (feature → FEATURE_UI)"
    )
    rubric_ref: str | None = Field(
        default=None, description="Rubric name; chosen from task_type + has_ui when omitted"
    )
    in_scope: list[str] = Field(default_factory=list)
    out_of_scope: list[str] = Field(
        default_factory=list, description="Empty is allowed but warned about"
    )
    functional: list[CriterionSpec] = Field(default_factory=list)
    quality: list[CriterionSpec] = Field(default_factory=list)
    generator: str = Field(default="generator", min_length=1)
    evaluators: list[str] | None = Field(
        default=None, description="1–4 names; default: those the criteria name"
    )
    max_iterations: int = Field(default=3, ge=1, le=5)
    context_strategy: ContextStrategy = "reset"
    thresholds: Thresholds = Field(
        default_factory=dict, description="{domain: {dimension: 1–10 threshold}}"
    )
    serve: Serve | None = Field(
        default=None, description="Starts the app under test for browser checks (argv, url …)"
    )
    require_sandbox: bool = Field(
        default=False,
        description="Evaluate only in a sandbox: refuse instead of falling back to in-place runs",
    )
    browser_setup: list[BrowserStep] = Field(default_factory=list, description=SETUP_DESCRIPTION)
    antipatterns: list[Antipattern] = Field(default_factory=list)
    repo: str | None = Field(default=None, description="Repository path; default the server's root")
    base_commit: str | None = Field(
        default=None,
        min_length=1,
        description="Where the work starts (sha, branch, tag) for task scope; default HEAD",
    )
    slug: str | None = Field(default=None, description="Id slug; default derived from the goal")


class CreateContractResult(Model):
    """What `create_contract` returns."""

    contract: Contract = Field(description="The stored contract (evaluator view: everything)")
    generator_view: dict[str, Any] = Field(
        description="What the generator may see: hold-outs removed"
    )
    warnings: list[Problem] = Field(default_factory=list)


class GetContractInput(Model):
    """Everything `get_contract` accepts."""

    contract_id: str = Field(description="The contract id, e.g. SC-login-form-20260325")
    view: Literal["generator", "evaluator"] = Field(
        default="generator",
        description="generator: hold-outs removed; evaluator: all of it",
    )
