"""Evaluate a browser check's expectations against the page and what it logged.

Each expectation that waits (all but no_console_errors, no_failed_requests and a11y) has a wait
of its own: its `timeout_s`, else the check's `expect_timeout_s`,
never beyond the check's budget. One that fails therefore never shortens the next one's wait.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import anyio
from playwright.async_api import CDPSession, Locator, Page, expect
from playwright.async_api import Error as PlaywrightError

from referee.tools.browser.a11y_base import NODES_KEPT, BaseA11y, judge_new, listed
from referee.tools.browser.absence import absence
from referee.tools.browser.events import PageEvents, trim
from referee.tools.browser.locators import describe, locate
from referee.tools.browser.messages import error_text, is_timeout, verbatim_text
from referee.tools.browser.outcome import (
    IMPACT_RANK,
    A11yNode,
    A11yViolation,
    ExpectationResult,
    at_or_above,
)
from referee.tools.browser.policy import url_pattern
from referee.tools.browser.shots import ShotSource, judge_screenshot
from referee.tools.errors import RefereeError
from referee.tools.models.browser import (
    A11yExpect,
    AccessibleDescriptionExpect,
    AccessibleNameExpect,
    AnyExpectation,
    AriaSnapshotExpect,
    AttributeExpect,
    CheckedExpect,
    ClassExpect,
    CountExpect,
    CssExpect,
    DisabledExpect,
    EditableExpect,
    EnabledExpect,
    FocusedExpect,
    HiddenExpect,
    NoConsoleErrorsExpect,
    NoFailedRequestsExpect,
    ScreenshotExpect,
    TextExpect,
    TitleContainsExpect,
    TitleExpect,
    UrlExpect,
    UrlMatchesExpect,
    ValueExpect,
    VisibleExpect,
)
from referee.tools.text import agrees, counted

Expectation = AnyExpectation
UNEVALUATED = "not evaluated: "
OUT_OF_TIME = f"{UNEVALUATED}the check's timeout_s was used up"
# The violations only, as plain data: axe's results hold DOM references that do not serialise.
_AXE_RUN = (
    "((context, options) => axe.run(context === 'document' ? document : context, options)"
    ".then(r => r.violations.map(v => ({{id: v.id, impact: v.impact, help: v.help,"
    " nodes: v.nodes.map(n => ({{target: n.target, html: n.html, impact: n.impact}}))}}))))"
    "({context}, {options})"
)
_WORLD = "referee"
_SHOWN = 3
_TARGETS_SHOWN = 5
_POLL_S = 0.1


class AxeUnavailable(RefereeError):
    """axe-core's script (bundled by axe-playwright-python) cannot be found."""


class Judged(NamedTuple):
    ok: bool
    detail: str
    warning: str = ""
    message: str = ""
    pending: str = ""
    pending_code: str = ""
    note: str = ""


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
    """What the evaluators share: the page, its events, the check's deadline, axe's results, and
    which `visible`/`hidden` targets have matched an element at some point of the check."""

    page: Page
    events: PageEvents
    deadline: float
    default_timeout_s: float
    action_timeout_s: float | None = None
    base_url: str | None = None
    violations: list[A11yViolation] | None = None
    axe_runs: dict[str, list[A11yViolation]] = field(default_factory=dict)
    a11y_base: BaseA11y | None = None
    """What the base run of the same check found, for `new_only` expectations."""
    a11y_new: list[A11yViolation] | None = None
    """The violations `new_only` expectations counted as new (None: none was compared)."""
    watched: dict[str, Locator] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)
    shots: ShotSource | None = None

    def watch(self, expectations: list[Expectation]) -> None:
        """Remember the `hidden` targets, whose absence could pass for a typo (see `observe`)."""
        for exp in expectations:
            if isinstance(exp, HiddenExpect):
                self.watched[target_of(exp)] = _locator(self.page, exp)

    async def observe(self) -> None:
        """Note which watched targets match an element now (called after every step)."""
        unseen = [(k, loc) for k, loc in self.watched.items() if k not in self.seen]
        if unseen:
            async with anyio.create_task_group() as tg:
                for key, locator in unseen:
                    tg.start_soon(self._sample, key, locator)

    async def _sample(self, key: str, locator: Locator) -> None:
        with suppress(PlaywrightError):
            if await locator.count():
                self.seen.add(key)

    def wait_s(self, exp: Expectation) -> float:
        """This expectation's wait: its own, else the check's default; never past the deadline."""
        own = getattr(exp, "timeout_s", None)
        return min(own or self.default_timeout_s, self.deadline - time.monotonic())


