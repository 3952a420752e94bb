"""`tests` checks: run a suite, read its per-test report, and (for bug fixes) prove
fail-before-pass-after.

The runner is asked for a report by its module in `referee.tools.runners` (or the check names the
file in `junit`). A command referee cannot get per-test outcomes from still runs and is recorded;
the criterion is then `unscored` with a reason saying what to add.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import anyio.to_thread

from referee.tools.graders.base import BaseHarness, GradeContext, GradeResult, unscored, working_dir
from referee.tools.graders.fail_to_pass import SuiteRun, judge_fail_to_pass
from referee.tools.graders.harness import judge_harness
from referee.tools.models.checks import TestsCheck
from referee.tools.models.common import ReasonCode
from referee.tools.models.contract import Criterion
from referee.tools.models.evaluation import TestCounts
from referee.tools.models.evidence import TestOutcome
from referee.tools.process import ProcessResult
from referee.tools.runners import (
    Advice,
    Plan,
    Report,
    ReportRead,
    confined_report,
    parse_named_report,
    plan_command,
    read_report,
    snapshot,
    summarize_tests,
)

_ARTIFACT_LIMIT = 16 * 1024 * 1024  # larger reports are read, not copied into the store


@dataclass(frozen=True)
class _Refused:
    """A check whose report must not be read (its `junit` path leaves the check's folder)."""

    code: ReasonCode
    reason: str


async def grade_tests(ctx: GradeContext, criterion: Criterion) -> GradeResult:
    check = criterion.check
    assert isinstance(check, TestsCheck)
    now = await run_suite(ctx, check, ctx.workdir, label=criterion.id, criterion_id=criterion.id)
    harness = await ctx.harness()
    if harness.files and now.verdict.status != "unscored":
        base = await run_suite(
            ctx,
            check,
            ctx.workdir,
            label=f"{criterion.id}-base-harness",
            criterion_id=criterion.id,
            harness=harness,
        )
        grade = judge_harness(now.verdict, now.outcomes, base.verdict, base.outcomes, harness)
        now = SuiteRun(grade, now.outcomes, now.evidence_id)
    if not check.must_fail_at_base:
        return now.verdict
    return await _fail_before_pass_after(ctx, criterion, check, now)


async def run_suite(
    ctx: GradeContext,
    check: TestsCheck,
    root: Path,
    *,
    label: str,
    criterion_id: str,
    harness: BaseHarness | None = None,
) -> SuiteRun:
    """Run a tests check in `root` and judge it: exit 0, at least one test ran, none failed or
    errored."""
    cwd = working_dir(ctx, check.cwd, root)
    if cwd is None:
        return SuiteRun(
            unscored(ReasonCode.CWD_OUTSIDE, f"cwd {check.cwd!r} is outside the repository")
        )
    # The only folder outside the tree the runner may write: its own reports (see report_dir).
    reports = ctx.report_dir(label)
    planned = _plan(ctx, check, cwd, root, reports)
    plan = planned if isinstance(planned, Plan) else None
    exported = _Exported()
    if plan is not None and not ctx.launcher.keeps_writes:
        plan, exported = _exporting(plan, root, reports / "tree")
    before = await snapshot(plan.report) if plan else None
    result = await ctx.run(
        ctx.command(
            plan.argv if plan else check.argv,
            cwd=cwd,
            label=label,
            timeout_s=check.timeout_s,
            env={**(plan.env if plan else {}), **ctx.env_for(check.env)},
            shell=check.shell if plan is None or plan.shell is None else plan.shell,
            writable=(reports,),
            network=check.network,
            tree=root,
            export=exported.paths,
            export_to=exported.to,
            layers=(
                *((harness.layer,) if harness and harness.layer else ()),
                *ctx.layers_for(criterion_id),
            ),
            hide=harness.hide if harness else (),
        )
    )
    read = ReportRead()
    if plan is not None and before is not None:
        read = await read_report(
            plan.report,
            stdout=result.stdout_path,
            before=before,
            allowed=(root, ctx.scratch),
            limit=ctx.settings.report_limit,
            timeout_s=check.timeout_s,
        )
    verdict = suite_verdict(result, read, None if isinstance(planned, Plan) else planned)
    return await anyio.to_thread.run_sync(
        _record, ctx, result, read, planned, verdict, criterion_id
    )


@dataclass(frozen=True)
class _Exported:
    paths: tuple[tuple[str, str | None], ...] = ()
    to: Path | None = None


def _exporting(plan: Plan, root: Path, dest: Path) -> tuple[Plan, _Exported]:
    """The plan with its in-tree report places moved to `dest`, where the sandbox copies them.

    In the sandbox a report written inside the tree (Surefire's, a check's named `junit`) lands in
    the overlay and vanishes with the command; the launcher exports those paths first.
    """
    paths: list[tuple[str, str | None]] = []

    def moved(path: Path, folder: str | None = None) -> Path:
        if not path.is_relative_to(root):
            return path
        rel = path.relative_to(root).as_posix()
        paths.append((rel, folder))
        return dest / rel

    report = plan.report
    files = tuple(moved(p) for p in report.files)
    search = tuple(replace(s, root=moved(s.root, s.folder)) for s in report.search)
    plan = replace(plan, report=replace(report, files=files, search=search))
    return plan, _Exported(tuple(dict.fromkeys(paths)), dest if paths else None)


def _plan(
    ctx: GradeContext, check: TestsCheck, cwd: Path, root: Path, reports: Path
) -> Plan | Advice | _Refused:
    if check.junit:
        target = confined_report(cwd, check.junit)
        if target is None:
            return _Refused(
                ReasonCode.REPORT_OUTSIDE,
                f"junit {check.junit!r} leads outside the check's folder {cwd}; it was not read",
            )
        report = Report("junit", parse_named_report(cwd), files=(target,))
        return Plan(runner="named report", argv=tuple(check.argv), report=report)
    return plan_command(
        check.argv,
        cwd=cwd,
        tree=root,
        reports=reports,
        shell=check.shell,
        path=ctx.settings.env.get("PATH"),
    )


def _record(
    ctx: GradeContext,
    result: ProcessResult,
    read: ReportRead,
    planned: Plan | Advice | _Refused,
    verdict: GradeResult,
    criterion_id: str,
) -> SuiteRun:
    # In a worker thread: redacting a large report must not hold up the event loop.
    extra = [f for f in read.files if f != result.stdout_path and _small(f)]
    item = ctx.recorder.record_process(
        result,
        tool="tests",
        summary=verdict.reason,
        criterion_id=criterion_id,
        tests=read.outcomes,
        extra_artifacts=extra,
        details=_facts(planned, read),
    )
    verdict.evidence_ids.append(item.id)
    return SuiteRun(verdict=verdict, outcomes=read.outcomes, evidence_id=item.id)


def _small(path: Path) -> bool:
    try:
        return path.stat().st_size <= _ARTIFACT_LIMIT
    except OSError:
        return False


def _facts(planned: Plan | Advice | _Refused, read: ReportRead) -> dict[str, Any]:
    if isinstance(planned, Plan):
        return {
            "runner": planned.runner,
            "report_format": planned.report.format,
            "report_files": [str(f) for f in read.files],
            "report_bytes": read.size,
            **({"notes": list(planned.notes)} if planned.notes else {}),
        }
    if isinstance(planned, Advice):
        return {"runner": planned.runner or "unknown", "advice": planned.hint}
    return {"refused": planned.reason}


def suite_verdict(
    result: ProcessResult, read: ReportRead, unread: Advice | _Refused | None = None
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
    ran = f"it ran (exit code {result.exit_code}, {result.duration_s:.1f} s)"
    if isinstance(unread, Advice):
        return unscored(
            ReasonCode.RUNNER_UNKNOWN, f"{ran}, but gave no per-test outcomes: {unread.hint}"
        )
    if isinstance(unread, _Refused):
        return unscored(unread.code, f"{ran}; {unread.reason}")
    if read.code is not None:
        return unscored(read.code, f"{ran}, but no usable report: {read.problem}")
    return _judge(result, read.outcomes)


def _judge(result: ProcessResult, outcomes: list[TestOutcome]) -> GradeResult:
    summary = summarize_tests(outcomes)
    counts = TestCounts(
        passed=summary.passed, failed=summary.failed, errors=summary.errors, skipped=summary.skipped
    )
    if summary.total == 0 or summary.passed + summary.failed + summary.errors == 0:
        return GradeResult(
            status="fail",
            code=ReasonCode.NO_TESTS,
            reason=f"no test ran (exit code {result.exit_code}); zero tests never pass",
            tests=counts,
        )
    if summary.failed or summary.errors:
        failing = [t.name for t in outcomes if t.outcome in ("failed", "error")][:5]
        return GradeResult(
            status="fail",
            code=ReasonCode.TESTS_FAILED,
            reason=f"{summary.text}; failing: {', '.join(failing)}",
            tests=counts,
        )
    if result.exit_code != 0:
        return GradeResult(
            status="fail",
            code=ReasonCode.EXIT_CODE,
            reason=f"{summary.text}, but the command exited {result.exit_code}",
            tests=counts,
        )
    return GradeResult(status="pass", code=ReasonCode.PASSED, reason=summary.text, tests=counts)


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
    before = await run_suite(
        ctx, check, base_root, label=f"{criterion.id}-base", criterion_id=criterion.id
    )
    return judge_fail_to_pass(now, before)
