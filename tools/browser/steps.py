"""Run one step of a browser check (goto, click, fill, press, select, wait_for)."""

from __future__ import annotations

import time
from typing import NamedTuple

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from referee.tools.browser.expectations import error_text
from referee.tools.browser.outcome import StepResult
from referee.tools.models.checks import (
    BrowserStep,
    ClickStep,
    FillStep,
    GotoStep,
    PressStep,
    SelectStep,
    WaitForStep,
)

NAVIGATION_SHARE = 0.5
ACTION_SHARE = 0.25


class PlannedStep(NamedTuple):
    """A step with its URL already resolved and allowed (goto only)."""

    step: BrowserStep
    url: str | None = None


def step_timeout_ms(planned: PlannedStep, check_timeout_s: float, deadline: float) -> float:
    """A share of the check's budget, never past its deadline, never 0 (Playwright's "forever")."""
    share = NAVIGATION_SHARE if isinstance(planned.step, GotoStep) else ACTION_SHARE
    left = deadline - time.monotonic()
    return max(1.0, min(check_timeout_s * share, left) * 1000)


async def run_step(
    page: Page, planned: PlannedStep, check_timeout_s: float, deadline: float
) -> StepResult:
    """Run ``planned`` on ``page``; a Playwright error is a failed step, not an exception."""
    step, target = planned.step, step_target(planned)
    started = time.monotonic()
    timeout = step_timeout_ms(planned, check_timeout_s, deadline)
    try:
        await _act(page, planned, timeout)
    except PlaywrightError as exc:
        error = error_text(exc)
        return StepResult(
            action=step.action, target=target, ok=False, error=error, duration_s=_since(started)
        )
    return StepResult(action=step.action, target=target, ok=True, duration_s=_since(started))


def step_target(planned: PlannedStep) -> str:
    """The URL of a goto, else the step's selector."""
    return planned.url or str(getattr(planned.step, "selector", ""))


async def _act(page: Page, planned: PlannedStep, timeout: float) -> None:
    step = planned.step
    match step:
        case GotoStep():
            await page.goto(planned.url or step.url, timeout=timeout)
        case ClickStep():
            await page.locator(step.selector).click(timeout=timeout)
        case FillStep():
            await page.locator(step.selector).fill(step.value, timeout=timeout)
        case PressStep():
            await page.locator(step.selector).press(step.key, timeout=timeout)
        case SelectStep():
            await page.locator(step.selector).select_option(step.value, timeout=timeout)
        case WaitForStep():
            # Non-strict: waiting for ".item" means "some item"; actions above stay strict so an
            # ambiguous selector cannot click the wrong element and still pass.
            await page.locator(step.selector).first.wait_for(state=step.state, timeout=timeout)


def _since(started: float) -> float:
    return round(time.monotonic() - started, 3)
