"""Run one ``browser`` check: open the URL, run the steps, judge the expectations, keep the
evidence.

Budget: the steps and expectations share ``check.timeout_s``. A navigation may use up to half of
it and any other step a quarter (so a missing selector fails that step with Playwright's message
well before the check as a whole times out); visible/hidden/title/url expectations share one short
wait. Waiting for a page slot (each holder is itself bounded) and launching Chromium (the
pool's ``launch_timeout_s``) come on top. The
screenshot, ARIA snapshot, title and final URL are taken afterwards (even after a failing step or
a timeout) within ``CAPTURE_TIMEOUT_S``.

What counts as a console error or a failed request is decided in ``events.py``: Chromium's
"Failed to load resource" console lines, requests the URL policy blocked and ``net::ERR_ABORTED``
cancellations are not counted (blocked requests are listed on their own).
"""

from __future__ import annotations

import re
import time
from collections.abc import Collection, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from playwright.async_api import BrowserContext, Page
from playwright.async_api import Error as PlaywrightError

from referee.tools.browser.chromium import ChromiumNotFound
from referee.tools.browser.events import PageEvents, trim
from referee.tools.browser.expectations import AxeUnavailable, ExpectContext, error_text, evaluate
from referee.tools.browser.outcome import (
    A11yViolation,
    BrowserOutcome,
    BrowserStatus,
    ExpectationResult,
    StepResult,
)
from referee.tools.browser.policy import UrlPolicy, UrlRefused, checked_url
from referee.tools.browser.pool import BrowserPool, BrowserUnavailable
from referee.tools.browser.steps import PlannedStep, run_step, step_target
from referee.tools.models.checks import (
    A11yExpect,
    BrowserCheck,
    GotoStep,
    NoConsoleErrorsExpect,
    NoFailedRequestsExpect,
)

CAPTURE_TIMEOUT_S = 10.0
ARIA_LIMIT = 100_000
_EXPECT_WAIT_S = 5.0
_SETTLE_S = 2.0
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,120}$")


@dataclass
class _Run:
    """What a check has found so far; filled in as it goes, so a timeout keeps what was seen."""

    url: str
    steps: list[StepResult] = field(default_factory=list)
    expectations: list[ExpectationResult] = field(default_factory=list)
    violations: list[A11yViolation] = field(default_factory=list)
    timed_out: bool = False
    unscored: str = ""
    title: str = ""
    final_url: str = ""
    aria: str = ""
    screenshot: str | None = None
    events: PageEvents | None = None
    running: tuple[PlannedStep, float] | None = None


async def run_browser_check(
    pool: BrowserPool,
    check: BrowserCheck,
    *,
    base_url: str | None,
    artifacts_dir: Path,
    name: str,
    repo_root: Path | None = None,
    allow_hosts: Collection[str] = (),
) -> BrowserOutcome:
    """Drive a page in the pool's Chromium and judge the check's expectations.

    Args:
        pool: The shared browser.
        check: The contract's browser check.
        base_url: The contract's ``serve.url``, for relative URLs; None when there is none.
        artifacts_dir: Where ``<name>.png`` is written (created if missing).
        name: The artifact's base name, usually the evidence id (``E3``).
        repo_root: ``file://`` URLs are allowed inside it only.
        allow_hosts: Non-loopback hosts the server was started with ``--allow-host``.

    Returns:
        ``pass`` or ``fail`` with the evidence, or ``unscored`` (passed None) with a reason when
        the check could not run: URL refused or unresolvable, no Chromium, axe missing.

    Raises:
        ValueError: ``name`` is not a plain file name.
    """
    if not _SAFE_NAME.match(name):
        raise ValueError(f"artifact name {name!r} must be a plain file name")
    started = time.monotonic()
    policy = UrlPolicy.build(repo_root, allow_hosts)
    try:
        plan = _plan(check, base_url, policy)
    except UrlRefused as exc:
        return _unscored(exc.url, exc.reason, started)
    run = _Run(url=plan[0].url or "")
    try:
        await _run_in_browser(pool, check, plan, policy, run, artifacts_dir / f"{name}.png")
    except (ChromiumNotFound, BrowserUnavailable) as exc:
        return _unscored(run.url, f"no browser: {exc}", started)
    except PlaywrightError as exc:
        # Opening the page itself failed (the browser died between checks): not the page's fault.
        return _unscored(run.url, f"the browser failed: {error_text(exc)}", started)
    return _outcome(check, run, started)


def _plan(check: BrowserCheck, base_url: str | None, policy: UrlPolicy) -> list[PlannedStep]:
    """The check's URL as a first goto, then its steps, every URL resolved and allowed up front."""
    first = PlannedStep(
        GotoStep(action="goto", url=check.url), checked_url(check.url, base_url, policy)
    )
    rest = [
        PlannedStep(s, checked_url(s.url, base_url, policy) if isinstance(s, GotoStep) else None)
        for s in check.steps
    ]
    return [first, *rest]


async def _run_in_browser(
    pool: BrowserPool,
    check: BrowserCheck,
    plan: Sequence[PlannedStep],
    policy: UrlPolicy,
    run: _Run,
    shot: Path,
) -> None:
    wants_axe = any(isinstance(e, A11yExpect) for e in check.expect)
    # axe is injected as a script tag, which a page's CSP would refuse; bypass it only when needed.
    async with pool.context(check.viewport, bypass_csp=wants_axe, service_workers="block") as ctx:
        events = run.events = PageEvents(policy, track_inflight=_needs_settling(check))
        page = await _open_page(ctx, events)
        with anyio.move_on_after(check.timeout_s) as scope:
            await _drive(page, check, plan, events, run)
        run.timed_out = scope.cancelled_caught
        await _capture(page, run, shot)
        if not (ctx.browser and ctx.browser.is_connected()):
            run.unscored = "the browser disconnected during the check"