async def evaluate(ctx: ExpectContext, exp: Expectation, number: int) -> ExpectationResult:
    """Evaluate one expectation; an expectation never raises, it holds or it does not.

    Raises:
        AxeUnavailable: an a11y expectation cannot run (the check is then unscored).
    """
    waits = type(exp) in _WAITING
    wait_s = ctx.wait_s(exp)
    if waits and wait_s <= 0:
        judged = Judged(False, OUT_OF_TIME)
    else:
        try:
            judged = await _HANDLERS[type(exp)](ctx, exp, max(1, round(wait_s * 1000)))
        except PlaywrightError as exc:
            judged = Judged(False, error_text(exc), message=verbatim_text(exc))
    return ExpectationResult(
        number=number,
        type=exp.type,
        target=target_of(exp),
        ok=judged.ok,
        detail=judged.detail,
        message=judged.message,
        warning=judged.warning,
        pending=judged.pending,
        pending_code=judged.pending_code,
        note=judged.note if judged.ok else "",
    )


def target_of(exp: Expectation) -> str:
    """What an expectation is about: a selector or locator, a text, a title, a pattern."""
    if isinstance(exp, VisibleExpect | HiddenExpect):
        return f"text={exp.text!r}" if exp.text is not None else describe(exp.selector)
    if isinstance(exp, TitleContainsExpect | UrlMatchesExpect):
        return exp.value
    if isinstance(exp, TitleExpect | UrlExpect):
        return exp.equals if exp.equals is not None else f"/{exp.matches}/"
    if isinstance(exp, A11yExpect):
        bound = f"max {exp.max_violations}" if exp.bounds_rules else f"max {exp.max_nodes} nodes"
        scoped = [f"in {', '.join(exp.include)}"] if exp.include else []
        scoped += [f"without {', '.join(exp.exclude)}"] if exp.exclude else []
        scoped += [f"rules {', '.join(exp.rules)}"] if exp.rules else []
        scoped += ["new since base"] if exp.new_only else []
        return " ".join([f"{bound} at or above {exp.min_impact}", *scoped])
    if isinstance(exp, ScreenshotExpect):
        part = f" of {describe(exp.selector)}" if exp.selector is not None else ""
        return f"{exp.name}{part}"
    if isinstance(exp, AttributeExpect | CssExpect):
        return f"{describe(exp.selector)} [{exp.name}]"
    return describe(getattr(exp, "selector", None))


def _locator(page: Page, exp: VisibleExpect | HiddenExpect) -> Locator:
    # Unless `exact`: substring, case-insensitive, whitespace-normalised (get_by_text's default).
    if exp.text is not None:
        return page.get_by_text(exp.text, exact=exp.exact or None)
    assert exp.selector is not None  # the model asks for one of the two
    return locate(page, exp.selector)


async def _visible(ctx: ExpectContext, exp: VisibleExpect, wait_ms: float) -> Judged:
    matching = _locator(ctx.page, exp)
    try:
        await matching.filter(visible=True).first.wait_for(state="attached", timeout=wait_ms)
    except PlaywrightError as exc:
        if not is_timeout(exc):
            raise
        return Judged(False, await _why_not_visible(ctx, exp, matching, wait_ms / 1000))
    return Judged(True, "a visible element matches")


async def _why_not_visible(
    ctx: ExpectContext, exp: VisibleExpect, matching: Locator, waited_s: float
) -> str:
    target = target_of(exp)
    attached = await matching.count()
    if attached:
        which = f"{counted(attached, 'element')} {agrees(attached, 'matches', 'match')}"
        return f"{which} {target}, but none is visible"
    left_s = ctx.deadline - time.monotonic()
    return await absence(ctx.page, matching, target, waited_s, left_s) or (
        f"no element matches {target}"
    )


