"""Run one step of a browser check: Playwright's actions, each with its own timeout.

A step may wait for what is left of the check's budget unless it sets a shorter `timeout_s`.
Playwright is given that timeout itself, so a step that cannot complete fails with Playwright's
own message (what it waited for, what it found) rather than being cut off by the check's bound.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import NamedTuple

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from referee.tools.browser.absence import absence
from referee.tools.browser.locators import describe, locate
from referee.tools.browser.messages import error_text, is_timeout, verbatim_text
from referee.tools.browser.outcome import StepPhase, StepResult
from referee.tools.models.browser import (
    AnyStep,
    CheckStep,
    ClickStep,
    DblclickStep,
    DragToStep,
    ElementStep,
    FillStep,
    FocusStep,
    GoBackStep,
    GoForwardStep,
    GotoStep,
    HoverStep,
    PressSequentiallyStep,
    PressStep,
    ReloadStep,
    SelectStep,
    SetInputFilesStep,
    UncheckStep,
    WaitForStep,
    WaitForUrlStep,
)

OUT_OF_TIME = "not run: the check's timeout_s was used up"


class PlannedStep(NamedTuple):
    """A step with its place in the check and its URL already resolved (and, for a goto,
    allowed)."""

    step: AnyStep
    url: str | None = None
    phase: StepPhase = "step"
    number: int = 0


class StepFailed(Exception):
    """A step that cannot run as written (a file outside the repository, a missing file)."""


# Playwright Test's actionTimeout does not bound a navigation (navigationTimeout does, and it
# defaults to the test's own bound): a dev server compiling its first page may take seconds that
# a click never should.
NAVIGATIONS = frozenset({"goto", "reload", "go_back", "go_forward", "wait_for_url"})


def step_timeout_s(step: AnyStep, deadline: float, default_s: float | None = None) -> float:
    """What is left of the check's budget, or the step's own (else, for an action, the check's
    action_timeout_s) shorter one."""
    left = deadline - time.monotonic()
    if step.timeout_s is not None:
        own: float | None = step.timeout_s
    else:
        own = None if step.action in NAVIGATIONS else default_s
    return left if own is None else min(own, left)


async def run_step(
    page: Page,
    planned: PlannedStep,
    deadline: float,
    files_root: Path | None,
    default_s: float | None = None,
) -> StepResult:
    """Run ``planned`` on ``page``; a Playwright error is a failed step, not an exception."""
    started = time.monotonic()
    timeout_s = step_timeout_s(planned.step, deadline, default_s)
    if timeout_s <= 0:
        return _result(planned, started, OUT_OF_TIME)
    try:
        # Playwright reads 0 as "no timeout": never hand it one.
        await _act(page, planned, max(1, round(timeout_s * 1000)), files_root)
    except (PlaywrightError, StepFailed) as exc:
        note = await _absent(page, planned, exc, timeout_s, deadline)
        return _result(planned, started, error_text(exc) + note, verbatim_text(exc))
    return _result(planned, started)


async def _absent(
    page: Page, planned: PlannedStep, exc: Exception, waited_s: float, deadline: float
) -> str:
    """A line on a step that timed out on a locator matching no element: late, or never."""
    step = planned.step
    if not (isinstance(step, ElementStep) and is_timeout(exc)):
        return ""
    left_s = deadline - time.monotonic()
    said = await absence(page, locate(page, step.selector), step_target(planned), waited_s, left_s)
    return f"\n{said}" if said else ""


def step_target(planned: PlannedStep) -> str:
    """The URL of a goto or wait_for_url, else the step's selector or locator."""
    step = planned.step
    if isinstance(step, WaitForUrlStep) and step.matches is not None:
        return f"/{step.matches}/"
    return planned.url or describe(getattr(step, "selector", None))


def interrupted(planned: PlannedStep, started: float) -> StepResult:
    """A step the check's bound cut off."""
    return _result(planned, started, "interrupted: the check timed out")


def _result(planned: PlannedStep, started: float, error: str = "", message: str = "") -> StepResult:
    return StepResult(
        phase=planned.phase,
        number=planned.number,
        action=planned.step.action,
        target=step_target(planned),
        ok=not error,
        error=error,
        message=message,
        duration_s=round(time.monotonic() - started, 3),
    )


async def _act(page: Page, planned: PlannedStep, timeout: float, root: Path | None) -> None:
    step = planned.step
    match step:
        case GotoStep():
            await page.goto(planned.url or step.url, timeout=timeout)
        case ReloadStep():
            await page.reload(timeout=timeout)
        case GoBackStep():
            await page.go_back(timeout=timeout)
        case GoForwardStep():
            await page.go_forward(timeout=timeout)
        case WaitForUrlStep():
            wanted = re.compile(step.matches) if step.matches is not None else planned.url
            await page.wait_for_url(wanted or "", timeout=timeout)
        case ElementStep():
            await _on_element(page, step, timeout, root)


async def _on_element(page: Page, step: ElementStep, timeout: float, root: Path | None) -> None:
    target = locate(page, step.selector)
    match step:
        case ClickStep():
            await target.click(timeout=timeout)
        case DblclickStep():
            await target.dblclick(timeout=timeout)
        case HoverStep():
            await target.hover(timeout=timeout)
        case CheckStep():
            await target.check(timeout=timeout)
        case UncheckStep():
            await target.uncheck(timeout=timeout)
        case FillStep():
            await target.fill(step.value, timeout=timeout)
        case PressStep():
            await target.press(step.key, timeout=timeout)
        case SelectStep():
            await target.select_option(step.value, timeout=timeout)
        case PressSequentiallyStep():
            delay = step.delay_s * 1000 if step.delay_s is not None else None
            await target.press_sequentially(step.value, delay=delay, timeout=timeout)
        case DragToStep():
            await target.drag_to(locate(page, step.target), timeout=timeout)
        case FocusStep():
            await target.focus(timeout=timeout)
        case SetInputFilesStep():
            await target.set_input_files(input_files(root, step.files), timeout=timeout)
        case WaitForStep():
            # Non-strict: waiting for ".item" means "some item"; actions above stay strict so an
            # ambiguous selector cannot click the wrong element and still pass.
            await target.first.wait_for(state=step.state, timeout=timeout)


def input_files(root: Path | None, names: list[str]) -> list[Path]:
    """The files a `set_input_files` step chooses, each a regular file inside ``root``.

    Raises:
        StepFailed: no repository to take files from, a path leading out of it, a missing file.
    """
    if root is None:
        raise StepFailed("set_input_files needs the repository: no files can be chosen here")
    top = root.resolve()
    chosen = []
    for name in names:
        path = (top / name).resolve()  # symlinks resolved: one pointing out is refused below
        if not path.is_relative_to(top):
            raise StepFailed(f"{name!r} leads outside the repository; choose files inside it")
        if not path.is_file():
            raise StepFailed(f"{name!r} is not a file in the repository")
        chosen.append(path)
    return chosen
