"""`tests` checks: run a suite, read its per-test report, and (for bug fixes) prove
fail-before-pass-after.

The runner is asked for a report by its module in `referee.tools.runners` (or the check names the
file in `junit`). A command referee cannot get per-test outcomes from still runs and is recorded;
the criterion is then `unscored` with a reason saying what to add.
"""

from __future__ import annotations

import copy
import json
import os
import re
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from referee.tools.adequacy import flaky_reason, flaky_tests, locate_test
from referee.tools.claims.model import TEST_INSPECTS_ENVIRONMENT
from referee.tools.graders.adequacy import Repeats, assess, changed_sources
from referee.tools.graders.base import BaseHarness, GradeContext, GradeResult, unscored
from referee.tools.graders.base_tests import (
    as_moved,
    edited_tests_verdict,
    shown_names,
    silenced_verdict,
    suspects,
)
from referee.tools.graders.fail_to_pass import SuiteRun, bracketed, judge_fail_to_pass, test_patch
from referee.tools.graders.harness import judge_harness
from referee.tools.graders.mode import ModeRuns, mode_finding, production_mode
from referee.tools.graders.suite import Launch, Refused, SuiteCall, launch_suite
from referee.tools.insource import Spliced, spliced_sources
from referee.tools.models.checks import TestsCheck
from referee.tools.models.common import ReasonCode
from referee.tools.models.contract import Criterion
from referee.tools.repo import TreeView, commit_tree_hash, is_git_repo
from referee.tools.runners import Advice, Plan, ReportRead
from referee.tools.tampering.model import Tampering

_ARTIFACT_LIMIT = 16 * 1024 * 1024  # larger reports are read, not copied into the store


async def grade_tests(ctx: GradeContext, criterion: Criterion) -> GradeResult:
    check = criterion.check
    assert isinstance(check, TestsCheck)
    sources = await changed_sources(ctx)
    ctx.measured[criterion.id] = tuple(sources if check.coverage else ())
    early = await _base_runs(ctx, criterion, check, _base_runs_first(check))
    runs = await _repeated(ctx, check, criterion.id, sources if check.coverage else [])
    now = runs[0]
    flaky = flaky_tests([r.outcomes for r in runs]) if len(runs) > 1 else []
    for test in flaky:
        test.location = locate_test(ctx.workdir, test.test)
        test.evidence_ids = _ids(runs)
    if flaky:
        grade = unscored(ReasonCode.FLAKY, flaky_reason(flaky), _ids(runs))
        grade.tests = now.verdict.tests
    else:
        grade = await _judged(ctx, criterion, check, now, early)
    if len(runs) > 1 and not flaky:
        grade.evidence_ids = list(dict.fromkeys([*grade.evidence_ids, *_ids(runs)]))
        grade.reason += f"; the same in {len(runs)} runs"
    if grade.passed and (found := await _in_production(ctx, criterion, check, now)):
        grade.findings.append(found[0])
        grade.findings_evidence.append(found[1])
    return await assess(ctx, criterion, grade, now, Repeats(len(runs), flaky), sources)


async def _repeated(
    ctx: GradeContext, check: TestsCheck, criterion_id: str, sources: list[str]
) -> list[SuiteRun]:
    """The criterion's run (measured for diff coverage) and its `repeat - 1` repeats, in turn:
    flakiness often depends on timing, which parallel runs would change."""
    runs = [
        await run_suite(ctx, check, label=criterion_id, criterion_id=criterion_id, measure=sources)
    ]
    for k in range(2, check.repeat + 1):
        if runs[0].verdict.status == "unscored":
            break
        label = f"{criterion_id}-repeat-{k}"
        runs.append(await run_suite(ctx, check, label=label, criterion_id=criterion_id))
    return runs


def _ids(runs: list[SuiteRun]) -> list[str]:
    return [r.evidence_id for r in runs if r.evidence_id]


