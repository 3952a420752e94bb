"""Run one ``browser`` check: setup steps, open the URL, run the steps, judge the expectations,
keep the evidence.

Order, as Playwright Test runs a test: the contract's `browser_setup` steps (its `beforeEach`, on
a fresh page), then the check's own `url`, then its steps in order, then every expectation.

Budget: ``check.timeout_s`` bounds the whole check from the moment it has a page (waiting for a
page slot is not the check's time and is reported apart, as ``queued_s``). A step may wait for
what is left of it, unless it sets a shorter ``timeout_s``; Playwright gets that timeout itself,
so a step that cannot complete fails with Playwright's own message. Each expectation waits on its
own (``timeout_s``, else ``check.expect_timeout_s``), never past the check's end. The screenshot,
ARIA snapshot, title and final URL are taken afterwards (even after a failing step or a
timeout) within ``CAPTURE_TIMEOUT_S``. A failing check is run once more with Playwright's tracing
on, as Playwright Test's `on-first-retry` does, and keeps that trace: tracing every run so that a
failing one could keep its trace made every passing check pay for it.

What counts as a console error or a failed request is decided in ``events.py``.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path

import anyio
from playwright.async_api import BrowserContext, Page
from playwright.async_api import Error as PlaywrightError

from referee.tools.browser.a11y_base import BaseA11y
from referee.tools.browser.chromium import ChromiumNotFound
from referee.tools.browser.events import PageEvents
from referee.tools.browser.expectations import (
    UNEVALUATED,
    AxeUnavailable,
    ExpectContext,
    evaluate,
    target_of,
)
from referee.tools.browser.messages import clip, error_text
from referee.tools.browser.outcome import (
    A11yViolation,
    BrowserOutcome,
    BrowserStatus,
    ExpectationResult,
    StepPhase,
    StepResult,
)
from referee.tools.browser.policy import UrlPolicy, UrlRefused, checked_url, url_pattern
from referee.tools.browser.pool import BrowserPool, BrowserUnavailable
from referee.tools.browser.shots import ShotSource
from referee.tools.browser.steps import NAVIGATIONS, PlannedStep, interrupted, run_step
from referee.tools.models.browser import (
    AnyStep,
    BrowserCheck,
    GotoStep,
    NoConsoleErrorsExpect,
    NoFailedRequestsExpect,
    WaitForUrlStep,
)

CAPTURE_TIMEOUT_S = 10.0
ARIA_LIMIT = 100_000
REASON_LIMIT = 4000
_SETTLE_S = 2.0
# Playwright's own timeouts end at the check's deadline; this bound only catches a call that
# hangs past it, so Playwright's message (what it waited for) arrives first.
_GRACE_S = 2.0
_DEADLINE_SLACK_S = 0.05
Gate = Callable[[], Awaitable[str | None]]
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,120}$")


@dataclass
class _Run:
    """What a check has found so far; filled in as it goes, so a timeout keeps what was seen."""

    url: str
    base_url: str | None = None
    steps: list[StepResult] = field(default_factory=list)
    expectations: list[ExpectationResult] = field(default_factory=list)
    violations: list[A11yViolation] = field(default_factory=list)
    axe_runs: dict[str, list[A11yViolation]] = field(default_factory=dict)
    a11y_new: list[A11yViolation] | None = None
    timed_out: bool = False
    unscored: str = ""
    title: str = ""
    final_url: str = ""
    aria: str = ""
    screenshot: str | None = None
    trace: str | None = None
    events: PageEvents | None = None
    running: tuple[PlannedStep, float] | None = None
    started: float = 0.0
    ended: float = 0.0
    queued_s: float = 0.0
    retry_note: str = ""
    pending: list[str] = field(default_factory=list)
    not_run: bool = False

    @property
    def failing(self) -> bool:
        return (
            self.timed_out
            or any(not s.ok for s in self.steps)
            or any(not e.ok for e in self.expectations)
        )


@dataclass(frozen=True)
class _Files:
    shot: Path
    trace: Path
    root: Path | None


async def run_browser_check(
    pool: BrowserPool,
    check: BrowserCheck,
    *,
    base_url: str | None,
    artifacts_dir: Path,
    name: str,
    repo_root: Path | None = None,
    allow_hosts: Collection[str] = (),
    setup: Sequence[AnyStep] = (),
    gate: Gate | None = None,
    baselines: Callable[[str], bytes | None] | None = None,
    a11y_base: BaseA11y | None = None,
    traced_retry: bool = True,
) -> BrowserOutcome:
    """Drive a page in the pool's Chromium and judge the check's expectations.

    Args:
        pool: The shared browser.
        check: The contract's browser check.
        base_url: The contract's ``serve.url``, for relative URLs; None when there is none.
        artifacts_dir: Where ``<name>.png`` (and ``<name>.trace.zip``) are written.
        name: The artifacts' base name, e.g. ``AC-F-001``.
        repo_root: ``file://`` URLs and ``set_input_files`` files are allowed inside it only.
        allow_hosts: Non-loopback hosts the server was started with ``--allow-host``.
        setup: The contract's ``browser_setup`` steps, run first.
        gate: Asked once the check has its page (and again before a traced re-run): a reason
            not to run it (the served app has exited), or None.
        baselines: The criterion's screenshot baselines by name (None without one); None:
            screenshot expectations cannot be judged here.
        a11y_base: What the same check found on the base commit's app, for `new_only` a11y
            expectations (None: they are not compared, and pending unless the page meets their
            bounds anyway).
        traced_retry: Run a failing check again to record its trace (off for the base run,
            whose failures are not verdicts).

    Returns:
        ``pass`` or ``fail`` with the evidence, or ``unscored`` (passed None) with a reason when
        the check could not run: URL refused or unresolvable, no Chromium, axe missing.

    Raises:
        ValueError: ``name`` is not a plain file name.
    """
    if not _SAFE_NAME.match(name):
        raise ValueError(f"artifact name {name!r} must be a plain file name")
    asked = time.monotonic()
    policy = UrlPolicy.build(repo_root, allow_hosts)
    try:
        plan = _plan(check, setup, base_url, policy)
    except UrlRefused as exc:
        return _unscored(exc.url, exc.reason, asked)
    run = _Run(url=next(p.url or "" for p in plan if p.phase == "open"), base_url=base_url)
    files = _Files(artifacts_dir / f"{name}.png", artifacts_dir / f"{name}.trace.zip", repo_root)
    shots = ShotSource(artifacts_dir, name, baselines) if baselines is not None else None
    try:
        job = _Job(pool, check, plan, policy, files, gate, shots, a11y_base)
        await _run_in_browser(job, run, asked)
        run.ended = time.monotonic()
        if traced_retry and run.failing and not run.unscored:
            await _traced_retry(job, run)
    except (ChromiumNotFound, BrowserUnavailable) as exc:
        return _unscored(run.url, f"no browser: {exc}", asked)
    except PlaywrightError as exc:
        # Opening the page itself failed (the browser died between checks): not the page's fault.
        return _unscored(run.url, f"the browser failed: {error_text(exc)}", asked)
    return _outcome(check, run, shots.images if shots else [])


def _plan(
    check: BrowserCheck, setup: Sequence[AnyStep], base_url: str | None, policy: UrlPolicy
) -> list[PlannedStep]:
    """Setup steps, the check's URL as a goto, then its steps; every URL resolved up front."""

    def planned(step: AnyStep, phase: StepPhase, number: int) -> PlannedStep:
        url = None
        if isinstance(step, GotoStep):
            url = checked_url(step.url, base_url, policy)
        elif isinstance(step, WaitForUrlStep) and step.url is not None:
            url = url_pattern(step.url, base_url)
        return PlannedStep(step, url, phase, number)

    return [
        *(planned(s, "setup", i) for i, s in enumerate(setup, 1)),
        planned(GotoStep(action="goto", url=check.url), "open", 0),
        *(planned(s, "step", i) for i, s in enumerate(check.steps, 1)),
    ]


