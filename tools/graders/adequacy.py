"""Test adequacy of a tests criterion: diff coverage from its own run, the `min_diff_coverage`
gate, and (at depth `deep` or with `mutation: true`) mutants of the changed lines.

Diff coverage and mutants are about the change since base (at task and project scope alike),
on the changed source files (test files are what does the covering, not what is covered):
coverage for Python, JavaScript and TypeScript, Go and PHP; mutants for those and for Rust and
Java, whose changed lines are all mutated (no coverage tool here says which of them the tests
executed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import anyio.to_thread

from referee.tools.adequacy import MEASURABLE, Lines, measure, mutable, parse_ranges
from referee.tools.graders.base import GradeContext, GradeResult, unscored
from referee.tools.graders.fail_to_pass import SuiteRun
from referee.tools.graders.mutation import describe, run_mutants
from referee.tools.models.adequacy import DiffCoverage, FlakyTest, Mutation, TestAdequacy
from referee.tools.models.checks import TestsCheck
from referee.tools.models.common import ReasonCode
from referee.tools.models.contract import Criterion
from referee.tools.static.paths import is_test_path, language_of
from referee.tools.text import shown

__all__ = ["Repeats", "assess", "changed_sources", "coverage_reason"]

_DEPENDENCY_PARTS = frozenset({"node_modules", ".venv", "venv", ".tox", "vendor", "site-packages"})


@dataclass(frozen=True)
class Repeats:
    """How many times the suite ran, and the tests whose outcome changed between runs."""

    runs: int = 1
    flaky: list[FlakyTest] = field(default_factory=list)


async def changed_sources(ctx: GradeContext) -> list[str]:
    """The changed source files (not tests) referee can measure."""
    return await _changed_code(ctx, measurable=True)


async def unmeasurable_sources(ctx: GradeContext) -> list[str]:
    """The changed files of code (not tests) no coverage tool of referee's measures (Go, Rust …)."""
    return await _changed_code(ctx, measurable=False)


async def _changed_code(ctx: GradeContext, *, measurable: bool) -> list[str]:
    # The change since base at every scope: a diff-coverage minimum at project scope holds the
    # tests to the same changed lines (never a silent pass for want of them).
    if ctx.base is None:
        return []
    changed = await ctx.changed_lines()
    return sorted(
        rel
        for rel in changed
        if (rel.endswith(MEASURABLE) if measurable else _unmeasurable_code(rel))
        and not is_test_path(rel)
        and not _DEPENDENCY_PARTS.intersection(rel.split("/"))
        and (ctx.workdir / rel).is_file()
    )


def _unmeasurable_code(rel: str) -> bool:
    return language_of(rel) is not None and not rel.endswith(MEASURABLE)


async def assess(
    ctx: GradeContext,
    criterion: Criterion,
    grade: GradeResult,
    now: SuiteRun,
    repeats: Repeats,
    sources: Sequence[str],
) -> GradeResult:
    """The grade with its adequacy facts, failed below `min_diff_coverage`."""
    check = criterion.check
    assert isinstance(check, TestsCheck)
    adequacy = TestAdequacy(repeats=repeats.runs, flaky=repeats.flaky)
    unmeasurable = await unmeasurable_sources(ctx)
    changed = await ctx.changed_lines() if sources or unmeasurable else {}
    others = unmeasurable if check.coverage else []
    if now.coverage is not None:
        found = await anyio.to_thread.run_sync(measure, now.coverage, ctx.workdir, changed)
        if found is not None:
            found.evidence_id = now.evidence_id
            # Files the run's tool does not measure (TypeScript under node --test, Go …) are
            # named, never dropped: a percent over the rest must not read as the whole change.
            left = [s for s in sources if s not in now.coverage.sources]
            found.unmeasured = sorted({*found.unmeasured, *left, *others})
            adequacy.diff_coverage = found
    unmeasured = [*sources, *others] if adequacy.diff_coverage is None else []
    grade = _gate(grade, check, adequacy.diff_coverage, unmeasured, bool(sources or others))
    wants_mutants = check.mutation or ctx.depth == "deep" or check.min_mutation_score is not None
    code = [s for s in (*sources, *unmeasurable) if mutable(s)]
    # Mutants need a suite that passes unmutated, and say nothing about a flaky one.
    if code and wants_mutants and now.verdict.status == "pass" and grade.status != "unscored":
        targets = _targets(changed, code, adequacy.diff_coverage)
        adequacy.mutation = await run_mutants(ctx, criterion.id, check, now, targets)
        if adequacy.mutation.evidence_id:
            grade.evidence_ids.append(adequacy.mutation.evidence_id)
    elif check.mutation or check.min_mutation_score is not None:
        # Asked for by name: say why there is no score rather than leave it out.
        adequacy.mutation = Mutation(note=_no_mutants(ctx, [*sources, *unmeasurable], now, grade))
    grade = _mutation_gate(grade, check, adequacy.mutation)
    measured = adequacy.diff_coverage or adequacy.mutation or repeats.runs > 1
    grade.adequacy = adequacy if measured else None
    return grade