async def _judged(
    ctx: GradeContext,
    criterion: Criterion,
    check: TestsCheck,
    now: SuiteRun,
    early: list[SuiteRun | None],
) -> GradeResult:
    """The first run's verdict, checked against the base harness and the base code."""
    harness = await ctx.harness()
    if harness.files and now.verdict.status != "unscored":
        base = await run_suite(
            ctx,
            check,
            label=f"{criterion.id}-base-harness",
            criterion_id=criterion.id,
            harness=harness,
        )
        grade = judge_harness(now.verdict, now.outcomes, base.verdict, base.outcomes, harness)
        now = replace(now, verdict=grade)
    base_only = _base_only(ctx, criterion, check)
    form: SuiteRun | None = None
    if now.verdict.status != "unscored":
        verdict, form = await _edited_base_tests(ctx, criterion, check, now, base_only)
        now = replace(now, verdict=verdict)
    if now.verdict.status == "pass":
        verdict = await _skipped_base_tests(ctx, check, now, form, base_only)
        now = replace(now, verdict=verdict)
    if not check.must_fail_at_base:
        return now.verdict
    return await _fail_before_pass_after(ctx, criterion, check, now, early)


async def _in_production(
    ctx: GradeContext, criterion: Criterion, check: TestsCheck, now: SuiteRun
) -> tuple[Tampering, str] | None:
    """A passing run checked in production's mode when the change's code reads the mode
    (graders/mode.py); where tests differ, the base's code runs in both modes too. Not for a
    hold-out: what its run shows is the evaluator's alone."""
    if ctx.scope != "task" or ctx.base is None or ctx.is_holdout(criterion.id):
        return None
    changed = await ctx.changed_lines()
    mode = await anyio.to_thread.run_sync(production_mode, ctx.workdir, changed)
    if mode is None:
        return None
    moded = check.model_copy(
        update={"env": {**check.env, **mode.env}, "argv": mode.argv(check.argv)}
    )
    label = f"{criterion.id}-production"
    there = await run_suite(ctx, moded, label=label, criterion_id=criterion.id)
    runs = ModeRuns(now.outcomes, there.outcomes, there.verdict.status == "fail")
    if mode_finding(mode, runs, None) is None:
        return None
    base = await _base_run(ctx, criterion, check)
    before: ModeRuns | None = None
    if base is not None:
        view = await ctx.views("base")
        label = f"{criterion.id}-base-production"
        moded_base = await run_suite(ctx, moded, label=label, criterion_id=criterion.id, view=view)
        before = ModeRuns(
            base.outcomes,
            moded_base.outcomes,
            moded_base.verdict.status == "fail",
            base.verdict.status == "pass",
        )
    found = mode_finding(mode, runs, before)
    return None if found is None else (found, there.evidence_id or "")


def _base_runs_first(check: TestsCheck) -> int:
    """How many of a bug fix's two base runs come before the current run: 0, 1 or 2, drawn for
    each criterion and never shown before the verdict. The generator's commands run one at a
    time, so a fixed order would tell a test which run is the current one (its place among
    them, counted through the host's page cache or by slots of the clock); drawn, a test that
    guesses is right once in three, and a wrong guess shows: the base runs disagree, or the
    current run fails (fail_to_pass.bracketed)."""
    return secrets.randbelow(3) if check.must_fail_at_base else 0


async def _base_runs(
    ctx: GradeContext, criterion: Criterion, check: TestsCheck, count: int, made: int = 0
) -> list[SuiteRun | None]:
    """`count` base runs, after the `made` ones. The second is labelled apart, so that it is a run
    of its own: two runs of one label would be shared (`_shared_key`), the first made once."""
    return [
        await _base_run(ctx, criterion, check, "-again" if k else "")
        for k in range(made, made + count)
    ]


async def _base_run(
    ctx: GradeContext, criterion: Criterion, check: TestsCheck, again: str = ""
) -> SuiteRun | None:
    """The current tests on the base code (None without a base)."""
    base = await ctx.views("base")
    if base is None:
        return None
    label = f"{criterion.id}-base{again}"
    return await run_suite(ctx, check, label=label, criterion_id=criterion.id, view=base)