async def _open_page(ctx: BrowserContext, events: PageEvents) -> Page:
    """Guard and listeners and a page, in parallel: both are round trips, none navigates yet."""
    pages: list[Page] = []

    async def new_page() -> None:
        pages.append(await ctx.new_page())

    async with anyio.create_task_group() as tg:
        tg.start_soon(events.attach, ctx)
        tg.start_soon(new_page)
    return pages[0]


async def _drive(
    page: Page, check: BrowserCheck, plan: Sequence[PlannedStep], events: PageEvents, run: _Run
) -> None:
    deadline = time.monotonic() + check.timeout_s
    try:
        for planned in plan:
            run.running = (planned, time.monotonic())
            result = await run_step(page, planned, check.timeout_s, deadline)
            run.running = None
            run.steps.append(result)
            if not result.ok:
                break
        await _judge(page, check, events, run)
    except AxeUnavailable as exc:
        run.unscored = str(exc)
    finally:
        _mark_unjudged(check, run)


async def _judge(page: Page, check: BrowserCheck, events: PageEvents, run: _Run) -> None:
    if _needs_settling(check):
        await events.settle(page, min(_SETTLE_S, check.timeout_s / 4))
    ctx = ExpectContext(
        page, events, deadline=time.monotonic() + min(_EXPECT_WAIT_S, check.timeout_s / 4)
    )
    try:
        for exp in check.expect:
            run.expectations.append(await evaluate(ctx, exp))
    finally:
        run.violations = ctx.violations or []


def _needs_settling(check: BrowserCheck) -> bool:
    # Only network and console verdicts depend on late events; the others wait on the page anyway.
    return any(isinstance(e, NoConsoleErrorsExpect | NoFailedRequestsExpect) for e in check.expect)


def _mark_unjudged(check: BrowserCheck, run: _Run) -> None:
    """A step a timeout interrupted failed; expectations it left unevaluated count as not held."""
    if run.running is not None:
        planned, started = run.running
        run.steps.append(
            StepResult(
                action=planned.step.action,
                target=step_target(planned),
                ok=False,
                error="interrupted: the check timed out",
                duration_s=round(time.monotonic() - started, 3),
            )
        )
        run.running = None
    for exp in check.expect[len(run.expectations) :]:
        run.expectations.append(
            ExpectationResult(type=exp.type, ok=False, detail="not evaluated: the check timed out")
        )


async def _capture(page: Page, run: _Run, shot: Path) -> None:
    """Screenshot, ARIA snapshot and title, concurrently and best effort, each on its own."""
    run.final_url = page.url
    shot.parent.mkdir(parents=True, exist_ok=True)
    with anyio.move_on_after(CAPTURE_TIMEOUT_S):
        async with anyio.create_task_group() as tg:
            tg.start_soon(_screenshot, page, run, shot)
            tg.start_soon(_aria, page, run)
            tg.start_soon(_title, page, run)


async def _screenshot(page: Page, run: _Run, shot: Path) -> None:
    with suppress(PlaywrightError):
        await page.screenshot(path=shot, full_page=True, timeout=CAPTURE_TIMEOUT_S * 1000)
        run.screenshot = str(shot)


async def _aria(page: Page, run: _Run) -> None:
    with suppress(PlaywrightError):
        run.aria = _cap(await page.locator("body").aria_snapshot(timeout=CAPTURE_TIMEOUT_S * 1000))


async def _title(page: Page, run: _Run) -> None:
    with suppress(PlaywrightError):
        run.title = await page.title()


def _cap(text: str) -> str:
    return text if len(text) <= ARIA_LIMIT else text[:ARIA_LIMIT] + "\n… (truncated)"


def _outcome(check: BrowserCheck, run: _Run, started: float) -> BrowserOutcome:
    events = run.events
    status, reason = _verdict(check, run)
    return BrowserOutcome(
        status=status,
        passed=None if status == "unscored" else status == "pass",
        reason=reason,
        url=run.url,
        final_url=run.final_url,
        title=run.title,
        steps=run.steps,
        expectations=run.expectations,
        console_errors=events.console_errors if events else [],
        page_errors=events.page_errors if events else [],
        failed_requests=events.failed_requests if events else [],
        blocked_requests=events.blocked_requests if events else [],
        dropped_events=events.dropped if events else 0,
        a11y_violations=run.violations,
        aria_snapshot=run.aria,
        screenshot=run.screenshot,
        duration_s=round(time.monotonic() - started, 3),
    )


def _verdict(check: BrowserCheck, run: _Run) -> tuple[BrowserStatus, str]:
    if run.unscored:
        return "unscored", run.unscored
    if run.timed_out:
        return "fail", f"timed out after {check.timeout_s:g} s"
    problems = []
    if failed := next((s for s in run.steps if not s.ok), None):
        problems.append(
            f"step {run.steps.index(failed) + 1} ({failed.action} {failed.target}) failed:"
            f" {failed.error}"
        )
    if bad := [e for e in run.expectations if not e.ok]:
        names = ", ".join(f"{e.type} {e.target}".strip() for e in bad)
        problems.append(f"{len(bad)} of {len(run.expectations)} expectations failed: {names}")
    if problems:
        return "fail", trim("; ".join(problems), 1000)
    held = len(run.expectations)
    return "pass", f"all {held} expectations held" if held else "every step ran; no expectations"


def _unscored(url: str, reason: str, started: float) -> BrowserOutcome:
    return BrowserOutcome(
        status="unscored",
        passed=None,
        reason=reason,
        url=url,
        duration_s=round(time.monotonic() - started, 3),
    )
