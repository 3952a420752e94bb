"""Turning what the checks found into the evaluation result and its draft scorecard."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime

from referee.tools.evaluate.adequacy import adequacy_text
from referee.tools.evaluate.dimensions import derive_dimensions, signals_of
from referee.tools.evaluate.draft import DraftFacts, draft_scorecard
from referee.tools.evaluate.health import project_health
from referee.tools.evaluate.issues import antipatterns_of, issues_of
from referee.tools.evaluate.run import Outcomes
from referee.tools.evaluate.target import Workspace
from referee.tools.evidence.recorder import EvidenceRecorder
from referee.tools.graders.base import GradeResult, StaticRun
from referee.tools.models.adequacy import TestAdequacy
from referee.tools.models.common import SEVERITY_ORDER, ReasonCode, Verdict
from referee.tools.models.contract import Contract, Criterion
from referee.tools.models.evaluation import (
    BaselineFindings,
    CriterionResult,
    DimensionResult,
    EvaluateInput,
    Evaluation,
    Finding,
    NeedsJudgment,
)
from referee.tools.models.evidence import EvidenceSummary
from referee.tools.models.rubric import Rubric
from referee.tools.rubrics import compute_weighted, final_verdict, verdict_for
from referee.tools.static import StaticFinding
from referee.tools.text import shown

__all__ = ["PROMPT_URI", "assemble", "baseline_of", "criterion_result", "findings_of"]

PROMPT_URI = "prompt://evaluator"
_BASELINE_SHOWN = 5
# Checks that ran and left the verdict to the judge on purpose (a screenshot with no baseline
# yet: the judge reads the image), rather than failing to judge: the criterion waits for the
# judge as a manual one does, where any other unscored check fails it.
JUDGE_DECIDES = frozenset({ReasonCode.NO_BASELINE})


def criterion_result(criterion: Criterion, result: GradeResult | None) -> CriterionResult:
    """A criterion's verdict as evaluate reports it (a manual one waits for a judge)."""
    if result is None:
        return CriterionResult(
            id=criterion.id,
            evaluator=criterion.evaluator,
            pass_=None,
            status="unscored",
            reason_code=ReasonCode.MANUAL,
            reason="manual criterion: only a judge can decide it",
            holdout=criterion.holdout,
        )
    ids = ", ".join(result.evidence_ids)
    evidence = f"{result.reason} ({ids})" if ids else result.reason
    adequacy = _shown_coverage(result.adequacy)
    if more := adequacy_text(adequacy):
        evidence += f"; {more}"
    return CriterionResult(
        id=criterion.id,
        evaluator=criterion.evaluator,
        pass_=None if result.code in JUDGE_DECIDES else result.passed,
        status=result.status,
        reason_code=result.code,
        reason=result.reason,
        evidence=evidence,
        evidence_ids=result.evidence_ids,
        holdout=criterion.holdout,
        regressions=result.regressions,
        tests=result.tests,
        adequacy=adequacy,
    )


def _shown_coverage(adequacy: TestAdequacy | None) -> TestAdequacy | None:
    """The files of a diff coverage as a result names them: shown (tools/text.py)."""
    found = adequacy.diff_coverage if adequacy else None
    if adequacy is None or found is None:
        return adequacy
    files = [f.model_copy(update={"path": shown(f.path)}) for f in found.files]
    unmeasured = [shown(p) for p in found.unmeasured]
    coverage = found.model_copy(update={"files": files, "unmeasured": unmeasured})
    return adequacy.model_copy(update={"diff_coverage": coverage})


def findings_of(static: StaticRun | None) -> list[Finding]:
    """The static pipeline's findings (at task scope the change's own), most severe first."""
    if static is None or static.report is None:
        return []
    return _ordered(static.report.findings)


def _ordered(found: Sequence[StaticFinding]) -> list[Finding]:
    ordered = sorted(found, key=lambda f: (SEVERITY_ORDER.get(f.severity, 9), f.path, f.line))
    return [
        Finding(
            rule=f.rule, severity=f.severity, location=shown(f.location), message=shown(f.message)
        )
        for f in ordered
    ]


def baseline_of(static: StaticRun | None) -> BaselineFindings | None:
    """Findings that predate the change: a count per rule and the most severe few."""
    if static is None or not static.baseline:
        return None
    return BaselineFindings(
        total=len(static.baseline),
        by_rule=dict(Counter(f.rule for f in static.baseline).most_common()),
        top=_ordered(static.baseline)[:_BASELINE_SHOWN],
    )


def assemble(
    contract: Contract,
    rubric: Rubric,
    criteria: list[Criterion],
    workspace: Workspace,
    outcomes: Outcomes,
    recorder: EvidenceRecorder,
    *,
    request: EvaluateInput,
    run_id: str,
    iteration: int,
    now: Callable[[], datetime],
    prior: str | None,
) -> Evaluation:
    """Build the evaluation: criterion verdicts, findings, dimensions, issues and the draft."""
    results = [
        criterion_result(c, outcomes.results.get(c.id) if c.check else None) for c in criteria
    ]
    findings = findings_of(outcomes.static)
    report = outcomes.static.report if outcomes.static else None
    files = report.files_analysed if report else 0
    dimensions = derive_dimensions(rubric, signals_of(criteria, results, outcomes, files))
    antipatterns = antipatterns_of(outcomes)
    needs = NeedsJudgment(
        criteria=[r.id for r in results if r.pass_ is None],
        dimensions=[k for k, d in dimensions.items() if d.score is None],
    )
    verdict, weighted = _verdict(rubric, dimensions, results, bool(antipatterns), needs)
    issues = issues_of(criteria, results, outcomes, findings)
    draft = draft_scorecard(
        DraftFacts(
            contract=contract,
            rubric=rubric,
            evaluator=request.evaluator,
            evaluator_model=request.evaluator_model,
            run_id=run_id,
            iteration=iteration,
            target=workspace.target,
            dimensions=dimensions,
            results=results,
            issues=issues,
            antipatterns=antipatterns,
            verdict=verdict,
            weighted=weighted,
        ),
        now,
    )
    kinds = {c.id: c.check.kind if c.check else None for c in criteria}
    health = (
        project_health(findings, [r for r in results if kinds[r.id] == "tests"], files)
        if request.scope == "project"
        else None
    )
    return Evaluation(
        project_health=health,
        run_id=run_id,
        contract_ref=contract.id,
        evaluator=request.evaluator,
        iteration=iteration,
        scope="project" if request.scope == "project" else "task",
        depth=request.depth,
        isolation=workspace.isolation,
        target=workspace.target,
        evidence=[EvidenceSummary.of(i) for i in recorder.items],
        criteria=results,
        findings=findings,
        findings_total=len(findings),
        baseline_findings=baseline_of(outcomes.static),
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
        warnings=list(workspace.warnings),
        perturbation=outcomes.perturbation,
    )


def _verdict(
    rubric: Rubric,
    dimensions: dict[str, DimensionResult],
    results: list[CriterionResult],
    antipatterns: bool,
    needs: NeedsJudgment,
) -> tuple[Verdict | None, float | None]:
    """The verdict and weighted score, when nothing is left for a judge."""
    if needs.criteria or needs.dimensions:
        return None, None
    scores = {k: float(d.score) for k, d in dimensions.items() if d.score is not None}
    failed = any(r.status != "pass" for r in results)
    verdict = final_verdict(
        verdict_for(rubric, scores), failed_criteria=failed, antipatterns=antipatterns
    )
    return verdict, compute_weighted(rubric, scores)
