"""Pydantic models: the single source of truth for referee's formats (schemas/ is generated)."""

from .aggregate import AggregateResult, Alert, BestIteration, BriefIssue, Escalation, RevisionBrief, Scores
from .checks import BrowserCheck, Check, CommandCheck, Serve, StaticCheck, TestsCheck
from .common import ACCEPT, BLOCK, REVISE, SEVERITY_ORDER, Model
from .contract import Contract, CreateContractInput, Criterion, CriterionSpec, GeneratorView
from .evaluation import CriterionResult, DimensionResult, Evaluation, EvaluationIssue, Finding
from .evidence import EvidenceItem, EvidenceSummary, TestOutcome
from .rubric import Rubric
from .scorecard import DraftScorecard, Scorecard, TenpointScorecard
from .validation import Computed, ValidationResult

__all__ = [
    "ACCEPT", "BLOCK", "REVISE", "SEVERITY_ORDER",
    "AggregateResult", "Alert", "BestIteration", "BriefIssue", "BrowserCheck", "Check", "CommandCheck",
    "Computed", "Contract", "CreateContractInput", "Criterion", "CriterionResult", "CriterionSpec",
    "DimensionResult", "DraftScorecard", "Escalation", "Evaluation", "EvaluationIssue", "EvidenceItem",
    "EvidenceSummary", "Finding", "GeneratorView", "Model", "RevisionBrief", "Rubric", "Scorecard", "Scores",
    "Serve", "StaticCheck", "TenpointScorecard", "TestOutcome", "TestsCheck", "ValidationResult",
]