async def _hidden(ctx: ExpectContext, exp: HiddenExpect, wait_ms: float) -> Judged:
    matching = _locator(ctx.page, exp)
    shown = matching.filter(visible=True)
    try:
        await expect(shown).to_have_count(0, timeout=wait_ms)
    except AssertionError:
        still = await shown.count()
        which = f"{counted(still, 'visible element')} still {agrees(still, 'matches', 'match')}"
        return Judged(False, f"{which} {target_of(exp)}")
    target = target_of(exp)
    if target not in ctx.seen and not await matching.count():
        return Judged(
            True,
            "no visible element matches",
            f"{target} never matched any element during the check, hidden or not: a mistyped"
            " selector passes `hidden` too; check it",
        )
    return Judged(True, "no visible element matches")


async def _title(ctx: ExpectContext, exp: TitleContainsExpect, wait_ms: float) -> Judged:
    try:
        await expect(ctx.page).to_have_title(re.compile(re.escape(exp.value)), timeout=wait_ms)
    except AssertionError:
        return Judged(False, f"title is {await ctx.page.title()!r}")
    return Judged(True, f"title contains {exp.value!r}")


async def _url(ctx: ExpectContext, exp: UrlMatchesExpect, wait_ms: float) -> Judged:
    try:
        pattern = re.compile(exp.value)
    except re.error as exc:
        return Judged(False, f"invalid regular expression: {exc}")
    if not pattern.search(ctx.page.url):
        with suppress(PlaywrightError):
            await ctx.page.wait_for_url(
                lambda u: bool(pattern.search(u)), wait_until="commit", timeout=wait_ms
            )
    return Judged(bool(pattern.search(ctx.page.url)), f"URL is {ctx.page.url}")


async def _count(ctx: ExpectContext, exp: CountExpect, wait_ms: float) -> Judged:
    matching = locate(ctx.page, exp.selector)
    wanted = _count_wanted(exp)
    end = time.monotonic() + wait_ms / 1000
    while True:
        found = await matching.count()
        if _count_holds(exp, found):
            return Judged(True, f"{_matching(found)} {target_of(exp)} ({wanted})")
        left = end - time.monotonic()
        if left <= 0:
            return Judged(False, f"{_matching(found)} {target_of(exp)}; expected {wanted}")
        await anyio.sleep(min(_POLL_S, left))


def _count_holds(exp: CountExpect, found: int) -> bool:
    if exp.equals is not None:
        return found == exp.equals
    return (exp.min is None or found >= exp.min) and (exp.max is None or found <= exp.max)


def _count_wanted(exp: CountExpect) -> str:
    if exp.equals is not None:
        return f"exactly {exp.equals}"
    bounds = [f"at least {exp.min}" if exp.min is not None else ""]
    bounds.append(f"at most {exp.max}" if exp.max is not None else "")
    return " and ".join(b for b in bounds if b)


def _pattern(equals: str | list[str] | None, matches: str | list[str] | None) -> Any:
    """What Playwright's assertion takes: a string, a compiled pattern, or a list of either."""
    if matches is None:
        return equals
    if isinstance(matches, list):
        return [re.compile(m) for m in matches]
    return re.compile(matches)


async def _asserted(assertion: Awaitable[None], holds: str) -> Judged:
    try:
        await assertion
    except AssertionError as exc:
        return Judged(False, error_text(exc), message=verbatim_text(exc))
    return Judged(True, holds)


async def _text(ctx: ExpectContext, exp: TextExpect, wait_ms: float) -> Judged:
    target = expect(locate(ctx.page, exp.selector))
    options: dict[str, Any] = {"ignore_case": exp.ignore_case, "use_inner_text": exp.use_inner_text}
    if exp.contains is not None:
        assertion = target.to_contain_text(exp.contains, timeout=wait_ms, **options)
        return await _asserted(assertion, f"text contains {exp.contains!r}")
    wanted = _pattern(exp.equals, exp.matches)
    assertion = target.to_have_text(wanted, timeout=wait_ms, **options)
    return await _asserted(assertion, f"text is {_shown(exp.equals, exp.matches)}")


async def _value(ctx: ExpectContext, exp: ValueExpect, wait_ms: float) -> Judged:
    wanted = _pattern(exp.equals, exp.matches)
    assertion = expect(locate(ctx.page, exp.selector)).to_have_value(wanted, timeout=wait_ms)
    return await _asserted(assertion, f"value is {_shown(exp.equals, exp.matches)}")