def _base_only(
    ctx: GradeContext, criterion: Criterion, check: TestsCheck
) -> Callable[[], Awaitable[SuiteRun]]:
    """The base as it was, run once for the criterion on first ask."""
    done: list[SuiteRun] = []

    async def base_only() -> SuiteRun:
        if not done:
            only = await ctx.views("base-only")
            label = f"{criterion.id}-base-only"
            shown = _without_hidden(check, only, ctx.run_root or ctx.workdir) if only else check
            done.append(
                await run_suite(ctx, shown, label=label, criterion_id=criterion.id, view=only)
            )
        return done[0]

    return base_only


async def _skipped_base_tests(
    ctx: GradeContext,
    check: TestsCheck,
    now: SuiteRun,
    form: SuiteRun | None,
    base_only: Callable[[], Awaitable[SuiteRun]],
) -> GradeResult:
    """A passing run with skipped tests, checked against the base as it was: a test that passed
    there and is skipped now was silenced, whatever silenced it (code under test raising the
    runner's skip exception, a failed assumption, a changed environment), and it fails the
    criterion unless the contract expects it (`expected_changes`). A skip the change wrote into
    a test, over code its base form still passes on (`form`), hides nothing."""
    kept = {t.name for t in form.outcomes if t.outcome == "passed"} if form else set()
    skipped = {t.name for t in now.outcomes if t.outcome == "skipped"} - kept
    if not skipped or ctx.base is None or ctx.scope != "task":
        return now.verdict
    before = await base_only()
    return silenced_verdict(now.verdict, skipped, before, check)


async def _edited_base_tests(
    ctx: GradeContext,
    criterion: Criterion,
    check: TestsCheck,
    now: SuiteRun,
    base_only: Callable[[], Awaitable[SuiteRun]],
) -> tuple[GradeResult, SuiteRun | None]:
    """The verdict checked against the base's versions of the test files the change edited, and
    the run of those versions (None when the change edited none)."""
    view = await ctx.views("base-tests")
    if view is None or view.tree == ctx.tree:
        return now.verdict, None  # the change edited no test file that base had
    label = f"{criterion.id}-base-tests"
    form = await run_suite(
        ctx,
        _without_hidden(check, view, ctx.run_root or ctx.workdir),
        label=label,
        criterion_id=criterion.id,
        view=view,
    )

    async def before() -> SuiteRun:
        return as_moved(await base_only(), view.moved)

    # The view says what it put back: an edited test file, the tests' data or module of values,
    # a source file's test blocks. Only leaving the change's new test files out restores nothing.
    verdict = await edited_tests_verdict(
        now.verdict, check, form, suspects(now, form), before, bool(view.restored)
    )
    return _named_missing(verdict, now, form), form


def _without_hidden(check: TestsCheck, view: TreeView, root: Path) -> TestsCheck:
    """The check as the base tests' run gives it: without the arguments that name a file the
    view leaves out (`pytest tests/test_new.py tests`: the change's new test file), which would
    stop the runner before any base test ran. A command that names nothing else stays as it is
    (the base then has no test it runs)."""
    if check.shell or not view.hide:
        return check
    hidden = set(view.hide)
    cwd = check.cwd or "."

    def named(token: str) -> str | None:
        if token.startswith("-") or "\0" in token:
            return None
        return os.path.normpath(os.path.join(cwd, token)).replace(os.sep, "/")

    kept = [t for t in check.argv if named(t) not in hidden]
    dropped = len(kept) != len(check.argv)
    # What else it names that the tree holds (`tests`): the base's tests to run.
    others = [n for n in map(named, kept[1:]) if n is not None and (root / n).exists()]
    if not dropped or not others:
        return check
    return check.model_copy(update={"argv": kept})


def _named_missing(verdict: GradeResult, now: SuiteRun, form: SuiteRun) -> GradeResult:
    """Name the base's tests that ran in their base form but not in the evaluated tree's run
    (deleted, renamed, or left out by a changed selection): the judge sees what stopped running."""
    ran = {t.name for t in now.outcomes}
    missing = sorted({t.name for t in form.outcomes if t.name not in ran})
    if not missing or verdict.status == "unscored":
        return verdict
    reason = f"{verdict.reason}; base tests that ran in their base form and not now:"
    reason += f" {shown_names(missing)}"
    return replace(verdict, reason=reason)


