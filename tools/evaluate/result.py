"""Turning what the checks found into the evaluation result and a draft scorecard."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from referee.tools.evaluate.dimensions import (
    COMPLETENESS_RULES,
    MAINTAINABILITY_RULES,
    Signals,
    derive_dimensions,
    verdict_of,
)
from referee.tools.evaluate.health import project_health
from referee.tools.evaluate.static import StaticRun
from referee.tools.evidence.recorder import EvidenceRecorder
from referee.tools.graders.base import GradeResult
from referee.tools.models.common import SEVERITY_ORDER
from referee.tools.models.contract import Contract, Criterion
from referee.tools.models.evaluation import (
    AntipatternFinding,
    CriterionResult,
    DimensionResult,
    Evaluation,
    EvaluationIssue,
    EvaluationTarget,
    Finding,
    NeedsJudgment,
    Perturbation,
    TreeChanged,
)
from referee.tools.models.evidence import EvidenceSummary
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
from referee.tools.rubrics import compute_weighted
from referee.tools.tampering.detect import Tampering

if TYPE_CHECKING:
    from referee.tools.evaluate.entry import EvaluateInput
    from referee.tools.evaluate.entry import Target as RunTarget

PROMPT_URI = "prompt://evaluator"
MAX_STATIC_ISSUES = 15


@dataclass
class Outcomes:
    results: dict[str, GradeResult] = field(default_factory=dict)
    static: StaticRun | None = None
    tampering: list[Tampering] = field(default_factory=list)
    tampering_ids: list[str] = field(default_factory=list)
    tree_changed: TreeChanged = field(default_factory=TreeChanged)
    cleanup: list[Callable[[], None]] = field(default_factory=list)
    perturbation: Perturbation | None = None


def criterion_result(criterion: Criterion, result: GradeResult | None) -> CriterionResult:
    if result is None:
        return CriterionResult(
            id=criterion.id,
            evaluator=criterion.evaluator,
            pass_=None,
            status="unscored",
            reason="manual criterion: only a judge can decide it",
            holdout=criterion.holdout,
        )
    return CriterionResult(
        id=criterion.id,
        evaluator=criterion.evaluator,
        pass_=result.passed,
        status=result.status,
        reason=result.reason,
        evidence=_evidence_text(result),
        evidence_ids=result.evidence_ids,
        holdout=criterion.holdout,
        regressions=result.regressions,
    )


def _evidence_text(result: GradeResult) -> str:
    ids = ", ".join(result.evidence_ids)
    return f"{result.reason} ({ids})" if ids else result.reason


def findings_of(static: StaticRun | None) -> list[Finding]:
    if static is None or static.report is None:
        return []
    ordered = sorted(
        static.report.findings, key=lambda f: (SEVERITY_ORDER.get(f.severity, 9), f.path, f.line)
    )
    return [
        Finding(rule=f.rule, severity=f.severity, location=f.location, message=f.message)
        for f in ordered
    ]  # type: ignore[arg-type]


def signals_of(
    criteria: list[Criterion], results: list[CriterionResult], outcomes: Outcomes, files: int
) -> Signals:
    kinds = {c.id: c.check.kind if c.check else None for c in criteria}
    scored = [r for r in results if r.pass_ is not None or (r.status == "unscored" and kinds[r.id])]
    report = outcomes.static.report if outcomes.static else None
    findings = report.findings if report else []
    return Signals(
        tests=[r for r in scored if kinds[r.id] == "tests"],
        behaviour=[r for r in scored if kinds[r.id] in ("browser", "command")],
        secrets=[f.location for f in findings if f.rule == "hardcoded_secrets"],
        maintainability=[
            (f.severity, f.location) for f in findings if f.rule in MAINTAINABILITY_RULES
        ],
        completeness=[(f.severity, f.location) for f in findings if f.rule in COMPLETENESS_RULES],
        browser=[
            outcomes.results[c.id].details
            for c in criteria
            if kinds[c.id] == "browser" and c.id in outcomes.results
        ],
        static_ids=list(outcomes.static.evidence_ids) if outcomes.static else [],
        static_ran=report is not None,
        files=files,
    )


def issues_of(
    criteria: list[Criterion],
    results: list[CriterionResult],
    outcomes: Outcomes,
    findings: list[Finding],
) -> list[EvaluationIssue]:
    """Issues for the generator; hold-out criteria are never described here (issues reach the generator)."""
    holdouts = {c.id for c in criteria if c.holdout}
    issues = [
        *_criterion_issues(results, holdouts),
        *_tamper_issues(outcomes),
        *_tree_issues(outcomes),
    ]
    static_ids = outcomes.static.evidence_ids if outcomes.static else []
    for f in findings[:MAX_STATIC_ISSUES]:
        issues.append(
            EvaluationIssue(
                severity=f.severity,
                description=f"[{f.rule}] {f.message}",
                location=f.location,
                suggestion=_suggestion(f.rule),
                evidence_ids=list(static_ids),
            )
        )
    return sorted(issues, key=lambda i: SEVERITY_ORDER[i.severity])


def _criterion_issues(results: list[CriterionResult], holdouts: set[str]) -> list[EvaluationIssue]:
    issues = []
    for r in results:
        if r.id in holdouts or r.pass_ is None:
            continue
        if r.status == "fail":
            issues.append(
                EvaluationIssue(
                    severity="HIGH",
                    description=f"criterion {r.id} fails: {r.reason}",
                    suggestion="make the criterion's check pass",
                    evidence_ids=r.evidence_ids,
                )
            )
        elif r.status == "unscored":
            issues.append(
                EvaluationIssue(
                    severity="MEDIUM",
                    description=f"criterion {r.id} could not be checked: {r.reason}",
                    suggestion="make the check runnable",
                    evidence_ids=r.evidence_ids,
                )
            )
        for test in r.regressions:
            issues.append(
                EvaluationIssue(
                    severity="HIGH",
                    description=f"regression: {test} passed at base and fails now",
                    evidence_ids=r.evidence_ids,
                )
            )
    return issues


def _tamper_issues(outcomes: Outcomes) -> list[EvaluationIssue]:
    return [
        EvaluationIssue(
            severity="HIGH",
            description=f"test tampering ({t.kind}): {t.message}",
            location=t.location,
            suggestion="restore the test and fix the code instead",
            evidence_ids=outcomes.tampering_ids,
        )
        for t in outcomes.tampering
    ]


def _tree_issues(outcomes: Outcomes) -> list[EvaluationIssue]:
    if not outcomes.tree_changed.changed:
        return []
    paths = ", ".join(outcomes.tree_changed.paths[:10])
    return [
        EvaluationIssue(
            severity="MEDIUM",
            description=f"running the checks wrote into the evaluated tree: {paths}",
            suggestion=(
                "make tests write only to temporary folders, or ignore their output in .gitignore"
            ),
        )
    ]


_SUGGESTIONS = {
    "hardcoded_secrets": (
        "remove the secret from the code, rotate it, and read it from the environment"
    ),
    "file_length": "split the file by responsibility",
    "function_length": "extract smaller functions",
    "nesting_depth": "return early or extract the inner blocks",
    "cognitive_complexity": "simplify the control flow or split the function",
    "near_duplicates": "extract the shared code",
    "test_existence": "add tests for the changed source file",
    "todo_density": "resolve the TODOs or track them as issues",
}


def _suggestion(rule: str) -> str | None:
    return _SUGGESTIONS.get(rule)


def antipatterns_of(outcomes: Outcomes) -> list[AntipatternFinding]:
    return [
        AntipatternFinding(
            id=t.kind, evidence=t.message, location=t.location, evidence_ids=outcomes.tampering_ids
        )
        for t in outcomes.tampering
    ]


def assemble(
    contract: Contract,
    rubric: Rubric,
    criteria: list[Criterion],
    target: RunTarget,
    outcomes: Outcomes,
    recorder: EvidenceRecorder,
    *,
    request: EvaluateInput,
    run_id: str,
    iteration: int,
    now: Callable[[], datetime],
    prior: dict[str, Any] | None,
) -> Evaluation:
    results = [
        criterion_result(c, outcomes.results.get(c.id) if c.check else None) for c in criteria
    ]
    findings = findings_of(outcomes.static)
    files = (
        outcomes.static.report.files_analysed if outcomes.static and outcomes.static.report else 0
    )
    dimensions = derive_dimensions(rubric, signals_of(criteria, results, outcomes, files))
    antipatterns = antipatterns_of(outcomes)
    needs = NeedsJudgment(
        criteria=[r.id for r in results if r.pass_ is None],
        dimensions=[k for k, d in dimensions.items() if d.score is None],
    )
    verdict, weighted = _verdict(rubric, dimensions, results, antipatterns, needs)
    issues = issues_of(criteria, results, outcomes, findings)
    evaluation_target = EvaluationTarget(
        repo=str(target.repo),
        tree=target.tree,
        commit=target.commit,
        base=target.base,
        changed_files=target.changed,
        dirty=_dirty(target),
    )
    draft = _draft(
        contract,
        rubric,
        request,
        run_id,
        iteration,
        now,
        evaluation_target,
        dimensions,
        results,
        issues,
        antipatterns,
        verdict,
        weighted,
    )
    health = (
        project_health(findings, [r for r in results if _kind(criteria, r.id) == "tests"], files)
        if request.scope == "project"
        else None
    )
    return Evaluation(
        project_health=health,
        run_id=run_id,
        contract_ref=contract.id,
        evaluator=request.evaluator,
        iteration=iteration,
        scope=request.scope,
        depth=request.depth,
        isolation=target.isolation,
        target=evaluation_target,  # type: ignore[arg-type]
        evidence=[EvidenceSummary.of(i) for i in recorder.items],
        criteria=results,
        findings=findings,
        findings_total=len(findings),
        dimensions=dimensions,
        issues=issues,
        antipatterns=antipatterns,
        tree_changed=outcomes.tree_changed,
        needs_judgment=needs,
        draft_scorecard=draft,
        verdict=verdict,
        weighted_score=weighted,
        prompt=PROMPT_URI,
        report=f"report://{run_id}",
        signature="",
        prior_scorecard=prior,
        warnings=list(target.warnings),
        perturbation=outcomes.perturbation,
    )


def _kind(criteria: list[Criterion], ident: str) -> str | None:
    crit = next(c for c in criteria if c.id == ident)
    return crit.check.kind if crit.check else None


def _dirty(target: RunTarget) -> bool:
    return (
        target.isolation == "inplace"
        and target.commit is not None
        and target.tree != _commit_tree(target)
    )


def _commit_tree(target: RunTarget) -> str | None:
    from referee.tools.repo import commit_tree_hash

    return commit_tree_hash(target.repo, target.commit) if target.commit else None


def _verdict(
    rubric: Rubric,
    dimensions: dict[str, DimensionResult],
    results: list[CriterionResult],
    antipatterns: list[AntipatternFinding],
    needs: NeedsJudgment,
) -> tuple[Any, float | None]:
    if needs.criteria or needs.dimensions:
        return None, None
    scores = {k: float(d.score) for k, d in dimensions.items() if d.score is not None}
    return verdict_of(rubric, scores, results, len(antipatterns)), compute_weighted(rubric, scores)


def _draft(
    contract: Contract,
    rubric: Rubric,
    request: EvaluateInput,
    run_id: str,
    iteration: int,
    now: Callable[[], datetime],
    target: EvaluationTarget,
    dimensions: dict[str, DimensionResult],
    results: list[CriterionResult],
    issues: list[EvaluationIssue],
    antipatterns: list[AntipatternFinding],
    verdict: Any,
    weighted: float | None,
) -> DraftScorecard:
    evaluator = request.evaluator or contract.evaluators[0]
    return DraftScorecard(
        contract_ref=contract.id,
        evaluator=evaluator,
        evaluator_model=request.evaluator_model,
        iteration=iteration,
        timestamp=now().isoformat(),
        rubric=RubricRef(ref=rubric.name, version=rubric.version),
        evaluator_prompt_version=contract.evaluator_prompt_version,
        target=Target(tree=target.tree, commit=target.commit),
        dimensions={
            k: DraftDimension(score=d.score, evidence=d.evidence, evidence_ids=d.evidence_ids)
            for k, d in dimensions.items()
        },
        criteria=[
            DraftCriterion(
                id=r.id, pass_=r.pass_, evidence=r.evidence or r.reason, evidence_ids=r.evidence_ids
            )
            for r in results
            if request.evaluator or r.evaluator == evaluator or len(contract.evaluators) == 1
        ],
        issues=[
            Issue(
                severity=i.severity,
                description=i.description,
                location=i.location,
                suggestion=i.suggestion,
                evidence_ids=i.evidence_ids,
            )
            for i in issues
        ],
        antipatterns_detected=[
            DetectedAntipattern(id=a.id, evidence=f"{a.evidence} at {a.location}")
            for a in antipatterns
        ],
        verdict=verdict,
        weighted_score=weighted,
        summary=_summary(results, issues),
        guidance=_guidance(results, issues),
        run_id=run_id,
        signature="",
    )


def _summary(results: list[CriterionResult], issues: list[EvaluationIssue]) -> str:
    passed = sum(1 for r in results if r.status == "pass")
    judged = sum(1 for r in results if r.pass_ is not None)
    return (
        f"{passed}/{judged} mechanically checked criteria pass; {len(issues)} issue(s) found by"
        " referee."
    )


def _guidance(results: list[CriterionResult], issues: list[EvaluationIssue]) -> str:
    top = [i for i in issues if i.severity in ("CRITICAL", "HIGH")][:5]
    return " ".join(f"Fix: {i.description}." for i in top)