async def _attribute(ctx: ExpectContext, exp: AttributeExpect, wait_ms: float) -> Judged:
    target = expect(locate(ctx.page, exp.selector))
    if exp.equals is None and exp.matches is None:
        # Any value at all, the empty one included: the attribute is present.
        assertion = target.to_have_attribute(exp.name, re.compile(r"^[\s\S]*$"), timeout=wait_ms)
        return await _asserted(assertion, f"{exp.name} is present")
    wanted = _pattern(exp.equals, exp.matches)
    assertion = target.to_have_attribute(exp.name, wanted, timeout=wait_ms)
    return await _asserted(assertion, f"{exp.name} is {_shown(exp.equals, exp.matches)}")


async def _css(ctx: ExpectContext, exp: CssExpect, wait_ms: float) -> Judged:
    wanted = _pattern(exp.equals, exp.matches)
    assertion = expect(locate(ctx.page, exp.selector)).to_have_css(
        exp.name, wanted, timeout=wait_ms
    )
    return await _asserted(assertion, f"{exp.name} is {_shown(exp.equals, exp.matches)}")


async def _class(ctx: ExpectContext, exp: ClassExpect, wait_ms: float) -> Judged:
    wanted = _pattern(exp.equals, exp.matches)
    assertion = expect(locate(ctx.page, exp.selector)).to_have_class(wanted, timeout=wait_ms)
    return await _asserted(assertion, f"class is {_shown(exp.equals, exp.matches)}")


async def _accessible(
    ctx: ExpectContext, exp: AccessibleNameExpect | AccessibleDescriptionExpect, wait_ms: float
) -> Judged:
    target = expect(locate(ctx.page, exp.selector))
    wanted = _pattern(exp.equals, exp.matches)
    options: dict[str, Any] = {"ignore_case": exp.ignore_case, "timeout": wait_ms}
    if isinstance(exp, AccessibleNameExpect):
        assertion = target.to_have_accessible_name(wanted, **options)
    else:
        assertion = target.to_have_accessible_description(wanted, **options)
    what = exp.type.replace("_", " ")
    return await _asserted(assertion, f"{what} is {_shown(exp.equals, exp.matches)}")


async def _title_is(ctx: ExpectContext, exp: TitleExpect, wait_ms: float) -> Judged:
    wanted = _pattern(exp.equals, exp.matches)
    assertion = expect(ctx.page).to_have_title(wanted, timeout=wait_ms)
    return await _asserted(assertion, f"title is {_shown(exp.equals, exp.matches)}")


async def _url_is(ctx: ExpectContext, exp: UrlExpect, wait_ms: float) -> Judged:
    equals = url_pattern(exp.equals, ctx.base_url) if exp.equals is not None else None
    assertion = expect(ctx.page).to_have_url(
        _pattern(equals, exp.matches), ignore_case=exp.ignore_case, timeout=wait_ms
    )
    return await _asserted(assertion, f"URL is {_shown(equals, exp.matches)}")


async def _checked(ctx: ExpectContext, exp: CheckedExpect, wait_ms: float) -> Judged:
    target = expect(locate(ctx.page, exp.selector))
    assertion = target.to_be_checked(checked=exp.checked, timeout=wait_ms)
    return await _asserted(assertion, "checked" if exp.checked else "not checked")


async def _enabled(ctx: ExpectContext, exp: EnabledExpect, wait_ms: float) -> Judged:
    assertion = expect(locate(ctx.page, exp.selector)).to_be_enabled(timeout=wait_ms)
    return await _asserted(assertion, "enabled")


async def _disabled(ctx: ExpectContext, exp: DisabledExpect, wait_ms: float) -> Judged:
    assertion = expect(locate(ctx.page, exp.selector)).to_be_disabled(timeout=wait_ms)
    return await _asserted(assertion, "disabled")


async def _aria_snapshot(ctx: ExpectContext, exp: AriaSnapshotExpect, wait_ms: float) -> Judged:
    target = expect(locate(ctx.page, exp.selector))
    assertion = target.to_match_aria_snapshot(exp.snapshot, timeout=wait_ms)
    return await _asserted(assertion, "the ARIA snapshot matches")


async def _focused(ctx: ExpectContext, exp: FocusedExpect, wait_ms: float) -> Judged:
    assertion = expect(locate(ctx.page, exp.selector)).to_be_focused(timeout=wait_ms)
    return await _asserted(assertion, "focused")