async def run_suite(
    ctx: GradeContext,
    check: TestsCheck,
    *,
    label: str,
    criterion_id: str,
    harness: BaseHarness | None = None,
    measure: Sequence[str] = (),
    view: TreeView | None = None,
    layers: tuple[Path, ...] = (),
) -> SuiteRun:
    """Run a tests check and judge it: exit 0, at least one test ran, none failed or errored.

    Args:
        harness: The base harness to run with instead of the tree's.
        measure: Changed Python files whose executed lines the run records.
        view: Another tree to run on at the tree's place (the base …); None: the evaluated one.
        layers: Folders laid over the tree (the perturbed files).
    """
    call = SuiteCall(
        check, label, criterion_id, harness=harness, measure=measure, layers=layers, view=view
    )
    key = _shared_key(ctx, call)
    if key is None:
        return await _run(ctx, call)
    shared = ctx.suite_runs.get(key)
    if shared is None:
        shared = ctx.suite_runs[key] = _Shared()
        shared.run = await _run(ctx, call)
        shared.done.set()
    else:
        await shared.done.wait()
    assert shared.run is not None
    # Each criterion grades its own copy: the verdict's reason and ids are written to later.
    return copy.deepcopy(shared.run)


@dataclass
class _Shared:
    done: anyio.Event = field(default_factory=anyio.Event)
    run: SuiteRun | None = None


# What decides a run of a tests check: the command and its environment, not what the criterion
# then asks of the run (must_fail_at_base, a minimum, repeats, expected changes).
_RUN_FIELDS = frozenset(
    ["kind", "argv", "cwd", "timeout_s", "env", "shell", "network", "memory_mb", "junit"]
    + ["coverage"]
)


def _shared_key(ctx: GradeContext, call: SuiteCall) -> str | None:
    """The run two criteria may share: the same check on the same tree, measured alike, with the
    same harness, none of it a hold-out's (a hidden check's run is its own), no extra layers (a
    mutant, the perturbed files). None: this run is not shared."""
    if call.layers or ctx.is_holdout(call.criterion_id) or ctx.layers_for(call.criterion_id):
        return None
    measure = tuple(call.measure or ctx.measured.get(call.criterion_id, ()))
    harness = tuple(sorted(f.path for f in call.harness.files)) if call.harness else None
    fields = set(type(call.check).model_fields) & _RUN_FIELDS
    run = call.check.model_dump_json(include=fields)
    shown = call.view.tree if call.view else None
    # Which of a criterion's runs it is (its first, a repeat, a base form): a repeat is a run
    # of its own, never the first one again.
    role = call.label.removeprefix(call.criterion_id)
    return json.dumps([run, measure, shown, harness, call.timeout_s, role])


async def _run(ctx: GradeContext, call: SuiteCall) -> SuiteRun:
    launched = await launch_suite(ctx, call)
    if isinstance(launched, GradeResult):
        return SuiteRun(launched)
    # Recording redacts the run's output: referee's own work, which no command runs beside.
    with ctx.occupancy.joined():
        return await anyio.to_thread.run_sync(_record, ctx, launched, call.criterion_id)


def _record(ctx: GradeContext, launched: Launch, criterion_id: str) -> SuiteRun:
    # In a worker thread: redacting a large report must not hold up the event loop.
    result, read = launched.result, launched.read
    extra = [f for f in read.files if f != result.stdout_path and _small(f)]
    item = ctx.recorder.record_process(
        result,
        tool="tests",
        summary=launched.verdict.reason,
        criterion_id=criterion_id,
        tests=read.outcomes,
        extra_artifacts=extra,
        details=_facts(launched.planned, read),
    )
    launched.verdict.evidence_ids.append(item.id)
    return SuiteRun(
        verdict=launched.verdict,
        outcomes=read.outcomes,
        evidence_id=item.id,
        duration_s=result.duration_s,
        coverage=launched.coverage,
    )