@dataclass(frozen=True)
class _Job:
    """What a run of the check needs, the same for its first run and its traced re-run."""

    pool: BrowserPool
    check: BrowserCheck
    plan: Sequence[PlannedStep]
    policy: UrlPolicy
    files: _Files
    gate: Gate | None = None
    shots: ShotSource | None = None
    a11y_base: BaseA11y | None = None


async def _run_in_browser(job: _Job, run: _Run, asked: float, trace: Path | None = None) -> None:
    """Run the check once on a fresh context: with a screenshot and the rest of the evidence,
    or (``trace``) only to record Playwright's trace of it there."""
    check = job.check
    # axe runs in an isolated world, which the page's CSP does not govern: the page keeps its own.
    contexts = job.pool.context(check.viewport, service_workers="block")
    async with contexts as ctx:
        run.started = time.monotonic()
        run.queued_s = round(run.started - asked, 3)
        # The wait for a page may have outlasted the app: then the check is not run at all.
        if job.gate is not None and (refused := await job.gate()):
            run.unscored, run.not_run = refused, True
            return
        # The traced re-run also follows every request, to name what a page that never loaded
        # was waiting for: the passing checks' first run pays nothing for it.
        inflight = _needs_settling(check) or trace is not None
        events = run.events = PageEvents(job.policy, track_inflight=inflight)
        page = await _open_page(ctx, events)
        tracing = trace is not None and await _start_trace(ctx)
        # The traced re-run's images are not the verdict's: they go where nothing keeps them.
        shots = job.shots
        if shots is not None and trace is not None:
            shots = replace(shots, folder=shots.folder / "traced-run", images=[])
        with anyio.move_on_after(check.timeout_s + _GRACE_S) as scope:
            await _drive(ctx if tracing else None, page, job, run, shots)
        run.timed_out = run.timed_out or scope.cancelled_caught
        if trace is None:
            await _capture(page, run, job.files.shot)
        elif tracing:
            run.trace = await _stop_trace(ctx, trace)
        if not (ctx.browser and ctx.browser.is_connected()):
            run.unscored = "the browser disconnected during the check"


