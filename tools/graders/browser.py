"""`browser` checks: start the contract's app (`serve`), drive pages in Chromium, record what was
seen."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from referee.tools.browser.a11y_base import BaseA11y
from referee.tools.browser.outcome import at_or_above, lowest_impact
from referee.tools.errors import RefereeError
from referee.tools.graders.base import GradeContext, GradeResult, ServeState, unscored
from referee.tools.graders.base_app import BaseRun, compares_with_base, run_at_base
from referee.tools.graders.serve import exit_problem, gone_code
from referee.tools.models.browser import A11yExpect, BrowserCheck, ScreenshotExpect
from referee.tools.models.common import ReasonCode
from referee.tools.models.contract import Criterion

if TYPE_CHECKING:
    from referee.tools.browser.outcome import BrowserOutcome

__all__ = ["TRACE_HINT", "browser_report", "counts", "grade_browser"]

TRACE_HINT = "trace of the failing check: open it with `npx playwright show-trace {path}`"


async def grade_browser(ctx: GradeContext, criterion: Criterion) -> GradeResult:
    """Drive the check's page in the shared Chromium; the app is served once for every check."""
    check = criterion.check
    assert isinstance(check, BrowserCheck)
    # Playwright is imported on the first browser check, not when referee starts.
    from referee.tools.browser.check import run_browser_check

    serve, at_base = await _serve_and_base(ctx, criterion, check)
    base_ids = _record_base(ctx, criterion, at_base) if at_base is not None else []
    if serve.problem:
        return unscored(serve.code, serve.problem, [*serve.evidence_ids, *base_ids])
    if gone := await exit_problem(serve):
        return unscored(gone_code(serve), f"not run: {gone}", [*serve.evidence_ids, *base_ids])

    async def serving() -> str | None:
        gone = await exit_problem(serve)
        return f"not run: {gone}" if gone else None

    outcome = await run_browser_check(
        await ctx.browser_pool(),
        check,
        base_url=serve.base_url,
        artifacts_dir=ctx.scratch,
        name=criterion.id,
        repo_root=ctx.workdir,
        allow_hosts=ctx.settings.allow_hosts,
        setup=ctx.contract.browser_setup,
        gate=serving if serve.process is not None else None,
        baselines=_baselines(ctx, criterion) if _takes_screenshots(check) else None,
        a11y_base=_compared_with(at_base) if at_base is not None else None,
    )
    if not outcome.ran:
        return unscored(gone_code(serve), outcome.reason, [*serve.evidence_ids, *base_ids])
    item = ctx.recorder.record(
        tool="browser",
        summary=outcome.summary(),
        command=f"browser {outcome.url or check.url}",
        stdout=browser_report(outcome),
        exit_code=None if outcome.passed is None else int(not outcome.passed),
        duration_s=outcome.duration_s,
        criterion_id=criterion.id,
        extra_artifacts=_files(outcome.screenshot, outcome.trace, *outcome.images),
        details=_details(outcome),
    )
    ids = [item.id, *serve.evidence_ids, *base_ids]
    # A check that passed stands: every expectation held on a page the app served. A failing one
    # may have failed because the app went down under it.
    if outcome.status != "pass" and (gone := await exit_problem(serve, settle=True)):
        return unscored(gone_code(serve), gone, ids)
    trace = next((a for a in item.artifacts if a.endswith(".trace.zip")), None)
    hint = f"\n{TRACE_HINT.format(path=trace)}" if trace else ""
    return GradeResult(
        status=outcome.status,
        code=_code(outcome),
        reason=outcome.reason + hint,
        evidence_ids=ids,
        details=counts(outcome, check),
    )


async def _serve_and_base(
    ctx: GradeContext, criterion: Criterion, check: BrowserCheck
) -> tuple[ServeState, BaseRun | None]:
    """The served app; and, for a check with a `new_only` a11y expectation, the check's run on
    the base commit's app, made while the evaluated app starts."""
    if not compares_with_base(check):
        return await _serve_with_a_browser(ctx), None
    found: list[BaseRun] = []

    async def base() -> None:
        found.append(await run_at_base(ctx, criterion, check))

    async with anyio.create_task_group() as group:
        group.start_soon(base)
        served = await _serve_with_a_browser(ctx)
    return served, found[0]


def _record_base(ctx: GradeContext, criterion: Criterion, run: BaseRun) -> list[str]:
    """The base run's evidence (when the check ran there) before the base app's log."""
    outcome = run.outcome
    if outcome is None:
        return list(run.evidence_ids)
    item = ctx.recorder.record(
        tool="browser",
        summary=f"on the base commit's app: {outcome.summary()}",
        command=f"browser {outcome.url or ''} (the base commit's app)",
        stdout=browser_report(outcome),
        exit_code=None,  # its expectations are read for what the base had, not judged
        duration_s=outcome.duration_s,
        criterion_id=criterion.id,
        extra_artifacts=_files(outcome.screenshot),
        details={"at_base": True, **_details(outcome)},
    )
    return [item.id, *run.evidence_ids]


