"""What test adequacy tells the generator and the judge: the changed lines no test executed,
the mutants no test killed and the flaky tests, each at file:line with its evidence id.

Hold-out criteria are left out: their tests must stay invisible to the generator, and an issue
that says "these lines are covered by something" would hint at them.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.tools.adequacy import parse_ranges, ranges
from referee.tools.graders.mutation import describe
from referee.tools.models.adequacy import TestAdequacy
from referee.tools.models.evaluation import CriterionResult, EvaluationIssue
from referee.tools.text import counted

__all__ = ["adequacy_issues", "adequacy_text"]

MAX_MUTANT_ISSUES = 10


def adequacy_issues(results: Sequence[CriterionResult]) -> list[EvaluationIssue]:
    """Uncovered changed lines (what no tests check executed), surviving mutants, flaky tests."""
    visible = [r for r in results if r.adequacy is not None and not r.holdout]
    return [*_uncovered(visible), *_survivors(visible), *_flaky(visible)]


def _uncovered(results: Sequence[CriterionResult]) -> list[EvaluationIssue]:
    # A line counts as executed when any tests check executed it.
    missing: dict[str, set[int]] = {}
    seen: dict[str, set[int]] = {}
    ids: dict[str, list[str]] = {}
    names: dict[str, list[str]] = {}
    for r in results:
        found = r.adequacy.diff_coverage if r.adequacy else None
        for f in found.files if found else []:
            lines = parse_ranges(f.uncovered)
            missing[f.path] = missing[f.path] & lines if f.path in missing else lines
            seen.setdefault(f.path, set()).update(lines)
            if found and found.evidence_id:
                ids.setdefault(f.path, []).append(found.evidence_id)
            names.setdefault(f.path, []).append(r.id)
    issues = []
    for path in sorted(missing):
        if not missing[path]:
            continue
        spans = ranges(missing[path], seen[path])
        issues.append(
            EvaluationIssue(
                severity="MEDIUM",
                description=(
                    f"changed lines no test executed: {', '.join(f'{path}:{s}' for s in spans)}"
                    f" (measured in the runs of {', '.join(names[path])})"
                ),
                location=f"{path}:{min(missing[path])}",
                suggestion="add a test that runs these lines and checks what they do",
                evidence_ids=list(dict.fromkeys(ids[path])),
            )
        )
    return issues


def _survivors(results: Sequence[CriterionResult]) -> list[EvaluationIssue]:
    issues = []
    for r in results:
        mutation = r.adequacy.mutation if r.adequacy else None
        for m in mutation.survived if mutation else []:
            issues.append(
                EvaluationIssue(
                    severity="MEDIUM",
                    description=(
                        f"the tests still pass when {describe(m)} ({r.id}: its tests run this"
                        " line but do not check its result)"
                    ),
                    location=m.location,
                    suggestion="add an assertion that this mutation would break",
                    evidence_ids=[mutation.evidence_id]
                    if mutation and mutation.evidence_id
                    else [],
                )
            )
    return issues[:MAX_MUTANT_ISSUES]


def _flaky(results: Sequence[CriterionResult]) -> list[EvaluationIssue]:
    return [
        EvaluationIssue(
            severity="MEDIUM",
            description=(
                f"flaky test: {f.test} passed {f.passed} of {f.runs} runs of the same tree ({r.id})"
            ),
            location=f.location,
            suggestion="remove the dependence on timing, order, randomness or leftover state",
            evidence_ids=f.evidence_ids,
        )
        for r in results
        for f in (r.adequacy.flaky if r.adequacy else [])
    ]


def adequacy_text(adequacy: TestAdequacy | None) -> str:
    """One sentence for a criterion's evidence: diff coverage, mutation score, repeats."""
    if adequacy is None:
        return ""
    parts = []
    found = adequacy.diff_coverage
    if found and found.percent is not None:
        missing = [f"{f.path}:{s}" for f in found.files for s in f.uncovered][:5]
        parts.append(
            f"diff coverage {found.percent:g}% ({found.covered}/{found.changed} changed lines"
            + (f"; not executed: {', '.join(missing)}" if missing else "")
            + f", {found.evidence_id})"
        )
    elif found and found.note:
        parts.append(f"diff coverage: not measured ({found.note})")
    elif found:
        parts.append("diff coverage: no changed statement was measured")
    if found and found.unmeasured and not found.note:
        parts.append(f"not measurable: {', '.join(found.unmeasured[:5])}")
    mutation = adequacy.mutation
    if mutation and mutation.score is not None:
        parts.append(
            f"mutation score {mutation.score:g} ({mutation.killed}/{mutation.run} mutants killed"
            + (f"; {len(mutation.survived)} survived" if mutation.survived else "")
            + (f"; {mutation.not_compiled} did not compile" if mutation.not_compiled else "")
            + f", {mutation.evidence_id})"
        )
    elif mutation and mutation.note:
        parts.append(f"mutation: {mutation.note}")
    if adequacy.repeats > 1:
        parts.append(f"{adequacy.repeats} runs, {counted(len(adequacy.flaky), 'flaky test')}")
    return "; ".join(parts)
