"""Pydantic models: the single source of truth for referee's formats (schemas/ is generated)."""

from referee.tools.models.aggregate import AggregateResult, Alert, BestIteration, BriefIssue, Escalation, RevisionBrief, Scores
from referee.tools.models.checks import BrowserCheck, Check, CommandCheck, Serve, StaticCheck, TestsCheck
from referee.tools.models.common import (
    ACCEPT, BLOCK, REVISE, SEVERITY_ORDER, ContextStrategy, Depth, Isolation, Model, Scope, TaskType,
)
from referee.tools.models.contract import (
    Antipattern, Contract, CreateContractInput, CreateContractResult, Criterion, CriterionSpec, GeneratorView, Thresholds,
)
from referee.tools.models.evaluation import CriterionResult, DimensionResult, Evaluation, EvaluationIssue, Finding
from referee.tools.models.evidence import EvidenceItem, EvidenceSummary, TestOutcome
from referee.tools.models.rubric import Rubric
from referee.tools.models.scorecard import DraftScorecard, Scorecard, TenpointScorecard
from referee.tools.models.validation import Computed, ValidationResult

__all__ = [
    "ACCEPT", "BLOCK", "REVISE", "SEVERITY_ORDER",
    "AggregateResult", "Alert", "Antipattern", "ContextStrategy", "CreateContractResult", "Depth",
    "Isolation", "Scope", "TaskType", "Thresholds", "BestIteration", "BriefIssue", "BrowserCheck", "Check", "CommandCheck",
    "Computed", "Contract", "CreateContractInput", "Criterion", "CriterionResult", "CriterionSpec",
    "DimensionResult", "DraftScorecard", "Escalation", "Evaluation", "EvaluationIssue", "EvidenceItem",
    "EvidenceSummary", "Finding", "GeneratorView", "Model", "RevisionBrief", "Rubric", "Scorecard", "Scores",
    "Serve", "StaticCheck", "TenpointScorecard", "TestOutcome", "TestsCheck", "ValidationResult",
]