async def _traced_retry(job: _Job, run: _Run) -> None:
    """Run a failing check again, recording its trace (Playwright's `on-first-retry`): a passing
    check pays nothing for tracing, and the verdict stays the first run's."""
    retry = _Run(url=run.url, base_url=run.base_url)
    with suppress(PlaywrightError):
        await _run_in_browser(job, retry, time.monotonic(), trace=job.files.trace)
    run.trace = retry.trace
    _name_pending(run, retry)
    if retry.trace is not None and not retry.failing and not retry.unscored:
        run.retry_note = (
            "the check passed when run again to record its trace: the failure may be flaky"
            " (timing, or state the app kept)"
        )


def _name_pending(run: _Run, retry: _Run) -> None:
    """When a navigation failed in both runs, add to the first run's step what the re-run saw
    still loading as it failed: the request that held the page up, not only Playwright's
    `waiting until "load"`."""
    first = next((i for i, s in enumerate(run.steps) if not s.ok), None)
    again = next((s for s in retry.steps if not s.ok), None)
    if first is None or again is None or not retry.pending:
        return
    failed = run.steps[first]
    if (failed.phase, failed.number, failed.action) != (again.phase, again.number, again.action):
        return
    said = "; ".join(retry.pending)
    note = f"\nstill loading when it gave up (seen when the check ran again): {said}"
    run.steps[first] = failed.model_copy(update={"error": failed.error + note})