def _compared_with(run: BaseRun) -> BaseA11y:
    if run.problem or run.outcome is None:
        problem = f"{run.problem} ({run.note})" if run.note else run.problem
        return BaseA11y(problem=problem, code=run.code.value)
    return BaseA11y(found=run.outcome.axe_runs, note=run.note)


async def _serve_with_a_browser(ctx: GradeContext) -> ServeState:
    """The served app, with the browser launched while it starts: in a private network the
    browser is the evaluation's own, and its launch would otherwise follow the app's start."""

    async def launch() -> None:
        from playwright.async_api import Error as PlaywrightError

        # A browser that cannot start is reported by the check itself, with its reason.
        with suppress(RefereeError, PlaywrightError):
            await (await ctx.browser_pool()).browser()

    async with anyio.create_task_group() as group:
        group.start_soon(launch)
        served = await ctx.serve()
    return served


def _takes_screenshots(check: BrowserCheck) -> bool:
    return any(isinstance(e, ScreenshotExpect) for e in check.expect)


def _baselines(ctx: GradeContext, criterion: Criterion) -> Callable[[str], bytes | None]:
    store = ctx.baselines

    def baseline(name: str) -> bytes | None:
        found = store.load(ctx.contract.id, criterion.id, name) if store else None
        return found.png if found else None

    return baseline


def _code(outcome: BrowserOutcome) -> ReasonCode:
    if outcome.status == "pass":
        return ReasonCode.PASSED
    pending = [e for e in outcome.expectations if e.pending]
    if outcome.status == "unscored" and pending:
        # Could not judge (no base to compare with) comes before "the judge decides" (an image).
        coded = sorted((e for e in pending if e.pending_code), key=lambda e: e.pending_code)
        return ReasonCode(coded[0].pending_code) if coded else ReasonCode.NO_BASELINE
    return ReasonCode.EXPECTATION_FAILED if outcome.status == "fail" else ReasonCode.BROWSER_FAILED


def _files(*paths: str | None) -> list[Path]:
    return [Path(p) for p in paths if p and Path(p).is_file()]


def counts(outcome: BrowserOutcome, check: BrowserCheck | None = None) -> dict[str, int]:
    """What the dimension scores read; a11y violations only at or above the check's `min_impact`
    (the lowest any of its a11y expectations asks for)."""
    a11y = [e for e in (check.expect if check else []) if isinstance(e, A11yExpect)]
    floor = lowest_impact([e.min_impact for e in a11y])
    # A check that accepts the base's debt (every a11y expectation new_only) counts the new only.
    new_only = bool(a11y) and all(e.new_only for e in a11y) and outcome.a11y_new is not None
    violations = (outcome.a11y_new or []) if new_only else outcome.a11y_violations
    return {
        "console_errors": len(outcome.console_errors),
        "page_errors": len(outcome.page_errors),
        "failed_requests": len(outcome.failed_requests),
        "a11y_violations": len(at_or_above(violations, floor)),
        "blocked_requests": len(outcome.blocked_requests),
    }


def _details(outcome: BrowserOutcome) -> dict[str, object]:
    data = outcome.to_dict()
    data.pop("aria_snapshot", None)
    data.pop("screenshot", None)
    data.pop("trace", None)
    return data


def browser_report(outcome: BrowserOutcome) -> str:
    """A readable account of a browser check: steps, expectations, errors, then the ARIA
    snapshot."""
    lines = [
        f"url: {outcome.url}",
        f"final url: {outcome.final_url}",
        f"title: {outcome.title}",
        f"verdict: {outcome.status} ({outcome.reason})",
        f"duration: {outcome.duration_s:g} s (waited {outcome.queued_s:g} s for a page first)",
        "steps:",
    ]
    lines += [
        f"  {'ok ' if s.ok else 'ERR'} {s.label}: {s.action} {s.target} {s.error}".rstrip()
        for s in outcome.steps
    ]
    lines.append("expectations:")
    for e in outcome.expectations:
        lines.append(f"  {'ok ' if e.ok else 'ERR'} {e.number}. {e.type} {e.target} {e.detail}")
        if e.warning:
            lines.append(f"      warning: {e.warning}")
    lines += [f"console error: {c}" for c in outcome.console_errors]
    for p in outcome.page_errors:
        lines.append(f"page error: {p}")
        lines += [f"    {frame}" for frame in p.stack.splitlines()[1:]]
    lines += [
        f"failed request: {json.dumps(f.model_dump(mode='json'))}" for f in outcome.failed_requests
    ]
    lines += [f"blocked request: {b.url} ({b.reason})" for b in outcome.blocked_requests]
    lines += [
        f"a11y: {v.id} [{v.impact}] x{v.nodes} {v.help} at {', '.join(v.targets)}"
        for v in outcome.a11y_violations
    ]
    if outcome.trace:
        lines.append(f"trace: {Path(outcome.trace).name} (npx playwright show-trace FILE)")
    lines += ["aria snapshot:", outcome.aria_snapshot]
    return "\n".join(lines)