def _small(path: Path) -> bool:
    try:
        return path.stat().st_size <= _ARTIFACT_LIMIT
    except OSError:
        return False


def _facts(planned: Plan | Advice | Refused, read: ReportRead) -> dict[str, Any]:
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


async def _fail_before_pass_after(
    ctx: GradeContext,
    criterion: Criterion,
    check: TestsCheck,
    now: SuiteRun,
    early: list[SuiteRun | None],
) -> GradeResult:
    view = await ctx.views("base")
    if view is None:
        return unscored(
            ReasonCode.NO_BASE,
            "must_fail_at_base needs a base commit to compare with",
            now.verdict.evidence_ids,
        )
    # The change's tests as the base view took them: test files by path, and the files that are
    # the tests' by what they are (a `#[path]` test module, a module of expected values).
    tests = sorted({*test_patch(ctx.scope_files), *view.tests})
    sources = [p for p in ctx.scope_files if p not in tests]
    spliced = await anyio.to_thread.run_sync(_spliced, ctx, sources)  # reads blobs with git
    made = [r for r in early if r is not None]
    while len(made) < 2:
        # Merged, two base runs prove less than one (a test fails at base only if it failed in
        # both): a verdict one run already denies needs no second run.
        if made and judge_fail_to_pass(now, made[0], tests, sources, spliced).status != "pass":
            break
        more = [r for r in await _base_runs(ctx, criterion, check, 1, len(made)) if r]
        if not more:
            break
        made += more
    if not made:
        return unscored(ReasonCode.NO_BASE, "the base could not be shown", now.verdict.evidence_ids)
    before, differ = bracketed(*made) if len(made) == 2 else (made[0], [])
    grade = judge_fail_to_pass(now, before, tests, sources, spliced)
    if differ:
        grade.reason += (
            f"; at base, {', '.join(differ[:5])} passed in one of the two runs and not in the"
            " other: a test whose outcome depends on when it runs proves nothing, so it counts"
            " as passing at base"
        )
        passing = {t.name for t in now.outcomes if t.outcome == "passed"}
        for name in [d for d in differ if d in passing][:_TOLD_SHOWN]:
            found = await anyio.to_thread.run_sync(_told_apart, ctx.workdir, name, tests)
            if found is not None:
                grade.findings.append(found)
                grade.findings_evidence.append(before.evidence_id or "")
    return grade


_TOLD_SHOWN = 3


def _told_apart(tree: Path, name: str, tests: Sequence[str]) -> Tampering | None:
    """A test that passes now and passed in one base run of two on the same code: its outcome
    depends on when it runs, or on how many runs came before it (a wrong guess at which run is
    the current one), or it is flaky at base. For the judge, at the test's line where it is
    found (a pytest id's function, else the first changed test file naming the test)."""
    where = locate_test(tree, name)
    if where is None:
        word = re.split(r" > |::|\.|/", name)[-1].strip()
        where = next((w for p in tests if word and (w := _line_of(tree, p, word))), None)
    if where is None:
        return None
    path, _, line = where.rpartition(":")
    return Tampering(
        TEST_INSPECTS_ENVIRONMENT,
        path,
        int(line),
        f"{where} {name} passed at base in one run and failed in the other, on the same code:"
        " a test whose outcome depends on when it runs, or on how many runs came before it,"
        " can tell referee's runs apart (a judge may dismiss a test flaky at base)",
    )


def _line_of(tree: Path, path: str, word: str) -> str | None:
    try:
        text = (tree / path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    at = text.find(word)
    return f"{path}:{text.count(chr(10), 0, at) + 1}" if at >= 0 else None


def _spliced(ctx: GradeContext, sources: list[str]) -> dict[str, Spliced]:
    """The edited source files whose test blocks the base view spliced (evaluate/views.py)."""
    if ctx.base is None or ctx.tree is None or ctx.tree.startswith("dir:"):
        return {}
    if not is_git_repo(ctx.repo):
        return {}
    return spliced_sources(ctx.repo, commit_tree_hash(ctx.repo, ctx.base), ctx.tree, sources)