def _mutation_gate(grade: GradeResult, check: TestsCheck, found: Mutation | None) -> GradeResult:
    """Below `min_mutation_score` the criterion fails, each survivor named; no score: unscored."""
    minimum = check.min_mutation_score
    if minimum is None or grade.status != "pass":
        return grade
    if found is None or found.score is None:
        why = found.note if found is not None and found.note else "no mutant ran"
        return unscored(
            ReasonCode.MUTATION_SCORE_LOW,
            f"{grade.reason}; min_mutation_score {minimum:g} is set, but there is no score: {why}",
            grade.evidence_ids,
        )
    if found.score >= minimum:
        return grade
    survivors = "; ".join(describe(m) for m in found.survived[:8])
    more = f" and {len(found.survived) - 8} more" if len(found.survived) > 8 else ""
    return GradeResult(
        status="fail",
        code=ReasonCode.MUTATION_SCORE_LOW,
        reason=(
            f"{grade.reason}; but the mutation score is {found.score:g} ({found.killed}/{found.run}"
            f" mutants killed), below min_mutation_score {minimum:g}; the tests still pass when:"
            f" {survivors}{more}"
        ),
        evidence_ids=grade.evidence_ids,
        regressions=grade.regressions,
        details=grade.details,
        tests=grade.tests,
    )


def _no_mutants(
    ctx: GradeContext, sources: Sequence[str], now: SuiteRun, grade: GradeResult
) -> str:
    if ctx.base is None:
        return "no mutants: they are made of the change's lines, and the contract has no base"
    if not sources:
        return "no mutants: the change touches no source file"
    if not any(mutable(s) for s in sources):
        return (
            "no mutants: mutants are made of changed lines of Python, JavaScript, TypeScript, Go,"
            f" Rust, Java and PHP, and the change has none ({_named(sources)})"
        )
    if now.verdict.status != "pass":
        return "no mutants: they need a suite that passes unmutated"
    return f"no mutants: the criterion is unscored ({grade.reason})"


def _gate(
    grade: GradeResult,
    check: TestsCheck,
    found: DiffCoverage | None,
    unmeasured: Sequence[str],
    changed: bool,
) -> GradeResult:
    minimum = check.min_diff_coverage
    if minimum is None or grade.status != "pass" or not changed:
        return grade
    if found is None:
        return unscored(
            ReasonCode.DIFF_COVERAGE_LOW,
            f"{grade.reason}; min_diff_coverage {minimum:g}% is set, but referee could not"
            f" measure this command's coverage of {_named(unmeasured) or 'the change'}"
            " (Python: pytest or unittest; JavaScript: node --test or mocha; JavaScript and"
            " TypeScript: jest, and vitest with a coverage provider installed; directly or"
            f" through a package.json script; Go: go test; PHP: phpunit with pcov or Xdebug)"
            f"{_no_tool(unmeasured)}",
            grade.evidence_ids,
        )
    if found.note and found.percent is None:
        return unscored(
            ReasonCode.DIFF_COVERAGE_LOW,
            f"{grade.reason}; min_diff_coverage {minimum:g}% is set, but nothing was measured:"
            f" {found.note}",
            grade.evidence_ids,
        )
    left = _named(found.unmeasured)
    if found.percent is None and found.unmeasured:
        return unscored(
            ReasonCode.DIFF_COVERAGE_LOW,
            f"{grade.reason}; min_diff_coverage {minimum:g}% is set, but no changed statement"
            f" was measured (not measurable: {left}){_no_tool(found.unmeasured)}",
            grade.evidence_ids,
        )
    if found.percent is None or found.percent >= minimum:
        if found.unmeasured:
            grade.reason += f"; diff coverage {found.percent:g}% of the measured files only"
            grade.reason += f" (not measurable: {left}){_no_tool(found.unmeasured)}"
        return grade
    return GradeResult(
        status="fail",
        code=ReasonCode.DIFF_COVERAGE_LOW,
        reason=f"{grade.reason}; but {coverage_reason(found)}, below min_diff_coverage"
        f" {minimum:g}%",
        evidence_ids=grade.evidence_ids,
        regressions=grade.regressions,
        details=grade.details,
        tests=grade.tests,
    )


# What would measure the languages referee has no coverage tool for (none is installed here).
_WOULD_MEASURE = {"rust": "cargo-llvm-cov", "java": "JaCoCo", "kotlin": "JaCoCo"}


def _no_tool(paths: Sequence[str]) -> str:
    """`; no coverage tool for rust here (cargo-llvm-cov would measure it)`, per such language."""
    wanted = sorted({lang for p in paths if (lang := language_of(p)) in _WOULD_MEASURE})
    return "".join(
        f"; no coverage tool for {lang} here ({_WOULD_MEASURE[lang]} would measure it)"
        for lang in wanted
    )


def _named(paths: Sequence[str]) -> str:
    """`cmd/main.go (go), src/a.ts (typescript)`: each file with its language, the first 8."""
    named = [f"{shown(p)} ({language_of(p)})" if language_of(p) else shown(p) for p in paths[:8]]
    return ", ".join(named) + (f" and {len(paths) - 8} more" if len(paths) > 8 else "")


def coverage_reason(found: DiffCoverage) -> str:
    """`the tests executed 2 of 5 changed lines (40%); not executed: src/a.py:3-5`."""
    missing = [f"{shown(f.path)}:{r}" for f in found.files for r in f.uncovered]
    listed = ", ".join(missing[:8]) + (f" (+{len(missing) - 8} more)" if len(missing) > 8 else "")
    text = (
        f"the tests executed {found.covered} of {found.changed} changed lines ({found.percent:g}%)"
    )
    return f"{text}; not executed: {listed}" if missing else text


def _targets(
    changed: Mapping[str, set[int] | None], sources: Sequence[str], found: DiffCoverage | None
) -> dict[str, Lines]:
    """The lines worth mutating: changed ones the tests executed (a mutant of a line no test
    runs survives by construction, and the line is already reported as not executed). A file
    nothing measured (Rust, Java, or no coverage at all) has every changed line mutated."""
    measured = {entry.path: entry for entry in found.files} if found else {}
    return {
        rel: Lines(changed.get(rel), frozenset(parse_ranges(measured[rel].uncovered)))
        if rel in measured
        else Lines(changed.get(rel))
        for rel in sources
    }