async def _editable(ctx: ExpectContext, exp: EditableExpect, wait_ms: float) -> Judged:
    target = expect(locate(ctx.page, exp.selector))
    assertion = target.to_be_editable(editable=exp.editable, timeout=wait_ms)
    return await _asserted(assertion, "editable" if exp.editable else "not editable")


async def _screenshot(ctx: ExpectContext, exp: ScreenshotExpect, wait_ms: float) -> Judged:
    if ctx.shots is None:
        return Judged(False, "no baseline store: screenshots are compared only by evaluate")
    found = await judge_screenshot(ctx.page, exp, wait_ms, ctx.shots)
    return Judged(found.ok, found.detail, pending=found.pending)


def _shown(equals: str | list[str] | None, matches: str | list[str] | None) -> str:
    return f"{equals!r}" if matches is None else f"matching {matches!r}"


async def _no_console_errors(
    ctx: ExpectContext, exp: NoConsoleErrorsExpect, wait_ms: float
) -> Judged:
    errors = ctx.events
    found = [*(str(e) for e in errors.page_errors), *errors.console_errors]
    if not found:
        return Judged(True, "no console errors and no uncaught page errors")
    counts = (
        f"{counted(len(errors.console_errors), 'console error')},"
        f" {counted(len(errors.page_errors), 'page error')}"
    )
    return Judged(False, trim(f"{counts}: " + " | ".join(found[:_SHOWN]), 1000))


async def _no_failed_requests(
    ctx: ExpectContext, exp: NoFailedRequestsExpect, wait_ms: float
) -> Judged:
    failed = ctx.events.failed_requests
    if not failed:
        return Judged(True, "no failed requests")
    shown = " | ".join(f"{r.status or r.failure} {r.url}" for r in failed[:_SHOWN])
    return Judged(False, trim(f"{counted(len(failed), 'failed request')}: {shown}", 1000))


def _matching(found: int) -> str:
    return f"{counted(found, 'element')} {agrees(found, 'matches', 'match')}"


async def _a11y(ctx: ExpectContext, exp: A11yExpect, wait_ms: float) -> Judged:
    scope = axe_scope(exp)
    if scope not in ctx.axe_runs:
        try:
            ctx.axe_runs[scope] = await run_axe(ctx.page, *json.loads(scope))
        except PlaywrightError as exc:
            # axe refuses an unknown rule id or a selector it cannot parse: the contract's error.
            return Judged(False, f"axe could not run: {error_text(exc)}")
    found = ctx.axe_runs[scope]
    if ctx.violations is None:
        ctx.violations = found
    if exp.new_only:
        return _new_only(ctx, exp, found, scope)
    serious = at_or_above(found, exp.min_impact)
    nodes = sum(v.nodes for v in serious)
    bounds = [f"max {exp.max_violations}"] if exp.bounds_rules else []
    bounds += [f"max {exp.max_nodes} nodes"] if exp.max_nodes is not None else []
    detail = (
        f"{counted(len(serious), 'violation')} at or above {exp.min_impact}, on"
        f" {counted(nodes, 'node')} ({', '.join(bounds)})"
    )
    text = trim(f"{detail}: {listed(serious)}" if serious else detail, 1500)
    holds = (not exp.bounds_rules or len(serious) <= exp.max_violations) and (
        exp.max_nodes is None or nodes <= exp.max_nodes
    )
    return Judged(holds, text)


def _new_only(
    ctx: ExpectContext, exp: A11yExpect, found: list[A11yViolation], scope: str
) -> Judged:
    judged, new = judge_new(exp, found, ctx.a11y_base, scope)
    if not judged.pending:
        known = {v.id: v for v in ctx.a11y_new or []}
        for violation in new:  # one per rule across expectations: the widest count stands
            if violation.nodes > (known[violation.id].nodes if violation.id in known else -1):
                known[violation.id] = violation
        ctx.a11y_new = list(known.values())
    return Judged(
        judged.ok,
        trim(judged.detail, 1500),
        pending=trim(judged.pending, 1500),
        pending_code=judged.pending_code,
        note=trim(judged.detail, 600),
    )


def axe_scope(exp: A11yExpect) -> str:
    """axe.run's context and options for ``exp``, as one key (the same scope runs axe once)."""
    context: dict[str, Any] | str = "document"
    if exp.include or exp.exclude:
        context = {"exclude": [[s] for s in exp.exclude]}
        if exp.include:
            context["include"] = [[s] for s in exp.include]
    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if exp.rules:
        options["runOnly"] = {"type": "rule", "values": exp.rules}
    if exp.disable_rules:
        options["rules"] = {r: {"enabled": False} for r in exp.disable_rules}
    return json.dumps([context, options], sort_keys=True)


