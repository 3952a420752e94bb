"""`browser` checks: start the contract's app (`serve`), drive pages in Chromium, record what was
seen."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from referee.tools.browser.outcome import at_or_above, lowest_impact
from referee.tools.errors import RefereeError
from referee.tools.graders.base import GradeContext, GradeResult, ServeState, unscored
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

    serve = await _serve_with_a_browser(ctx)
    if serve.problem:
        return unscored(serve.code, serve.problem, list(serve.evidence_ids))
    if gone := await exit_problem(serve):
        return unscored(gone_code(serve), f"not run: {gone}", list(serve.evidence_ids))

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
    )
    if not outcome.ran:
        return unscored(gone_code(serve), outcome.reason, list(serve.evidence_ids))
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
    ids = [item.id, *serve.evidence_ids]
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
    if outcome.status == "unscored" and any(e.pending for e in outcome.expectations):
        return ReasonCode.NO_BASELINE
    return ReasonCode.EXPECTATION_FAILED if outcome.status == "fail" else ReasonCode.BROWSER_FAILED


def _files(*paths: str | None) -> list[Path]:
    return [Path(p) for p in paths if p and Path(p).is_file()]


def counts(outcome: BrowserOutcome, check: BrowserCheck | None = None) -> dict[str, int]:
    """What the dimension scores read; a11y violations only at or above the check's `min_impact`
    (the lowest any of its a11y expectations asks for)."""
    floors = [e.min_impact for e in (check.expect if check else []) if isinstance(e, A11yExpect)]
    floor = lowest_impact(list(floors))
    return {
        "console_errors": len(outcome.console_errors),
        "page_errors": len(outcome.page_errors),
        "failed_requests": len(outcome.failed_requests),
        "a11y_violations": len(at_or_above(outcome.a11y_violations, floor)),
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
