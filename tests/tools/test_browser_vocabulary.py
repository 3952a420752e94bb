"""Playwright Test's vocabulary in a contract: locator objects, the actions and the expectations
beyond the first set, each with Playwright's options, on a real page in a real Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_pages import browser_check, run
from pydantic import ValidationError

from referee.tools.browser.chromium import ChromiumNotFound, find_chromium
from referee.tools.browser.pool import BrowserPool
from referee.tools.errors import problems_from_validation

try:
    find_chromium()
except ChromiumNotFound as exc:
    pytest.skip(f"no Chromium to drive ({exc})", allow_module_level=True)

pytestmark = [pytest.mark.slow, pytest.mark.anyio, pytest.mark.browser]

SEARCH = {"label": "Search cards"}
FIX_LOGIN = [{"role": "region", "name": "To do"}, {"role": "listitem", "has_text": "login"}]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


async def test_locator_objects_actions_and_expectations_hold_on_a_real_page(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/vocab.html",
        steps=[
            {"action": "click", "selector": {"role": "link", "name": "Details"}},
            {"action": "wait_for_url", "url": "**/vocab.html#details"},
            {"action": "go_back"},
            {"action": "go_forward"},
            {"action": "reload"},
        ],
        expect=[
            {"type": "text", "selector": "h1", "contains": "OAR", "ignore_case": True},
            {"type": "text", "selector": "#todo li", "contains": ["Fix", "Write"]},
            {"type": "css", "selector": {"text": "Fix login"}, "name": "color",
             "equals": "rgb(200, 0, 0)"},
            {"type": "class", "selector": {"css": ".card", "first": True}, "matches": "urgent"},
            {"type": "class", "selector": "#todo li", "equals": ["card urgent", "card"]},
            {"type": "editable", "selector": {"label": "Frozen field"}, "editable": False},
            {"type": "editable", "selector": SEARCH},
            {"type": "accessible_name", "selector": "#add", "equals": "add", "ignore_case": True},
            {"type": "accessible_description", "selector": {"title": "Add a card"},
             "matches": "To do column$"},
            {"type": "visible", "selector": {"alt": "Team logo", "exact": True}},
            {"type": "visible", "text": "Board", "exact": True},
            {"type": "count", "selector": {"role": "listitem", "has": {"text": "docs"}},
             "equals": 1},
            {"type": "title", "equals": "Kanban board"},
            {"type": "url", "equals": "/vocab.html#details"},
            {"type": "url", "matches": "VOCAB", "ignore_case": True},
        ],
    )  # fmt: skip
    outcome = await run(pool, check, tmp_path, base_url)
    assert outcome.status == "pass", outcome.reason
    assert [s.action for s in outcome.steps][2:] == [
        "wait_for_url",
        "go_back",
        "go_forward",
        "reload",
    ]


async def test_typing_dragging_and_focus_are_seen_by_the_page(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/vocab.html",
        steps=[
            {"action": "press_sequentially", "selector": SEARCH, "value": "abc"},
            {"action": "drag_to", "selector": FIX_LOGIN, "target": {"css": "#done"}},
            {"action": "focus", "selector": {"placeholder": "Type to filter"}},
        ],
        expect=[
            {"type": "text", "selector": {"test_id": "key-count"}, "equals": "3 keys"},
            {"type": "count", "selector": ["#done", {"role": "listitem"}], "equals": 1},
            {"type": "focused", "selector": SEARCH},
        ],
    )
    outcome = await run(pool, check, tmp_path, base_url)
    assert outcome.status == "pass", outcome.reason


@pytest.mark.parametrize(
    ("exp", "says"),
    [
        (
            {"type": "text", "selector": "h1", "contains": "board"},
            "Locator expected to contain text 'board'\nActual value: Board",
        ),
        (
            {"type": "css", "selector": "#add", "name": "display", "equals": "none"},
            "Locator expected to have CSS 'none'\nActual value: inline-block",
        ),
        ({"type": "focused", "selector": SEARCH}, "Locator expected to be focused"),
        ({"type": "title", "matches": "^Board$"}, "Actual value: Kanban board"),
        ({"type": "url", "equals": "/elsewhere"}, "Page URL expected to be"),
    ],
)
async def test_a_failing_expectation_says_what_playwright_expected_and_saw(
    pool: BrowserPool, base_url: str, tmp_path: Path, exp: dict[str, Any], says: str
) -> None:
    check = browser_check("/vocab.html", expect=[{**exp, "timeout_s": 0.3}])
    outcome = await run(pool, check, tmp_path, base_url)
    assert outcome.status == "fail"
    assert says in outcome.expectations[0].detail, outcome.expectations[0].detail


async def test_a_failing_step_names_its_locator_as_playwright_code_reads(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    locator = {"role": "button", "name": "Remove", "exact": True}
    check = browser_check(
        "/vocab.html", steps=[{"action": "click", "selector": locator, "timeout_s": 0.3}]
    )
    outcome = await run(pool, check, tmp_path, base_url)
    assert outcome.steps[1].target == "getByRole('button', { name: 'Remove', exact: true })"
    assert outcome.reason.startswith(
        "step 1 (click getByRole('button', { name: 'Remove', exact: true })) failed"
    )


AT = "/steps/0/selector"


@pytest.mark.parametrize(
    ("step", "pointer", "says"),
    [
        ({"action": "click", "selector": {"role": "buton"}}, f"{AT}/role", "button"),
        ({"action": "click", "selector": {"label": "A", "css": "b"}}, AT, "exactly one"),
        ({"action": "click", "selector": {"name": "Save"}}, AT, "given: none"),
        ({"action": "hover", "selector": {"css": "a", "exact": True}}, AT, "`exact`"),
        ({"action": "click", "selector": {"text": "a", "nth": 1, "last": True}}, AT, "at most"),
        ({"action": "click", "selector": []}, AT, "at least 1"),
        ({"action": "click", "selector": {"rol": "button"}}, f"{AT}/rol", "not part of"),
        ({"action": "drag_to", "selector": "a"}, "/steps/0/target", "required"),
        ({"action": "wait_for_url"}, "/steps/0", "exactly one of `url` or `matches`"),
        ({"action": "wait_for_url", "matches": "("}, "/steps/0/matches", "regular expression"),
    ],
)
def test_a_bad_locator_or_step_is_a_problem_at_its_field(
    step: dict[str, Any], pointer: str, says: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        browser_check("/", steps=[step])
    problems = problems_from_validation(caught.value)
    assert any(p.path == pointer and says in p.message for p in problems), problems


async def test_a_selector_that_matched_late_is_told_apart_from_one_that_never_matched(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    late = browser_check(
        "/late.html",
        steps=[{"action": "fill", "selector": ".new-todo", "value": "milk", "timeout_s": 0.5}],
        expect=[{"type": "value", "selector": ".new-todo", "equals": "milk"}],
    )
    outcome = await run(pool, late, tmp_path, base_url)
    assert outcome.status == "fail"
    said = outcome.steps[1].error.splitlines()[-1]
    assert said.startswith("no element matched .new-todo in the 0.5 s waited; one appeared ")
    assert said.endswith("s later: the page is slower than this wait (raise its timeout_s),"
                         " the selector is right")  # fmt: skip
    # The failing step ended the check: its expectation is not a second bug.
    assert outcome.reason.splitlines()[-1] == "expectation 1 not evaluated: step 1 failed"
    assert "expectation 1 (" not in outcome.reason

    never = browser_check(
        "/late.html",
        expect=[
            {"type": "visible", "selector": "#new-todo", "timeout_s": 0.5},
            {"type": "visible", "selector": {"role": "textbox", "name": "New todo"}},
        ],
    )
    outcome = await run(pool, never, tmp_path, base_url)
    assert [e.ok for e in outcome.expectations] == [False, True]
    # What the page showed instead names the input the selector missed.
    assert outcome.expectations[0].detail == (
        "no element matched #new-todo in the 0.5 s waited, nor 2 s later; the page"
        f" ('Late todos' at {base_url}late.html) showed:"
        ' - main: | - heading "todos" [level=1] | - textbox "New todo"'
    )


@pytest.mark.parametrize(
    ("scope", "holds", "says"),
    [
        ({"include": ["main"]}, False, "1 violation at or above critical, on 1 node (max 0): im"),
        ({"exclude": ["main"]}, False, "critical, on 2 nodes (max 0): button-name"),
        ({"include": ["header"], "max_violations": 1}, True, "button-name (critical, 2 nodes"),
        ({"rules": ["button-name"], "max_nodes": 1}, False, "on 2 nodes (max 1 nodes)"),
        ({"rules": ["button-name"], "max_nodes": 2}, True, "button-name"),
        ({"disable_rules": ["button-name", "image-alt"]}, True, "0 violations at or above"),
        ({"rules": ["no-such-rule"]}, False, "axe could not run: "),
    ],
)  # fmt: skip
async def test_a11y_is_scoped_by_selectors_and_rules_and_counts_nodes(
    pool: BrowserPool,
    base_url: str,
    tmp_path: Path,
    scope: dict[str, Any],
    holds: bool,
    says: str,
) -> None:
    exp = {"type": "a11y", "min_impact": "critical", **scope}
    outcome = await run(pool, browser_check("/a11y-debt.html", expect=[exp]), tmp_path, base_url)
    [judged] = outcome.expectations
    assert judged.ok is holds and says in judged.detail, judged.detail


async def test_a_failing_check_that_passes_when_traced_keeps_its_verdict_and_says_it_may_be_flaky(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        f"/flaky?key={tmp_path.name}", expect=[{"type": "visible", "text": "ready", "timeout_s": 1}]
    )
    outcome = await run(pool, check, tmp_path, base_url, name="AC-F-009")
    assert outcome.status == "fail"
    assert outcome.reason.splitlines()[-1] == (
        "the check passed when run again to record its trace: the failure may be flaky"
        " (timing, or state the app kept)"
    )
    assert outcome.trace == str(tmp_path / "AC-F-009.trace.zip")
    assert "broken" in outcome.aria_snapshot  # the evidence is the first run's


async def test_an_aria_snapshot_template_matches_the_page_or_says_how_it_differs(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    template = '- region "To do":\n  - list:\n    - listitem: Fix login\n    - listitem: /Write/'
    wrong = '- region "To do":\n  - list:\n    - listitem: Fix logout'
    check = browser_check(
        "/vocab.html",
        expect=[
            {"type": "aria_snapshot", "snapshot": template},
            {"type": "aria_snapshot", "selector": {"role": "region", "name": "To do"},
             "snapshot": "- list:\n  - listitem: Fix login"},
            {"type": "aria_snapshot", "snapshot": wrong, "timeout_s": 0.3},
        ],
    )  # fmt: skip
    outcome = await run(pool, check, tmp_path, base_url)
    assert [e.ok for e in outcome.expectations] == [True, True, False], outcome.reason
    assert "Fix logout" in outcome.expectations[2].detail


async def test_a_page_that_never_loads_names_the_request_holding_it_up(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/stalled.html", expect=[{"type": "visible", "text": "Stalled"}], timeout_s=2
    )
    outcome = await run(pool, check, tmp_path, base_url)
    assert outcome.status == "fail"
    opening = outcome.steps[0]
    assert not opening.ok
    assert 'waiting until "load"' in opening.error  # Playwright's own words stay
    pending = opening.error.split("still loading when it gave up", 1)[1]
    assert "GET " in pending and "/stall/theme.css?ms=15000 (stylesheet, sent " in pending
    assert "/stall/theme.css" in outcome.reason
