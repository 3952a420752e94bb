"""`tests` checks: run a suite, read its JUnit report, and (for bug fixes) prove
fail-before-pass-after."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from referee.tools.graders.base import GradeContext, GradeResult, unscored, working_dir
from referee.tools.graders.junit import (
    JunitError,
    parse_junit,
    summarize_tests,
    with_junit_reporter,
)
from referee.tools.models.checks import TestsCheck
from referee.tools.models.common import ReasonCode
from referee.tools.models.contract import Criterion
from referee.tools.models.evidence import TestOutcome
from referee.tools.process import ProcessResult


@dataclass
class SuiteRun:
    """One run of a test suite: its verdict, per-test outcomes and evidence id."""

    verdict: GradeResult
    outcomes: list[TestOutcome] = field(default_factory=list)
    evidence_id: str | None = None


async def grade_tests(ctx: GradeContext, criterion: Criterion) -> GradeResult:
    check = criterion.check
    assert isinstance(check, TestsCheck)
    now = await run_suite(ctx, check, ctx.workdir, label=criterion.id, criterion_id=criterion.id)
    if not check.must_fail_at_base:
        return now.verdict
    return await _fail_before_pass_after(ctx, criterion, check, now)


async def run_suite(
    ctx: GradeContext, check: TestsCheck, root: Path, *, label: str, criterion_id: str
) -> SuiteRun:
    """Run a tests check in `root` and judge it: exit 0, at least one test ran, none failed or
    errored."""
    cwd = working_dir(ctx, check.cwd, root)
    if cwd is None:
        return SuiteRun(
            unscored(ReasonCode.CWD_OUTSIDE, f"cwd {check.cwd!r} is outside the repository")
        )
    reports = ctx.report_dir(label)
    report = reports / "junit.xml"
    plan = with_junit_reporter(check.argv, report)
    if check.junit:
        report = cwd / check.junit
    elif plan is None:
        return SuiteRun(
            unscored(
                ReasonCode.RUNNER_UNKNOWN,
                "the test runner is not recognised (pytest, node --test, go test with gotestsum); "
                "name the JUnit XML file it writes in the check's `junit`",
            )
        )
    argv = list(plan.argv) if plan and not check.junit else list(check.argv)
    env = {**(dict(plan.env) if plan else {}), **ctx.env_for(check.env)}
    report.unlink(missing_ok=True)
    result = await ctx.run(
        ctx.command(
            argv,
            cwd=cwd,
            label=label,
            timeout_s=check.timeout_s,
            env=env,
            shell=check.shell,
            writable=(reports,),
            network=check.network,
            tree=root,
        )
    )
    return _record(ctx, result, report, criterion_id)


def _record(ctx: GradeContext, result: ProcessResult, report: Path, criterion_id: str) -> SuiteRun:
    outcomes, junit_problem = _outcomes(report)
    verdict = suite_verdict(result, outcomes, junit_problem)
    extra = [report] if report.is_file() else []
    item = ctx.recorder.record_process(
        result,
        tool="tests",
        summary=verdict.reason,
        criterion_id=criterion_id,
        tests=outcomes,
        extra_artifacts=extra,
    )
    verdict.evidence_ids.append(item.id)
    return SuiteRun(verdict=verdict, outcomes=outcomes, evidence_id=item.id)


def _outcomes(report: Path) -> tuple[list[TestOutcome], str | None]:
    try:
        return parse_junit(report), None
    except JunitError as exc:
        return [], exc.reason


def suite_verdict(
    result: ProcessResult, outcomes: list[TestOutcome], junit_problem: str | None
) -> GradeResult:
    """Pass only when the command exits 0 and at least one test ran and none failed or errored."""
    if result.error:
        return unscored(
            ReasonCode.COULD_NOT_START, f"the test runner could not start: {result.error}"
        )
    if result.timed_out:
        return unscored(
            ReasonCode.TIMED_OUT,
            f"timed out after {result.duration_s:.1f} s; the process group was killed",
        )
    summary = summarize_tests(outcomes)
    if junit_problem is not None:
        return unscored(
            ReasonCode.NO_REPORT,
            f"no usable JUnit report (exit code {result.exit_code}): {junit_problem}",
        )
    if summary.total == 0 or summary.passed + summary.failed + summary.errors == 0:
        return GradeResult(
            status="fail",
            code=ReasonCode.NO_TESTS,
            reason=f"no test ran (exit code {result.exit_code}); zero tests never pass",
        )
    if summary.failed or summary.errors:
        failing = [t.name for t in outcomes if t.outcome in ("failed", "error")][:5]
        return GradeResult(
            status="fail",
            code=ReasonCode.TESTS_FAILED,
            reason=f"{summary.text}; failing: {', '.join(failing)}",
        )
    if result.exit_code != 0:
        return GradeResult(
            status="fail",
            code=ReasonCode.EXIT_CODE,
            reason=f"{summary.text}, but the command exited {result.exit_code}",
        )
    return GradeResult(status="pass", code=ReasonCode.PASSED, reason=summary.text)


async def _fail_before_pass_after(
    ctx: GradeContext, criterion: Criterion, check: TestsCheck, now: SuiteRun
) -> GradeResult:
    base_root = await ctx.base_worktree()
    if base_root is None:
        return unscored(
            ReasonCode.NO_BASE,
            "must_fail_at_base needs a base commit to compare with",
            now.verdict.evidence_ids,
        )
    missing = _missing_test_paths(check, ctx.workdir, base_root)
    before = (
        None
        if missing
        else await run_suite(
            ctx, check, base_root, label=f"{criterion.id}-base", criterion_id=criterion.id
        )
    )
    return _combine(now, before, missing)


def _missing_test_paths(check: TestsCheck, workdir: Path, base_root: Path) -> list[str]:
    """Test files the check names that exist now but not at base (the suite counts as failed
    there)."""
    cwd = check.cwd or "."
    named = [arg.split("::")[0] for arg in check.argv[1:] if not arg.startswith("-")]
    return [
        p for p in named if (workdir / cwd / p).is_file() and not (base_root / cwd / p).exists()
    ]


def _combine(now: SuiteRun, before: SuiteRun | None, missing: list[str]) -> GradeResult:
    ids = [*now.verdict.evidence_ids, *(before.verdict.evidence_ids if before else [])]
    regressions = _regressions(before, now)
    if now.verdict.status == "unscored" or (
        before
        and before.verdict.status == "unscored"
        and before.verdict.code is ReasonCode.COULD_NOT_START
    ):
        failed = now.verdict if now.verdict.status == "unscored" else None
        reason = failed.reason if failed else f"at base: {before.verdict.reason if before else ''}"
        code = failed.code if failed else ReasonCode.BASE_NOT_RUN
        return GradeResult(
            status="unscored", code=code, reason=reason, evidence_ids=ids, regressions=regressions
        )
    base_text = (
        f"absent at base ({', '.join(missing)})" if before is None else before.verdict.reason
    )
    if before is not None and before.verdict.status == "pass":
        return GradeResult(
            status="fail",
            code=ReasonCode.PASSES_AT_BASE,
            reason=f"passes at base too ({base_text}): the tests do not exercise the fix",
            evidence_ids=ids,
            regressions=regressions,
        )
    if now.verdict.status != "pass":
        return GradeResult(
            status="fail",
            code=ReasonCode.FAILS_NOW,
            reason=f"fails now: {now.verdict.reason}",
            evidence_ids=ids,
            regressions=regressions,
        )
    return GradeResult(
        status="pass",
        code=ReasonCode.PASSED,
        reason=f"failed at base ({base_text}), passes now ({now.verdict.reason})",
        evidence_ids=ids,
        regressions=regressions,
    )


def _regressions(before: SuiteRun | None, now: SuiteRun) -> list[str]:
    """Tests that passed at base and fail now (PASS_TO_PASS broken)."""
    if before is None:
        return []
    passed_before = {t.name for t in before.outcomes if t.outcome == "passed"}
    return sorted(
        t.name for t in now.outcomes if t.outcome in ("failed", "error") and t.name in passed_before
    )
