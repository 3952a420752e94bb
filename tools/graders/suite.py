"""Running a tests check once: plan the runner's report, launch it (under coverage.py when the
change is measured), read the report, and judge the run.

Recording the run as evidence is the caller's choice: `tests.run_suite` records every run, the
mutation stage records one item for all its mutants.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from referee.tools.adequacy import Instrumented, changed_statements, instrument
from referee.tools.evidence.recorder import read_log
from referee.tools.graders.base import (
    BaseHarness,
    GradeContext,
    GradeResult,
    killed_verdict,
    unscored,
    working_dir,
)
from referee.tools.models.checks import TestsCheck
from referee.tools.models.common import ReasonCode
from referee.tools.models.evaluation import TestCounts
from referee.tools.models.evidence import TestOutcome
from referee.tools.process import ProcessResult
from referee.tools.repo import TreeView
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
from referee.tools.runners.guard import read_guard
from referee.tools.runners.shell_line import SEGMENT_FAILED

__all__ = ["Launch", "Refused", "SuiteCall", "launch_suite", "suite_verdict"]


@dataclass(frozen=True)
class Refused:
    """A check whose report must not be read (its `junit` path leaves the check's folder)."""

    code: ReasonCode
    reason: str


@dataclass(frozen=True)
class Launch:
    """One run of a suite, read but not yet recorded."""

    result: ProcessResult
    read: ReportRead
    planned: Plan | Advice | Refused
    verdict: GradeResult
    coverage: Instrumented | None = None


@dataclass(frozen=True)
class SuiteCall:
    """One run of a tests check: under which label, with what shown and laid over the tree.

    Attributes:
        measure: Changed Python files whose executed lines the run records (coverage.py).
        layers: Folders laid over the tree after the hold-outs (a mutant, the perturbed files).
        timeout_s: Replaces the check's own timeout (a mutant's, derived from the baseline).
        view: Another tree shown in the evaluated one's place (the base …); None: the evaluated.
    """

    check: TestsCheck
    label: str
    criterion_id: str
    harness: BaseHarness | None = None
    measure: Sequence[str] = ()
    layers: tuple[Path, ...] = ()
    timeout_s: float | None = None
    view: TreeView | None = None

    @property
    def of_evaluated_tree(self) -> bool:
        """What this run writes is the evaluated tree's doing (not a base's or a mutant's)."""
        return self.view is None and not self.layers


async def launch_suite(ctx: GradeContext, call: SuiteCall) -> Launch | GradeResult:
    """Run the suite and read its report (a GradeResult when it cannot even start: bad cwd)."""
    check, label, harness = call.check, call.label, call.harness
    root = ctx.root
    cwd = working_dir(ctx, check.cwd)
    if cwd is None:
        return unscored(ReasonCode.CWD_OUTSIDE, f"cwd {check.cwd!r} is outside the repository")
    # The only folder outside the tree the runner may write: its own reports (see report_dir).
    reports = ctx.report_dir(label)
    measure = call.measure or ctx.measured.get(call.criterion_id, ())
    planned = _plan(ctx, check, cwd, root, reports)
    plan = planned if isinstance(planned, Plan) else None
    instrumented = None
    if plan is not None:
        python = [s for s in measure if s.endswith(".py")]
        changed = await ctx.changed_lines() if python else {}
        statements = changed_statements(ctx.workdir, changed, python)
        path = ctx.settings.env.get("PATH")
        instrumented = instrument(plan, reports, measure, path, (cwd, root), statements)
    if instrumented is not None:
        plan = instrumented.plan
    exported = _Exported()
    if plan is not None and not ctx.launcher.keeps_writes:
        plan, exported = _exporting(plan, root, reports / "tree")
    before = await snapshot(plan.report) if plan else None
    timeout = call.timeout_s or check.timeout_s
    result = await ctx.run(
        ctx.command(
            plan.argv if plan else check.argv,
            cwd=cwd,
            label=label,
            timeout_s=timeout,
            env=_environment(ctx, plan, check),
            shell=check.shell if plan is None or plan.shell is None else plan.shell,
            writable=(reports,),
            network=check.network,
            memory_mb=check.memory_mb,
            export=exported.paths,
            export_to=exported.to,
            layers=(
                *((harness.layer,) if harness and harness.layer else ()),
                *ctx.layers_for(call.criterion_id),
                *call.layers,
            ),
            hide=(*(harness.hide if harness else ()), *(plan.hide if plan else ())),
            view=call.view,
            own_writes=call.of_evaluated_tree,
            criterion_id=call.criterion_id,
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
            timeout_s=timeout,
        )
    verdict = suite_verdict(result, read, None if isinstance(planned, Plan) else planned)
    if verdict.code == ReasonCode.NO_REPORT and result.exit_code not in (0, None):
        verdict.reason += stopped_before_report(
            result.stderr_path, plan.segments if plan else (), result.stdout_path
        )
    said_on_stderr = (ReasonCode.NO_TESTS, ReasonCode.RUNNER_UNKNOWN)
    if verdict.code in said_on_stderr and result.exit_code not in (0, None):
        # Why nothing ran is on stderr (pytest's "file or directory not found: …", a collection
        # error, a bad option, `sh: 1: tap: not found`), not in the empty report.
        verdict.reason += stopped_before_report(
            result.stderr_path, plan.segments if plan else (), result.stdout_path
        )
    if plan is not None and plan.runner == "pytest":
        log = read_guard(reports, root)
        verdict = _bypassed(verdict, log.bypassed(next(iter(plan.report.files), None)))
        verdict = _elsewhere(verdict, log.elsewhere)
    verdict = _bypassed(verdict, read.bypassed)
    if instrumented and result.timed_out:
        verdict.reason += (
            " while measuring diff coverage; raise timeout_s, or set coverage: false on the check"
        )
    return Launch(result, read, planned, verdict, instrumented)


def stopped_before_report(stderr: Path, segments: Sequence[str], stdout: Path | None = None) -> str:
    """What a failed command's stderr says about a report never written: the segment of its
    `a && b` line that failed, and the last line it printed there. A command that says nothing
    on stderr (Maven logs its errors on stdout) is quoted from stdout: its first error line."""
    text, _ = read_log(stderr, _TAIL)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines and stdout is not None:
        said, _ = read_log(stdout, _TAIL)
        errors = [line.strip() for line in said.splitlines() if _ERROR_LINE.search(line)]
        return f"; its first error on stdout: {errors[0][:300]!r}" if errors else ""
    for index, line in enumerate(lines):
        found = _SEGMENT.fullmatch(line)
        if found is None or not 0 < int(found[1]) <= len(segments):
            continue
        said = f"; its last line on stderr: {lines[index - 1][:300]!r}" if index else ""
        return (
            f"; segment {found[1]} of the line, `{segments[int(found[1]) - 1]}`, failed"
            f" (exit code {found[2]}) before the runner ran{said}"
        )
    return f"; its last line on stderr: {lines[-1][:300]!r}" if lines else ""


_TAIL = 64 * 1024
_ERROR_LINE = re.compile(r"^\s*(\[ERROR\]|ERROR\b|error(\[\w+\])?:|FAILURE:|fatal:)", re.IGNORECASE)
_SEGMENT = re.compile(re.escape(SEGMENT_FAILED).replace(r"\{index\}", r"(\d+)") + r" (\S+)")


def _environment(ctx: GradeContext, plan: Plan | None, check: TestsCheck) -> dict[str, str]:
    """The plan's variables under the check's; a PYTHONPATH of both (the plan's first, then the
    check's or the server's) so that neither loses its folders."""
    own = ctx.env_for(check.env)
    env = {**(plan.env if plan else {}), **own}
    if plan is not None and "PYTHONPATH" in plan.env:
        rest = own.get("PYTHONPATH", ctx.settings.env.get("PYTHONPATH", ""))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (plan.env["PYTHONPATH"], rest) if p)
    return env


def _bypassed(verdict: GradeResult, why: str | None) -> GradeResult:
    """A run that bypassed its runner (pytest's guard saw it, or the test binaries' own account
    does not back the report) is unscored: its report says nothing about the tests."""
    if why is None or verdict.status == "unscored":
        return verdict
    return unscored(
        ReasonCode.RUNNER_BYPASSED,
        f"{why}; the report of this run cannot be trusted ({verdict.reason})",
        verdict.evidence_ids,
    )


def _elsewhere(verdict: GradeResult, found: list[str]) -> GradeResult:
    """Tests that imported the tree's own package from another place (an installed copy) tested
    that copy: said in the reason, and a pass is no pass of the tree's code."""
    if not found:
        return verdict
    name, _, path = found[0].partition(" ")
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    said = f"the tests imported {name} from {path}, not from this tree{more}"
    if verdict.status == "pass":
        return unscored(
            ReasonCode.IMPORTED_ELSEWHERE,
            f"{verdict.reason}, but {said}: the tree's code was not tested",
            verdict.evidence_ids,
        )
    verdict.reason += f"; {said}, an installed copy the change does not reach"
    return verdict


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
) -> Plan | Advice | Refused:
    if check.junit:
        target = confined_report(cwd, check.junit)
        if target is None:
            return Refused(
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
        throwaway=not ctx.launcher.keeps_writes,
    )


def suite_verdict(
    result: ProcessResult, read: ReportRead, unread: Advice | Refused | None = None
) -> GradeResult:
    """Pass only when the command exits 0 and at least one test ran and none failed or errored."""
    if result.error:
        return unscored(
            ReasonCode.COULD_NOT_START, f"the test runner could not start: {result.error}"
        )
    if stopped := killed_verdict(result):
        return stopped
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
    if isinstance(unread, Refused):
        return unscored(unread.code, f"{ran}; {unread.reason}")
    if read.code is not None:
        return unscored(read.code, f"{ran}, but no usable report: {read.problem}")
    return _judge(result, read.outcomes)


_FAILING_SHOWN = 5


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
        # Each test once (a runner may report a test twice: a failure and its teardown error),
        # and how many more there are when the list is cut.
        failing = list(dict.fromkeys(t.name for t in outcomes if t.outcome in ("failed", "error")))
        more = f" and {len(failing) - _FAILING_SHOWN} more" if len(failing) > _FAILING_SHOWN else ""
        return GradeResult(
            status="fail",
            code=ReasonCode.TESTS_FAILED,
            reason=f"{summary.text}; failing: {', '.join(failing[:_FAILING_SHOWN])}{more}",
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
