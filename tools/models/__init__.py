"""Pydantic models: the single source of truth for referee's formats (schemas/ is generated).

common      closed vocabularies (verdicts, severities, scopes, reason codes) and the Model base
checks      the check kinds of a criterion (tests, command, browser, static) and `serve`
contract    the sprint contract, its criteria, and the inputs of create_contract/get_contract
holdouts    what add_holdout_files accepts and returns
evaluation  what evaluate accepts and returns
evidence    evidence items and test outcomes
scorecard   the canonical, tenpoint and draft scorecards
validation  what validate_scorecard accepts and returns
aggregate   what aggregate accepts and returns
budget      what the loop cost: usage a client reports, cost per iteration, the solo baseline
strategy    what evaluate returns at strategic scope
reliability how far a judge can be trusted (canary recall, stability, human agreement)
rubric      rubrics and their scored examples
schemas     schemas/*.schema.json generated from the models above
"""

from referee.tools.models.aggregate import (
    AggregateInput,
    AggregateResult,
    Alert,
    BestIteration,
    BriefIssue,
    Escalation,
    RevisionBrief,
    Scores,
)
from referee.tools.models.budget import Budget, IterationCost, Usage
from referee.tools.models.checks import (
    BrowserCheck,
    BrowserStep,
    Check,
    CommandCheck,
    Serve,
    StaticCheck,
    TestsCheck,
)
from referee.tools.models.common import (
    ACCEPT,
    BLOCK,
    REVISE,
    SEVERITY_ORDER,
    CheckKind,
    ContextStrategy,
    Depth,
    Isolation,
    Model,
    ReasonCode,
    Scope,
    TaskType,
)
from referee.tools.models.contract import (
    Antipattern,
    Contract,
    ContractConfig,
    CreateContractInput,
    CreateContractResult,
    Criterion,
    CriterionSpec,
    GeneratorView,
    GetContractInput,
    Thresholds,
)
from referee.tools.models.evaluation import (
    CriterionResult,
    DimensionResult,
    EvaluateInput,
    Evaluation,
    EvaluationIssue,
    EvaluationTarget,
    Finding,
)
from referee.tools.models.evidence import EvidenceItem, EvidenceSummary, TestOutcome
from referee.tools.models.holdouts import (
    AddHoldoutFilesInput,
    AddHoldoutFilesResult,
    HoldoutContent,
    HoldoutFileInfo,
)
from referee.tools.models.reliability import JudgeReliability, Rate
from referee.tools.models.rubric import Rubric
from referee.tools.models.scorecard import DraftScorecard, Scorecard, Target, TenpointScorecard
from referee.tools.models.strategy import EvaluateResult, StrategicAssessment
from referee.tools.models.validation import Computed, ValidateScorecardInput, ValidationResult

__all__ = [
    "ACCEPT",
    "BLOCK",
    "REVISE",
    "SEVERITY_ORDER",
    "AddHoldoutFilesInput",
    "AddHoldoutFilesResult",
    "AggregateInput",
    "AggregateResult",
    "Alert",
    "Antipattern",
    "BestIteration",
    "BriefIssue",
    "BrowserCheck",
    "BrowserStep",
    "Budget",
    "Check",
    "CheckKind",
    "CommandCheck",
    "Computed",
    "ContextStrategy",
    "Contract",
    "ContractConfig",
    "CreateContractInput",
    "CreateContractResult",
    "Criterion",
    "CriterionResult",
    "CriterionSpec",
    "Depth",
    "DimensionResult",
    "DraftScorecard",
    "Escalation",
    "EvaluateInput",
    "EvaluateResult",
    "Evaluation",
    "EvaluationIssue",
    "EvaluationTarget",
    "EvidenceItem",
    "EvidenceSummary",
    "Finding",
    "GeneratorView",
    "GetContractInput",
    "HoldoutContent",
    "HoldoutFileInfo",
    "Isolation",
    "IterationCost",
    "JudgeReliability",
    "Model",
    "Rate",
    "ReasonCode",
    "RevisionBrief",
    "Rubric",
    "Scope",
    "Scorecard",
    "Scores",
    "Serve",
    "StaticCheck",
    "StrategicAssessment",
    "Target",
    "TaskType",
    "TenpointScorecard",
    "TestOutcome",
    "TestsCheck",
    "Thresholds",
    "Usage",
    "ValidateScorecardInput",
    "ValidationResult",
]
