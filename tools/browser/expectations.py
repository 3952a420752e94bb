"""Evaluate a browser check's expectations against the page and what it logged."""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page, expect

from referee.tools.browser.events import PageEvents, trim
from referee.tools.browser.outcome import IMPACT_RANK, A11yViolation, ExpectationResult
from referee.tools.errors import RefereeError
from referee.tools.models.checks import (
    A11yExpect,
    AnyExpectation,
    HiddenExpect,
    NoConsoleErrorsExpect,
    NoFailedRequestsExpect,
    TitleContainsExpect,
    UrlMatchesExpect,
    VisibleExpect,
)

Expectation = AnyExpectation
_AXE_RUN = "() => axe.run(document, {resultTypes: ['violations']})"
_SHOWN = 3


class AxeUnavailable(RefereeError):
    """axe-core's script (bundled by axe-playwright-python) cannot be found."""


@cache
def axe_script() -> Path:
    """Path of the ``axe.min.js`` that axe-playwright-python ships as package data.

    Raises:
        AxeUnavailable: the package is not installed.
    """
    try:
        path = Path(str(resources.files("axe_playwright_python") / "axe.min.js"))
    except ModuleNotFoundError as exc:
        raise AxeUnavailable(
            "axe-playwright-python is not installed (it bundles axe-core)"
        ) from exc
    if not path.is_file():
        raise AxeUnavailable(f"axe-core script missing at {path}")
    return path


@dataclass
class ExpectContext:
    """What the evaluators share: the page, its events, a common deadline and axe's results."""

    page: Page
    events: PageEvents
    deadline: float
    violations: list[A11yViolation] | None = None

    def wait_ms(self) -> float:
        """Milliseconds left of the shared wait; Playwright reads 0 as "forever", so never 0."""
        return max(1.0, (self.deadline - time.monotonic()) * 1000)


async def evaluate(ctx: ExpectContext, exp: Expectation) -> ExpectationResult:
    """Evaluate one expectation; an expectation never raises, it holds or it does not.

    Raises:
        AxeUnavailable: an a11y expectation cannot run (the check is then unscored).
    """
    handler = _HANDLERS[type(exp)]
    try:
        ok, detail = await handler(ctx, exp)
    except PlaywrightError as exc:
        ok, detail = False, error_text(exc)
    return ExpectationResult(type=exp.type, target=_target(exp), ok=ok, detail=detail)


def error_text(exc: BaseException) -> str:
    """Playwright's first line plus the first line of its call log, trimmed."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    calls = [line.lstrip("- ") for line in lines[1:] if line.startswith("-")]
    return trim(lines[0] + (f" ({calls[0]})" if calls else ""), 300)


def _target(exp: Expectation) -> str:
    if isinstance(exp, VisibleExpect | HiddenExpect):
        return f"text={exp.text!r}" if exp.text is not None else exp.selector or ""
    if isinstance(exp, TitleContainsExpect | UrlMatchesExpect):
        return exp.value
    if isinstance(exp, A11yExpect):
        return f"max {exp.max_violations} at or above {exp.min_impact}"
    return ""


def _locator(page: Page, exp: VisibleExpect | HiddenExpect) -> Locator:
    # Substring, case-insensitive, whitespace-normalised: Playwright's get_by_text default.
    return page.get_by_text(exp.text) if exp.text is not None else page.locator(exp.selector or "")


async def _visible(ctx: ExpectContext, exp: VisibleExpect) -> tuple[bool, str]:
    shown = _locator(ctx.page, exp).filter(visible=True)
    try:
        await shown.first.wait_for(state="attached", timeout=ctx.wait_ms())
    except PlaywrightError as exc:
        if "Timeout" not in str(exc):
            raise
        return False, f"no visible element matches {_target(exp)}"
    return True, "a visible element matches"


async def _hidden(ctx: ExpectContext, exp: HiddenExpect) -> tuple[bool, str]:
    shown = _locator(ctx.page, exp).filter(visible=True)
    try:
        await expect(shown).to_have_count(0, timeout=ctx.wait_ms())
    except AssertionError:
        return False, f"{await shown.count()} visible element(s) still match {_target(exp)}"
    return True, "no visible element matches"


async def _title(ctx: ExpectContext, exp: TitleContainsExpect) -> tuple[bool, str]:
    try:
        await expect(ctx.page).to_have_title(
            re.compile(re.escape(exp.value)), timeout=ctx.wait_ms()
        )
    except AssertionError:
        return False, f"title is {await ctx.page.title()!r}"
    return True, f"title contains {exp.value!r}"


async def _url(ctx: ExpectContext, exp: UrlMatchesExpect) -> tuple[bool, str]:
    try:
        pattern = re.compile(exp.value)
    except re.error as exc:
        return False, f"invalid regular expression: {exc}"
    if not pattern.search(ctx.page.url):
        with suppress(PlaywrightError):
            await ctx.page.wait_for_url(
                lambda u: bool(pattern.search(u)), wait_until="commit", timeout=ctx.wait_ms()
            )
    return bool(pattern.search(ctx.page.url)), f"URL is {ctx.page.url}"


async def _no_console_errors(ctx: ExpectContext, exp: NoConsoleErrorsExpect) -> tuple[bool, str]:
    found = [*ctx.events.page_errors, *ctx.events.console_errors]
    if not found:
        return True, "no console errors and no uncaught page errors"
    counts = (
        f"{len(ctx.events.console_errors)} console error(s), {len(ctx.events.page_errors)} page"
        " error(s)"
    )
    return False, trim(f"{counts}: " + " | ".join(found[:_SHOWN]))


async def _no_failed_requests(ctx: ExpectContext, exp: NoFailedRequestsExpect) -> tuple[bool, str]:
    failed = ctx.events.failed_requests
    if not failed:
        return True, "no failed requests"
    shown = " | ".join(f"{r.status or r.failure} {r.url}" for r in failed[:_SHOWN])
    return False, trim(f"{len(failed)} failed request(s): {shown}")


async def _a11y(ctx: ExpectContext, exp: A11yExpect) -> tuple[bool, str]:
    if ctx.violations is None:
        ctx.violations = await run_axe(ctx.page)
    floor = IMPACT_RANK[exp.min_impact]
    counted = [v for v in ctx.violations if IMPACT_RANK.get(v.impact or "minor", 0) >= floor]
    listed = ", ".join(
        f"{v.id} ({v.impact}, {v.nodes} node{'s' if v.nodes != 1 else ''})" for v in counted
    )
    detail = f"{len(counted)} violation(s) at or above {exp.min_impact} (max {exp.max_violations})"
    return len(counted) <= exp.max_violations, trim(f"{detail}: {listed}" if counted else detail)


async def run_axe(page: Page) -> list[A11yViolation]:
    """Inject axe-core into ``page`` and return its violations, one per rule."""
    await page.add_script_tag(path=axe_script())
    result = await page.evaluate(_AXE_RUN)
    return [
        A11yViolation(
            id=v["id"],
            impact=v.get("impact"),
            nodes=len(v.get("nodes", [])),
            help=trim(v.get("help", "")),
        )
        for v in result.get("violations", [])
    ]


_Handler = Callable[[ExpectContext, Any], Awaitable[tuple[bool, str]]]
_HANDLERS: dict[type, _Handler] = {
    VisibleExpect: _visible,
    HiddenExpect: _hidden,
    TitleContainsExpect: _title,
    UrlMatchesExpect: _url,
    NoConsoleErrorsExpect: _no_console_errors,
    NoFailedRequestsExpect: _no_failed_requests,
    A11yExpect: _a11y,
}
