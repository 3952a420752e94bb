"""The issues an evaluation reports, and the antipatterns it detected.

Issues reach the generator (through the draft scorecard and the revision brief), so a hold-out
criterion is never described here.
"""

from __future__ import annotations

from referee.tools.evaluate.adequacy import adequacy_issues
from referee.tools.evaluate.run import Outcomes
from referee.tools.models.antipatterns import ANTIPATTERNS
from referee.tools.models.common import SEVERITY_ORDER, ReasonCode, Severity
from referee.tools.models.contract import Criterion
from referee.tools.models.evaluation import (
    AntipatternFinding,
    CriterionResult,
    EvaluationIssue,
    Finding,
)
from referee.tools.models.reasons import REASONS

__all__ = ["MAX_STATIC_ISSUES", "antipatterns_of", "issues_of"]

MAX_STATIC_ISSUES = 15
# Reasons that are the run's, not a criterion's: every browser criterion shares the served app.
RUN_LEVEL = (ReasonCode.PORT_IN_USE, ReasonCode.SERVE_FAILED, ReasonCode.SERVE_EXITED)


def issues_of(
    criteria: list[Criterion],
    results: list[CriterionResult],
    outcomes: Outcomes,
    findings: list[Finding],
) -> list[EvaluationIssue]:
    """Issues for the generator; hold-out criteria are never described here (issues reach the
    generator)."""
    holdouts = {c.id for c in criteria if c.holdout}
    issues = [
        *_criterion_issues(results, holdouts),
        *adequacy_issues(results),
        *_tamper_issues(outcomes),
        *_tree_issues(outcomes),
        *_perturbation_issues(outcomes),
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
    visible = [r for r in results if r.id not in holdouts and r.pass_ is not None]
    issues = _run_level_issues(visible)
    for r in visible:
        if r.status == "unscored" and r.reason_code in RUN_LEVEL:
            continue
        # PASS_TO_PASS broken: named before the criterion itself.
        issues += [
            _issue(
                r,
                "HIGH",
                f"regression: {test} passed at base and fails now",
                "restore the behaviour this test checks",
            )
            for test in r.regressions
        ]
        if r.status == "fail":
            issues.append(
                _issue(
                    r,
                    "HIGH",
                    f"criterion {r.id} fails: {r.reason}",
                    "make the criterion's check pass",
                )
            )
        elif r.status == "unscored" and r.reason_code != ReasonCode.FLAKY:
            # A flaky criterion's issues name each flaky test at its line (adequacy_issues).
            issues.append(
                _issue(
                    r,
                    "MEDIUM",
                    f"criterion {r.id} could not be checked: {r.reason}",
                    "make the check runnable",
                )
            )
    return issues


def _run_level_issues(results: list[CriterionResult]) -> list[EvaluationIssue]:
    """One issue per condition of the whole run (a busy port, the served app gone), naming every
    criterion it left unscored: the same cause, said once."""
    issues = []
    for code in RUN_LEVEL:
        hit = [r for r in results if r.status == "unscored" and r.reason_code == code]
        if not hit:
            continue
        ids = ", ".join(r.id for r in hit)
        reason = hit[0].reason.removeprefix("not run: ")
        issues.append(
            EvaluationIssue(
                severity="MEDIUM",
                description=f"{'criteria' if len(hit) > 1 else 'criterion'} {ids} could not be"
                f" checked: {reason}",
                suggestion=REASONS[code].fix,
                evidence_ids=sorted({e for r in hit for e in r.evidence_ids}),
            )
        )
    return issues


def _issue(
    result: CriterionResult, severity: Severity, description: str, suggestion: str
) -> EvaluationIssue:
    return EvaluationIssue(
        severity=severity,
        description=description,
        suggestion=suggestion,
        evidence_ids=result.evidence_ids,
    )


def _tamper_issues(outcomes: Outcomes) -> list[EvaluationIssue]:
    return [
        EvaluationIssue(
            severity="HIGH",
            description=f"test tampering ({t.kind}): {t.message}",
            location=t.location,
            suggestion=_fix_of(t.kind),
            evidence_ids=outcomes.tampering_ids,
        )
        for t in outcomes.tampering
    ]


def _fix_of(kind: str) -> str:
    """The next step for an antipattern of this kind (its entry in the antipatterns' table)."""
    known = ANTIPATTERNS.get(kind)
    return known.fix if known is not None else ANTIPATTERNS["test_tampering"].fix


def _perturbation_issues(outcomes: Outcomes) -> list[EvaluationIssue]:
    """Tests that pass on the change and fail on a copy of it that means the same (depth
    `deep`): they depend on how the code is written (its names, comments, layout, the files'
    times), not on what it does. A perturbation that broke honest code (a name looked up by a
    string) reads alike, so it is the judge's to weigh."""
    found = outcomes.perturbation
    if found is None or found.semantics_kept is not False:
        return []
    return [
        EvaluationIssue(
            severity="MEDIUM",
            description=(
                "the tests fail on a copy of the changed files that means the same"
                f" ({', '.join(found.transforms) or 'perturbed'}: {', '.join(found.files[:5])}):"
                " what they check depends on how the code is written, not on what it does"
            ),
            suggestion=(
                "make the tests depend on the code's behaviour only; if a name is looked up by"
                " a string, say so to the judge"
            ),
            evidence_ids=list(found.evidence_ids),
        )
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