async def _open_page(ctx: BrowserContext, events: PageEvents) -> Page:
    """Guard and listeners and a page, in parallel: both are round trips, none navigates yet."""
    pages: list[Page] = []

    async def new_page() -> None:
        pages.append(await ctx.new_page())

    async with anyio.create_task_group() as tg:
        tg.start_soon(events.attach, ctx)
        tg.start_soon(new_page)
    events.watch_page(pages[0])
    return pages[0]


async def _start_trace(ctx: BrowserContext) -> bool:
    try:
        # No DOM snapshots: Playwright's snapshotter lives in the page's own world
        # (`window.__playwright_snapshot_streamer_…`), a marker a page could test to behave
        # only while it is checked. The trace keeps actions, console, network and sources.
        await ctx.tracing.start(snapshots=False)
    except PlaywrightError:
        return False  # no trace is no reason to fail the check
    return True


async def _stop_trace(ctx: BrowserContext, keep: Path | None) -> str | None:
    """Stop tracing; keep the trace file only for a failing check (``keep``)."""
    with anyio.move_on_after(CAPTURE_TIMEOUT_S), suppress(PlaywrightError):
        await ctx.tracing.stop(path=keep)
        return str(keep) if keep is not None and keep.is_file() else None
    return None


async def _drive(
    ctx: BrowserContext | None, page: Page, job: _Job, run: _Run, shots: ShotSource | None
) -> None:
    assert run.events is not None
    check = job.check
    expecting = ExpectContext(
        page,
        run.events,
        run.started + check.timeout_s,
        check.expect_timeout_s,
        action_timeout_s=check.action_timeout_s,
        base_url=run.base_url,
        shots=shots,
        a11y_base=job.a11y_base,
    )
    expecting.watch(check.expect)
    try:
        for planned in job.plan:
            run.running = (planned, time.monotonic())
            result = await _traced_step(ctx, page, planned, expecting, job.files.root)
            run.running = None
            run.steps.append(result)
            if not result.ok:
                if planned.step.action in NAVIGATIONS and run.events.track_inflight:
                    run.pending = run.events.pending()
                # Playwright's timeout ended with the check's budget: the check timed out.
                run.timed_out = time.monotonic() >= expecting.deadline - _DEADLINE_SLACK_S
                break
            await expecting.observe()
        else:
            # A failing step ends its check, as in Playwright Test: what it was to lead to is
            # not judged, so its expectations never read as further bugs.
            await _judge(ctx, page, check, run, expecting)
    except AxeUnavailable as exc:
        run.unscored = str(exc)
    finally:
        _mark_unjudged(check, run)


@asynccontextmanager
async def _group(ctx: BrowserContext | None, name: str) -> AsyncIterator[None]:
    """Group what runs inside in the trace under the name the reason uses (``step 2: click``);
    nothing without a trace (``ctx`` None): each group is a round trip to the browser."""
    if ctx is None:
        yield
        return
    grouped = False
    with suppress(PlaywrightError):
        await ctx.tracing.group(name)
        grouped = True
    try:
        yield
    finally:
        if grouped:
            with suppress(PlaywrightError):
                await ctx.tracing.group_end()


async def _traced_step(
    ctx: BrowserContext | None,
    page: Page,
    planned: PlannedStep,
    expecting: ExpectContext,
    root: Path | None,
) -> StepResult:
    label = StepResult(
        phase=planned.phase, number=planned.number, action=planned.step.action, target="", ok=True
    ).label
    async with _group(ctx, f"{label}: {planned.step.action}"):
        return await run_step(page, planned, expecting.deadline, root, expecting.action_timeout_s)


async def _judge(
    ctx: BrowserContext | None, page: Page, check: BrowserCheck, run: _Run, expecting: ExpectContext
) -> None:
    if _needs_settling(check) and run.events is not None:
        left = expecting.deadline - time.monotonic()
        await run.events.settle(page, max(0.0, min(_SETTLE_S, left)))
    try:
        for number, exp in enumerate(check.expect, 1):
            async with _group(ctx, f"expectation {number}: {exp.type}"):
                run.expectations.append(await evaluate(expecting, exp, number))
    finally:
        run.violations = expecting.violations or []
        run.axe_runs = dict(expecting.axe_runs)
        run.a11y_new = expecting.a11y_new