async def run_axe(
    page: Page, context: dict[str, Any] | str = "document", options: dict[str, Any] | None = None
) -> list[A11yViolation]:
    """Run axe-core on ``page`` and return its violations, one per rule.

    axe runs in an isolated world of the page's main frame (as a browser extension's content
    script does): it sees the page's DOM, while the page's own scripts see neither axe (no
    `window.axe`, no script element to observe) nor a relaxed CSP. A page that could tell the
    audit apart would hide its violations only while it is audited.

    Raises:
        PlaywrightError: axe could not run (an unknown rule id, a selector it cannot parse).
    """
    options = options or {"resultTypes": ["violations"]}
    expression = _AXE_RUN.format(context=json.dumps(context), options=json.dumps(options))
    cdp = await page.context.new_cdp_session(page)
    try:
        frames = await cdp.send("Page.getFrameTree")
        world = await cdp.send(
            "Page.createIsolatedWorld",
            {"frameId": frames["frameTree"]["frame"]["id"], "worldName": _WORLD},
        )
        where = world["executionContextId"]
        await _evaluate(cdp, axe_script().read_text(encoding="utf-8"), where)
        result = await _evaluate(cdp, expression, where, value=True)
    finally:
        with suppress(PlaywrightError):
            await cdp.detach()
    return [
        A11yViolation(
            id=v["id"],
            impact=v.get("impact"),
            nodes=len(v.get("nodes", [])),
            help=trim(v.get("help") or ""),
            targets=[_node_target(n) for n in v.get("nodes", [])[:_TARGETS_SHOWN]],
            all_nodes=tuple(_node(n) for n in v.get("nodes", [])[:NODES_KEPT]),
        )
        for v in result
    ]


async def _evaluate(cdp: CDPSession, expression: str, where: int, *, value: bool = False) -> Any:
    """Evaluate in the isolated world; a script error raises, with axe's own message."""
    answer = await cdp.send(
        "Runtime.evaluate",
        {
            "expression": expression,
            "contextId": where,
            "awaitPromise": True,
            "returnByValue": value,
        },
    )
    if failed := answer.get("exceptionDetails"):
        said = failed.get("exception", {}).get("description") or failed.get("text", "")
        raise PlaywrightError(str(said).splitlines()[0] if said else "axe failed")
    return answer.get("result", {}).get("value")


def _node(node: dict[str, Any]) -> A11yNode:
    impact = node.get("impact")
    return A11yNode(
        target=_node_target(node),
        html=trim(str(node.get("html") or ""), 300),
        impact=impact if impact in IMPACT_RANK else None,
    )


def _node_target(node: dict[str, Any]) -> str:
    # axe's target is a path of selectors through nested frames; the last one is the element.
    target = node.get("target") or ["?"]
    return trim(" >>> ".join(str(t) for t in target), 200)


_Handler = Callable[[ExpectContext, Any, float], Awaitable[Judged]]
_HANDLERS: dict[type, _Handler] = {
    VisibleExpect: _visible,
    HiddenExpect: _hidden,
    TitleContainsExpect: _title,
    UrlMatchesExpect: _url,
    CountExpect: _count,
    TextExpect: _text,
    ValueExpect: _value,
    AttributeExpect: _attribute,
    CheckedExpect: _checked,
    EnabledExpect: _enabled,
    DisabledExpect: _disabled,
    TitleExpect: _title_is,
    UrlExpect: _url_is,
    CssExpect: _css,
    ClassExpect: _class,
    AccessibleNameExpect: _accessible,
    AccessibleDescriptionExpect: _accessible,
    FocusedExpect: _focused,
    AriaSnapshotExpect: _aria_snapshot,
    EditableExpect: _editable,
    NoConsoleErrorsExpect: _no_console_errors,
    NoFailedRequestsExpect: _no_failed_requests,
    A11yExpect: _a11y,
    ScreenshotExpect: _screenshot,
}
_WAITING = frozenset(_HANDLERS) - {NoConsoleErrorsExpect, NoFailedRequestsExpect, A11yExpect}
