"""The draft scorecard: a canonical scorecard pre-filled with everything referee knows.

Nulls mark what only a judge can fill; the judge completes it and submits it to
validate_scorecard with the run id and signature unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from referee.tools.models.common import Verdict
from referee.tools.models.contract import Contract
from referee.tools.models.evaluation import (
    AntipatternFinding,
    CriterionResult,
    DimensionResult,
    EvaluationIssue,
    EvaluationTarget,
)
from referee.tools.models.rubric import Rubric
from referee.tools.models.scorecard import (
    DetectedAntipattern,
    DraftCriterion,
    DraftDimension,
    DraftScorecard,
    Issue,
    RubricRef,
    Target,
)
from referee.tools.text import counted

__all__ = ["DRAFT_ISSUES", "DraftFacts", "draft_scorecard", "drafted_issues"]


@dataclass(frozen=True)
class DraftFacts:
    """What an evaluation established, as the draft scorecard needs it."""

    contract: Contract
    rubric: Rubric
    evaluator: str | None
    evaluator_model: str | None
    run_id: str
    iteration: int
    target: EvaluationTarget
    dimensions: dict[str, DimensionResult]
    results: list[CriterionResult]
    issues: list[EvaluationIssue]
    antipatterns: list[AntipatternFinding]
    verdict: Verdict | None
    weighted: float | None


def draft_scorecard(facts: DraftFacts, now: Callable[[], datetime]) -> DraftScorecard:
    """The scorecard a judge completes: dimensions, criteria, issues and antipatterns filled in."""
    contract = facts.contract
    evaluator = facts.evaluator or contract.evaluators[0]
    return DraftScorecard(
        contract_ref=contract.id,
        evaluator=evaluator,
        evaluator_model=facts.evaluator_model,
        iteration=facts.iteration,
        timestamp=now().isoformat(),
        rubric=RubricRef(ref=facts.rubric.name, version=facts.rubric.version),
        evaluator_prompt_version=contract.evaluator_prompt_version,
        target=Target(tree=facts.target.tree, commit=facts.target.commit),
        dimensions={
            k: DraftDimension(score=d.score, evidence=d.evidence, evidence_ids=d.evidence_ids)
            for k, d in facts.dimensions.items()
        },
        criteria=[
            DraftCriterion(
                id=r.id, pass_=r.pass_, evidence=r.evidence or r.reason, evidence_ids=r.evidence_ids
            )
            for r in facts.results
            if facts.evaluator or r.evaluator == evaluator or len(contract.evaluators) == 1
        ],
        issues=[
            Issue(
                severity=i.severity,
                description=i.description,
                location=i.location,
                suggestion=i.suggestion,
                evidence_ids=i.evidence_ids,
            )
            for i in drafted_issues(facts.issues)
        ],
        antipatterns_detected=[
            DetectedAntipattern(id=a.id, evidence=f"{a.evidence} at {a.location}")
            for a in facts.antipatterns
        ],
        verdict=facts.verdict,
        weighted_score=facts.weighted,
        summary=_summary(facts.results, facts.issues),
        guidance=_guidance(facts.issues),
        run_id=facts.run_id,
        signature="",
    )


# The judge keeps every issue of the draft (validate_scorecard refuses a card that drops one), so
# the draft holds what a result can carry: every CRITICAL and HIGH issue, then the most severe
# others up to this many. The rest stays in the evaluation's issues and its report.
DRAFT_ISSUES = 20
_URGENT = ("CRITICAL", "HIGH")


def drafted_issues(issues: list[EvaluationIssue]) -> list[EvaluationIssue]:
    """The issues the draft scorecard lists, in the order found (most severe first)."""
    urgent = sum(1 for i in issues if i.severity in _URGENT)
    room = max(DRAFT_ISSUES - urgent, 0)
    others = {id(i) for i in [i for i in issues if i.severity not in _URGENT][:room]}
    return [i for i in issues if i.severity in _URGENT or id(i) in others]


def _summary(results: list[CriterionResult], issues: list[EvaluationIssue]) -> str:
    passed = sum(1 for r in results if r.status == "pass")
    judged = sum(1 for r in results if r.pass_ is not None)
    listed = len(drafted_issues(issues))
    more = f" ({listed} listed here, all in the report)" if listed < len(issues) else ""
    return (
        f"{passed}/{judged} mechanically checked criteria pass; {counted(len(issues), 'issue')}"
        f" found by referee{more}."
    )


def _guidance(issues: list[EvaluationIssue]) -> str:
    top = [i for i in issues if i.severity in ("CRITICAL", "HIGH")][:5]
    return " ".join(f"Fix: {i.description}." for i in top)