def _needs_settling(check: BrowserCheck) -> bool:
    # Only network and console verdicts depend on late events; the others wait on the page anyway.
    return any(isinstance(e, NoConsoleErrorsExpect | NoFailedRequestsExpect) for e in check.expect)


def _mark_unjudged(check: BrowserCheck, run: _Run) -> None:
    """A step a timeout interrupted failed; expectations left unevaluated (after a failing
    step, or out of time) count as not held, and say why."""
    if run.running is not None:
        run.steps.append(interrupted(*run.running))
        run.running = None
    failed = next((s for s in run.steps if not s.ok), None)
    why = f"{failed.label} failed" if failed else "the check timed out"
    if run.timed_out:
        why = "the check's timeout_s was used up"
    for number, exp in enumerate(check.expect[len(run.expectations) :], len(run.expectations) + 1):
        run.expectations.append(
            ExpectationResult(
                number=number,
                type=exp.type,
                target=target_of(exp),
                ok=False,
                detail=f"{UNEVALUATED}{why}",
            )
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


def _outcome(check: BrowserCheck, run: _Run, images: list[str]) -> BrowserOutcome:
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
        a11y_new=run.a11y_new,
        axe_runs=run.axe_runs,
        aria_snapshot=run.aria,
        screenshot=run.screenshot,
        trace=run.trace,
        images=list(images),
        ran=not run.not_run,
        duration_s=round((run.ended or time.monotonic()) - run.started, 3),
        queued_s=run.queued_s,
    )


def _verdict(check: BrowserCheck, run: _Run) -> tuple[BrowserStatus, str]:
    if run.unscored:
        return "unscored", run.unscored
    problems = []
    if run.timed_out:
        problems.append(f"timed out after {check.timeout_s:g} s")
    if failed := next((s for s in run.steps if not s.ok), None):
        problems.append(f"{failed.label} ({failed.action} {failed.target}) failed: {failed.error}")
    problems += [
        f"expectation {e.number} ({e.type} {e.target}".rstrip() + f") failed: {e.detail}"
        for e in run.expectations
        if not e.ok and not e.detail.startswith(UNEVALUATED)
    ]
    if skipped := [e for e in run.expectations if e.detail.startswith(UNEVALUATED)]:
        which = f"expectation {skipped[0].number}"
        if len(skipped) > 1:
            which = f"expectations {skipped[0].number}–{skipped[-1].number}"
        problems.append(f"{which} {skipped[0].detail}")
    warnings = [
        f"warning on expectation {e.number} ({e.type} {e.target}): {e.warning}"
        for e in run.expectations
        if e.warning
    ]
    pending = [e.pending for e in run.expectations if e.pending]
    if problems:
        notes = [run.retry_note] if run.retry_note else []
        return "fail", clip("\n".join([*problems, *warnings, *pending, *notes]), REASON_LIMIT)
    if pending:
        # Nothing failed, and an image has no baseline to be held to: the judge decides.
        return "unscored", clip("\n".join([*pending, *warnings]), REASON_LIMIT)
    held = len(run.expectations)
    verdict = f"all {held} expectations held" if held else "every step ran; no expectations"
    notes = [
        f"expectation {e.number} ({e.type} {e.target}): {e.note}"
        for e in run.expectations
        if e.note
    ]
    return "pass", clip("\n".join([verdict, *notes, *warnings]), REASON_LIMIT)


def _unscored(url: str, reason: str, asked: float) -> BrowserOutcome:
    return BrowserOutcome(
        status="unscored",
        passed=None,
        reason=reason,
        url=url,
        duration_s=round(time.monotonic() - asked, 3),
    )
