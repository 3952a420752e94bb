"""Browser checks against real pages in a real Chromium (skipped, with a reason, when none is
found)."""

from __future__ import annotations

import os
import signal
import socket
import stat
import time
import zipfile
from contextlib import suppress
from pathlib import Path

import anyio
import pytest
from browser_pages import FIXTURES, browser_check, run
from viteapp import add

from referee.tools.browser.chromium import (
    ChromiumNotFound,
    clear_cache,
    find_chromium,
    playwright_version,
)
from referee.tools.browser.outcome import A11yViolation, BrowserOutcome
from referee.tools.browser.pool import BrowserPool, resolver_rules
from referee.tools.graders.browser import counts
from referee.tools.models.checks import BrowserCheck

try:
    CHROMIUM = find_chromium()
except ChromiumNotFound as exc:
    pytest.skip(f"no Chromium to drive ({exc})", allow_module_level=True)

pytestmark = [pytest.mark.anyio, pytest.mark.browser]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


async def test_button_flow_passes_every_expectation_and_keeps_screenshot_and_aria(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/button.html",
        steps=[{"action": "click", "selector": "role=button[name='Go']"}],
        expect=[
            {"type": "visible", "text": "Clicked"},
            {"type": "visible", "selector": "#out"},
            {"type": "hidden", "selector": ".spinner"},
            {"type": "title_contains", "value": "Button"},
            {"type": "url_matches", "value": r"/button\.html$"},
            {"type": "no_console_errors"},
            {"type": "no_failed_requests"},
            {"type": "a11y", "max_violations": 0, "min_impact": "serious"},
        ],
    )
    outcome = await run(pool, check, tmp_path, base_url, name="E3")
    assert outcome.status == "pass", outcome.reason
    assert outcome.passed is True
    assert [e.ok for e in outcome.expectations] == [True] * 8
    assert [s.action for s in outcome.steps] == ["goto", "click"]
    assert outcome.title == "Button page"
    assert outcome.final_url == base_url + "button.html"
    assert Path(outcome.screenshot or "") == tmp_path / "E3.png"
    assert (tmp_path / "E3.png").read_bytes()[:8] == PNG_MAGIC
    assert 'button "Go"' in outcome.aria_snapshot and "Clicked" in outcome.aria_snapshot
    assert outcome.summary() == "8/8 expectations held; screenshot E3.png"
    assert outcome.to_dict()["status"] == "pass"


async def test_form_fill_select_and_enter_show_the_result(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/form.html",
        steps=[
            {"action": "fill", "selector": "#name", "value": "Ada"},
            {"action": "select", "selector": "#size", "value": "L"},
            {"action": "press", "selector": "#name", "key": "Enter"},
            {"action": "wait_for", "selector": "#result:has-text('Hello')"},
        ],
        expect=[
            {"type": "visible", "text": "Hello, Ada (L)"},
            {"type": "url_matches", "value": "/done$"},
        ],
    )
    outcome = await run(pool, check, tmp_path, base_url)
    assert outcome.status == "pass", outcome.reason
    assert all(s.ok for s in outcome.steps) and len(outcome.steps) == 5
    assert 'textbox "Name": Ada' in outcome.aria_snapshot


@pytest.mark.slow
async def test_a_missing_selector_fails_its_step_and_ends_the_check(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/button.html",
        steps=[
            {"action": "click", "selector": "#missing", "timeout_s": 1},
            {"action": "click", "selector": "#go"},
        ],
        expect=[
            {"type": "visible", "text": "Clicked", "timeout_s": 0.5},
            {"type": "title_contains", "value": "Button"},
        ],
        timeout_s=10,
    )
    outcome = await run(pool, check, tmp_path, base_url)
    assert outcome.status == "fail" and outcome.passed is False
    assert [(s.action, s.target, s.ok) for s in outcome.steps] == [
        ("goto", base_url + "button.html", True),
        ("click", "#missing", False),
    ]
    assert outcome.steps[1].error.splitlines()[:2] == [
        "Locator.click: Timeout 1000ms exceeded.",
        '- waiting for locator("#missing")',
    ]
    assert (
        outcome.steps[1]
        .error.splitlines()[2]
        .startswith(
            "no element matched #missing in the 1 s waited, nor 2 s later; the page ('Button page'"
        )
    )
    # Numbered as the contract lists the steps: opening the check's url is not "step 1".
    assert outcome.reason.startswith("step 1 (click #missing) failed: Locator.click: Timeout")
    # Playwright Test's order: a failing step ends the test, its expectations are not judged.
    assert [e.detail for e in outcome.expectations] == ["not evaluated: step 1 failed"] * 2
    assert outcome.reason.splitlines()[-1] == "expectations 1–2 not evaluated: step 1 failed"
    assert outcome.screenshot and Path(outcome.screenshot).is_file()


async def test_throwing_page_fails_no_console_errors(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check("/throws.html", expect=[{"type": "no_console_errors"}])
    outcome = await run(pool, check, tmp_path, base_url)
    assert outcome.status == "fail"
    [error] = outcome.page_errors
    assert (error.name, error.message) == ("ReferenceError", "notDefinedAnywhere is not defined")
    assert error.location.startswith("/throws.html:") and "at " in error.stack
    assert outcome.console_errors[0].startswith("something went wrong (at /throws.html:")
    assert "1 page error" in outcome.expectations[0].detail
    assert f"(at {error.location})" in outcome.expectations[0].detail


async def test_404_fetch_fails_no_failed_requests(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/broken-fetch.html", expect=[{"type": "no_failed_requests"}, {"type": "no_console_errors"}]
    )
    outcome = await run(pool, check, tmp_path, base_url)
    assert outcome.status == "fail"
    assert [(r.url, r.status, r.resource_type) for r in outcome.failed_requests] == [
        (base_url + "api/missing.json", 404, "fetch")
    ]
    # Chromium's "Failed to load resource" line for the 404 is a network failure, judged once.
    assert [e.ok for e in outcome.expectations] == [False, True]


@pytest.mark.slow
async def test_a11y_violations_are_counted_from_min_impact(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/a11y.html",
        expect=[
            {"type": "a11y", "max_violations": 0, "min_impact": "critical"},
            {"type": "a11y", "max_violations": 2, "min_impact": "critical"},
        ],
    )
    outcome = await run(pool, check, tmp_path, base_url)
    assert {(v.id, v.impact, v.nodes) for v in outcome.a11y_violations} >= {
        ("image-alt", "critical", 1),
        ("label", "critical", 1),
    }
    assert [e.ok for e in outcome.expectations] == [False, True]
    assert "2 violations at or above critical" in outcome.expectations[0].detail


@pytest.mark.slow
async def test_a11y_runs_on_a_page_whose_csp_forbids_injected_scripts(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/csp.html", expect=[{"type": "a11y", "max_violations": 0, "min_impact": "critical"}]
    )
    outcome = await run(pool, check, tmp_path, base_url)
    assert outcome.status == "fail"
    assert [v.id for v in outcome.a11y_violations if v.impact == "critical"] == ["image-alt"]


@pytest.mark.slow
async def test_a_page_cannot_hide_a_violation_only_while_axe_audits_it(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    # The page drops its nameless button when it sees axe (a global, an added script element)
    # or a relaxed CSP; axe runs where the page's scripts cannot see it, under the page's CSP.
    check = browser_check("/hides-from-axe.html", expect=[{"type": "a11y", "max_violations": 0}])
    outcome = await run(pool, check, tmp_path, base_url)
    assert [(v.id, v.targets) for v in outcome.a11y_violations] == [("button-name", ["#share"])]
    assert outcome.status == "fail"


async def test_external_requests_are_blocked_and_recorded_not_failed(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/external.html", expect=[{"type": "no_failed_requests"}, {"type": "no_console_errors"}]
    )
    outcome = await run(pool, check, tmp_path, base_url)
    assert outcome.status == "pass", outcome.reason
    assert sorted(r.url for r in outcome.blocked_requests) == [
        "http://203.0.113.7/beacon",
        "https://tracker.example.com/pixel.gif",
    ]
    assert outcome.failed_requests == []
    assert "2 blocked requests" in outcome.summary()


async def test_redirect_off_loopback_is_blocked_and_recorded(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check("/redirect.html", expect=[{"type": "no_failed_requests"}])
    outcome = await run(pool, check, tmp_path, base_url)
    assert [r.url for r in outcome.blocked_requests] == ["http://203.0.113.9/pixel.gif"]
    assert "ERR_NAME_NOT_RESOLVED" in outcome.blocked_requests[0].reason


async def test_non_loopback_check_url_is_refused_unscored(
    pool: BrowserPool, tmp_path: Path
) -> None:
    outcome = await run(pool, browser_check("https://example.com/"), tmp_path, None)
    assert (outcome.status, outcome.passed) == ("unscored", None)
    assert "example.com" in outcome.reason and "--allow-host" in outcome.reason
    assert outcome.screenshot is None


async def test_goto_step_off_loopback_is_refused_before_anything_runs(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/button.html", steps=[{"action": "goto", "url": "http://10.0.0.1/admin"}]
    )
    outcome = await run(pool, check, tmp_path, base_url)
    assert outcome.status == "unscored" and "10.0.0.1" in outcome.reason
    assert outcome.steps == []


async def test_allowed_host_is_not_refused(pool: BrowserPool, tmp_path: Path) -> None:
    check = browser_check("http://app.example.invalid/", timeout_s=6)
    outcome = await run(pool, check, tmp_path, None, allow_hosts={"app.example.invalid"})
    # Allowed by the policy, so the browser really tried (and .invalid never resolves).
    assert outcome.status == "fail"
    assert "ERR_NAME_NOT_RESOLVED" in outcome.steps[0].error


async def test_relative_urls_are_joined_to_the_base_url(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/button.html",
        steps=[{"action": "goto", "url": "form.html"}],
        expect=[{"type": "title_contains", "value": "Order"}],
    )
    outcome = await run(pool, check, tmp_path, base_url + "healthz")
    assert outcome.status == "pass", outcome.reason
    assert [s.target for s in outcome.steps] == [base_url + "button.html", base_url + "form.html"]


async def test_relative_url_without_base_url_is_unscored(pool: BrowserPool, tmp_path: Path) -> None:
    outcome = await run(pool, browser_check("/button.html"), tmp_path, None)
    assert outcome.status == "unscored"
    assert "serve.url" in outcome.reason


async def test_file_urls_are_allowed_inside_the_repository_only(
    pool: BrowserPool, tmp_path: Path
) -> None:
    check = browser_check(
        (FIXTURES / "button.html").as_uri(), expect=[{"type": "title_contains", "value": "Button"}]
    )
    inside = await run(pool, check, tmp_path, None, repo_root=FIXTURES.parent)
    outside = await run(pool, check, tmp_path, None, repo_root=tmp_path)
    assert inside.status == "pass", inside.reason
    assert outside.status == "unscored" and "outside the repository" in outside.reason


@pytest.mark.slow
async def test_action_timeout_bounds_actions_not_navigations(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    # As Playwright Test's actionTimeout: the page that takes 1.5 s to answer is waited for
    # (opening, a goto, a reload), a click on what never appears is not.
    steps = [
        {"action": "goto", "url": "/late?ms=1500&n=2"},
        {"action": "reload"},
        {"action": "click", "selector": "#never"},
    ]
    check = browser_check(
        "/late?ms=1500&n=1", steps=steps, expect=[{"type": "visible", "text": "arrived"}]
    )
    check.action_timeout_s = 0.5
    outcome = await run(pool, check, tmp_path, base_url)
    assert [s.ok for s in outcome.steps] == [True, True, True, False], outcome.steps
    assert "#never" in outcome.steps[-1].error and "500ms" in outcome.steps[-1].message


@pytest.mark.slow
async def test_check_timeout_is_respected(pool: BrowserPool, base_url: str, tmp_path: Path) -> None:
    # Each wait_for succeeds (an item appears every 0.3 s, a step may take 1 s), but 40 of them
    # outlast the check's 4 s.
    steps = [{"action": "wait_for", "selector": f"#item{i}"} for i in range(1, 41)]
    check = browser_check(
        "/slow.html", steps=steps, expect=[{"type": "visible", "text": "item 1"}], timeout_s=4
    )
    with anyio.fail_after(20):
        outcome = await run(pool, check, tmp_path, base_url)
    assert outcome.status == "fail"
    last = outcome.steps[-1]
    head = f"timed out after 4 s\nstep {last.number} (wait_for #item{last.number}) failed: "
    # The check's deadline lands inside a step (Playwright's own timeout ends with it, and its
    # message, what it waited for, is kept) or, on a loaded machine, between two steps.
    if outcome.reason.startswith(head + "Locator.wait_for: Timeout"):
        assert f'waiting for locator("#item{last.number}")' in last.error
    else:
        assert outcome.reason.startswith(head + "not run: the check's timeout_s was used up")
    assert last.number < 40 and all(s.ok for s in outcome.steps[:-1])
    assert outcome.expectations[0].detail == "not evaluated: the check's timeout_s was used up"
    assert outcome.duration_s >= 4
    assert outcome.screenshot and Path(outcome.screenshot).is_file()


@pytest.mark.slow
async def test_four_concurrent_checks_on_one_pool_are_all_correct(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    checks = {
        "button": (
            browser_check(
                "/button.html",
                [{"action": "click", "selector": "#go"}],
                [{"type": "visible", "text": "Clicked"}],
            ),
            "pass",
        ),
        "throws": (browser_check("/throws.html", expect=[{"type": "no_console_errors"}]), "fail"),
        "fetch": (
            browser_check("/broken-fetch.html", expect=[{"type": "no_failed_requests"}]),
            "fail",
        ),
        "a11y": (
            browser_check("/a11y.html", expect=[{"type": "a11y", "max_violations": 0}]),
            "fail",
        ),
    }
    results: dict[str, BrowserOutcome] = {}

    async def one(name: str, check: BrowserCheck) -> None:
        results[name] = await run(pool, check, tmp_path, base_url, name=name)

    async with anyio.create_task_group() as tg:
        for name, (check, _) in checks.items():
            tg.start_soon(one, name, check)
    assert {n: o.status for n, o in results.items()} == {n: want for n, (_, want) in checks.items()}
    assert results["throws"].page_errors and not results["button"].page_errors
    assert results["fetch"].failed_requests and not results["a11y"].failed_requests
    assert all((tmp_path / f"{name}.png").is_file() for name in checks)


async def test_pool_never_opens_more_pages_than_its_limit(tmp_path: Path) -> None:
    open_now = peak = 0

    async def hold(pool: BrowserPool) -> None:
        nonlocal open_now, peak
        async with pool.context():
            open_now += 1
            peak = max(peak, open_now)
            await anyio.sleep(0.2)  # holding the slot is the point here
            open_now -= 1

    async with BrowserPool(CHROMIUM, max_pages=2) as pool, anyio.create_task_group() as tg:
        for _ in range(5):
            tg.start_soon(hold, pool)
    assert peak == 2


@pytest.mark.slow
async def test_pool_relaunches_after_the_browser_is_closed_underneath(
    base_url: str, tmp_path: Path
) -> None:
    check = browser_check("/button.html", expect=[{"type": "title_contains", "value": "Button"}])
    async with BrowserPool(CHROMIUM) as pool:
        assert (await run(pool, check, tmp_path, base_url)).status == "pass"
        await (await pool.browser()).close()
        assert (await run(pool, check, tmp_path, base_url)).status == "pass"
        for pid in pool.pids():
            with suppress(ProcessLookupError):  # children die with the browser
                os.kill(pid, signal.SIGKILL)
        assert (await run(pool, check, tmp_path, base_url)).status == "pass"
        assert pool.launches == 3
    assert pool.pids() == []


async def test_no_chromium_makes_the_check_unscored(base_url: str, tmp_path: Path) -> None:
    env = {"PATH": str(tmp_path), "PLAYWRIGHT_BROWSERS_PATH": str(tmp_path), "HOME": str(tmp_path)}
    async with BrowserPool(env=env) as pool:
        outcome = await run(pool, browser_check("/button.html"), tmp_path, base_url)
    assert (outcome.status, outcome.passed) == ("unscored", None)
    assert "apt-get install chromium" in outcome.reason


async def test_artifact_name_must_be_a_plain_file_name(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match="plain file name"):
        await run(pool, browser_check("/button.html"), tmp_path, base_url, name="../escape")


def _script(directory: Path, name: str, body: str) -> None:
    path = directory / name
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_find_chromium_skips_broken_stubs_on_path(tmp_path: Path) -> None:
    _script(tmp_path, "chromium", "exit 1")
    _script(tmp_path, "google-chrome", "echo 'Google Chrome 131.0.6778.85 '")
    clear_cache()
    info = find_chromium({"PATH": str(tmp_path), "PLAYWRIGHT_BROWSERS_PATH": str(tmp_path)})
    assert (info.executable, info.source, info.version) == (
        str(tmp_path / "google-chrome"),
        "system",
        "131.0.6778.85",
    )


def test_find_chromium_honours_the_override_and_rejects_a_broken_one(tmp_path: Path) -> None:
    clear_cache()
    info = find_chromium({"REFEREE_CHROMIUM": CHROMIUM.executable, "PATH": ""})
    assert (info.source, info.version) == ("env", CHROMIUM.version)
    with pytest.raises(ChromiumNotFound, match="does not run") as caught:
        find_chromium({"REFEREE_CHROMIUM": str(tmp_path / "nope"), "PATH": ""})
    assert "python -m playwright install chromium" in caught.value.hint


def test_playwright_version_is_reported() -> None:
    assert playwright_version()[0].isdigit()


def test_resolver_rules_exempt_loopback_and_allowed_hosts_only() -> None:
    assert (
        resolver_rules(["App.Example.test"])
        == "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1,"
        " EXCLUDE ::1, EXCLUDE app.example.test"
    )


@pytest.mark.slow
async def test_each_expectation_waits_on_its_own_so_one_failure_does_not_fail_the_next(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    # The failing `hidden` waits its whole default 5 s; `visible h1` still gets a wait of its own.
    check = browser_check(
        "/todos.html",
        expect=[
            {"type": "hidden", "selector": ".new-todo"},
            {"type": "visible", "selector": "h1"},
            {"type": "title_contains", "value": "TodoMVC"},
        ],
    )
    outcome = await run(pool, check, tmp_path, base_url)
    assert [(e.number, e.type, e.ok) for e in outcome.expectations] == [
        (1, "hidden", False),
        (2, "visible", True),
        (3, "title_contains", True),
    ]
    assert outcome.reason.splitlines()[0] == (
        "expectation 1 (hidden .new-todo) failed: 1 visible element still matches .new-todo"
    )
    assert outcome.duration_s >= 5  # the failing wait used its whole 5 s


async def test_playwright_test_steps_and_assertions_hold_on_a_todo_list(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/todos.html",
        steps=[
            *add("buy milk", "walk the dog", "write tests"),
            {"action": "check", "selector": ".todo-list li:nth-child(1) .toggle"},
            {"action": "check", "selector": ".todo-list li:nth-child(2) .toggle"},
            {"action": "uncheck", "selector": ".todo-list li:nth-child(2) .toggle"},
            {"action": "hover", "selector": ".todo-list li:nth-child(3)"},
            {"action": "dblclick", "selector": ".todo-list li:nth-child(3) label"},
            {"action": "set_input_files", "selector": "#avatar", "files": ["files/avatar.txt"]},
        ],
        expect=[
            {"type": "count", "selector": ".todo-list li", "equals": 3},
            {"type": "count", "selector": ".todo-list li.completed", "min": 1, "max": 1},
            {
                "type": "text",
                "selector": ".todo-list li label",
                "equals": ["buy milk", "walk the dog", "write tests"],
            },
            {"type": "text", "selector": ".todo-count", "matches": r"^2 items? left$"},
            {
                "type": "value",
                "selector": ".todo-list li:nth-child(3) .edit",
                "equals": "write tests",
            },
            {"type": "checked", "selector": ".todo-list li:nth-child(1) .toggle"},
            {"type": "checked", "selector": ".todo-list li:nth-child(2) .toggle", "checked": False},
            {"type": "enabled", "selector": ".clear-completed"},
            {
                "type": "attribute",
                "selector": ".todo-list li:nth-child(1)",
                "name": "class",
                "matches": "completed",
            },
            {"type": "attribute", "selector": ".new-todo", "name": "placeholder"},
            {"type": "visible", "selector": ".todo-list li:nth-child(3) .destroy"},
            {"type": "text", "selector": "#avatar-name", "equals": "avatar.txt"},
        ],
    )
    outcome = await run(pool, check, tmp_path, base_url, repo_root=FIXTURES)
    assert outcome.status == "pass", outcome.reason
    assert [s.label for s in outcome.steps][:2] == ["opening the page", "step 1"]
    assert outcome.trace is None  # a passing check keeps no trace


@pytest.mark.slow
async def test_a_disabled_button_and_a_wrong_list_fail_with_playwrights_own_words(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/todos.html",
        steps=add("a", "b"),
        expect=[
            {"type": "disabled", "selector": ".clear-completed"},
            {"type": "enabled", "selector": ".clear-completed", "timeout_s": 0.5},
            {
                "type": "text",
                "selector": ".todo-list li label",
                "equals": ["a", "c"],
                "timeout_s": 0.5,
            },
            {"type": "count", "selector": ".todo-list li", "min": 3, "timeout_s": 0.5},
            {"type": "value", "selector": ".new-todo", "equals": "typed", "timeout_s": 0.5},
        ],
    )
    outcome = await run(pool, check, tmp_path, base_url)
    assert [e.ok for e in outcome.expectations] == [True, False, False, False, False]
    enabled, text, count, value = outcome.expectations[1:]
    assert 'Expect "to_be_enabled"' in enabled.detail and "unexpected value" in enabled.detail
    assert "Actual value: ['a', 'b']" in text.detail
    assert count.detail == "2 elements match .todo-list li; expected at least 3"
    assert "Locator expected to have Value 'typed'" in value.detail
    assert "expectation 3 (text .todo-list li label) failed: Locator expected to have text" in (
        outcome.reason
    )


@pytest.mark.slow
async def test_an_ambiguous_or_hidden_target_fails_its_step_with_the_elements_and_the_cause(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    ambiguous = browser_check(
        "/todos.html",
        steps=[*add("a", "b"), {"action": "click", "selector": ".todo-list li label"}],
    )
    hidden = browser_check(
        "/todos.html", steps=[{"action": "click", "selector": ".secret", "timeout_s": 1}]
    )
    first = await run(pool, ambiguous, tmp_path, base_url, name="E1")
    second = await run(pool, hidden, tmp_path, base_url, name="E2")
    error = first.steps[-1].error
    assert "strict mode violation" in error and "resolved to 2 elements" in error
    assert "1) <label>a</label>" in error and "2) <label>b</label>" in error
    assert first.reason.startswith("step 5 (click .todo-list li label) failed: Locator.click:")
    assert "element is not visible" in second.steps[-1].error
    assert second.reason.startswith("step 1 (click .secret) failed")
    # the evidence also keeps Playwright's own words as it printed them, for the report
    verbatim = second.steps[-1].message
    assert "Call log:" in verbatim and "\n  - " in verbatim
    assert verbatim.count("element is not visible") > second.steps[-1].error.count(
        "element is not visible"
    )


@pytest.mark.slow
async def test_a_mistyped_hidden_selector_passes_with_a_warning_naming_it(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/todos.html",
        steps=add("a"),
        expect=[
            {"type": "hidden", "selector": ".todo-lsit li"},
            {"type": "hidden", "selector": ".secret"},
            {"type": "visible", "selector": ".tood-count", "timeout_s": 0.3},
        ],
    )
    outcome = await run(pool, check, tmp_path, base_url)
    typo, real, missing = outcome.expectations
    assert typo.ok and ".todo-lsit li never matched any element" in typo.warning
    assert real.ok and real.warning == ""  # it exists, it is just not visible
    assert not missing.ok and "nor 2 s later; the page ('Fixture • TodoMVC' at" in missing.detail
    assert "warning on expectation 1 (hidden .todo-lsit li)" in outcome.reason


async def test_files_outside_the_repository_cannot_be_chosen(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    (tmp_path / "repo").mkdir()
    (tmp_path / "secret.txt").write_text("private", encoding="utf-8")
    (tmp_path / "repo" / "link.txt").symlink_to(tmp_path / "secret.txt")
    check = browser_check(
        "/todos.html",
        steps=[{"action": "set_input_files", "selector": "#avatar", "files": ["link.txt"]}],
    )
    outcome = await run(pool, check, tmp_path, base_url, repo_root=tmp_path / "repo")
    assert outcome.status == "fail"
    assert (
        outcome.steps[-1].error == "'link.txt' leads outside the repository; choose files inside it"
    )


async def test_a_click_that_ends_on_chromes_error_page_fails_no_failed_requests(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    dead = free_port()
    check = browser_check(
        f"/todos.html?dead={dead}",
        steps=[{"action": "click", "selector": "#dead-link"}],
        expect=[{"type": "no_failed_requests"}],
    )
    outcome = await run(pool, check, tmp_path, base_url)
    assert outcome.final_url.startswith("chrome-error://")
    assert outcome.status == "fail"
    assert [r.url for r in outcome.failed_requests] == [f"http://127.0.0.1:{dead}/"]


async def test_page_errors_carry_message_stack_and_source_location(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check("/todos.html#throw", expect=[{"type": "no_console_errors"}])
    outcome = await run(pool, check, tmp_path, base_url)
    [error] = outcome.page_errors
    assert error.name == "TypeError" and "notAFunction" in error.message
    assert "at explode (" in error.stack
    assert error.location.startswith("/todos.html:")
    assert f"TypeError: {error.message} (at {error.location})" in outcome.reason


@pytest.mark.slow
async def test_a11y_reason_names_rules_and_the_offending_nodes(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check("/a11y.html", expect=[{"type": "a11y", "min_impact": "critical"}])
    outcome = await run(pool, check, tmp_path, base_url)
    image = next(v for v in outcome.a11y_violations if v.id == "image-alt")
    assert image.targets and all(t for t in image.targets)
    assert f"image-alt (critical, 1 node: {image.targets[0]})" in outcome.reason


@pytest.mark.slow
async def test_a_failing_check_keeps_a_playwright_trace(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/todos.html",
        steps=add("a"),
        expect=[{"type": "count", "selector": ".todo-list li", "equals": 2, "timeout_s": 0.3}],
    )
    outcome = await run(pool, check, tmp_path, base_url, name="AC-F-001")
    assert outcome.trace == str(tmp_path / "AC-F-001.trace.zip")
    with zipfile.ZipFile(outcome.trace) as trace:
        names = trace.namelist()
        assert "trace.trace" in names and "trace.network" in names
        events = trace.read("trace.trace").decode("utf-8")
    # Steps and expectations are grouped under the reason's numbering.
    assert "step 2: press" in events and "expectation 1: count" in events
    assert "trace" in outcome.summary()


@pytest.mark.slow
async def test_duration_counts_the_checks_own_time_not_the_wait_for_a_page(
    base_url: str, tmp_path: Path
) -> None:
    slow = browser_check(
        "/todos.html", expect=[{"type": "visible", "selector": "#never", "timeout_s": 1}]
    )
    outcomes: list[tuple[BrowserOutcome, float]] = []

    async def one(name: str) -> None:
        started = time.monotonic()
        outcome = await run(shared, slow, tmp_path, base_url, name=name)
        outcomes.append((outcome, time.monotonic() - started))

    async with BrowserPool(CHROMIUM, max_pages=1) as shared, anyio.create_task_group() as tg:
        for name in ("E1", "E2"):
            tg.start_soon(one, name)
    later, wall = max(outcomes, key=lambda o: o[0].queued_s)
    assert later.queued_s >= 1
    # What the caller waited is the queue and the check together; the check's duration is the
    # rest (a duration that held the queue too would be about the whole wait).
    assert later.duration_s <= wall - later.queued_s + 0.25
    assert all(o.duration_s >= 1 for o, _ in outcomes)


@pytest.mark.slow
async def test_setup_steps_run_first_and_are_numbered_apart(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    setup = BrowserCheck.model_validate(
        {"kind": "browser", "url": "/", "steps": [{"action": "goto", "url": "/todos.html"}]}
    ).steps
    check = browser_check(
        "/form.html",
        steps=[{"action": "click", "selector": "#nothing-here", "timeout_s": 0.3}],
    )
    outcome = await run(pool, check, tmp_path, base_url, setup=setup)
    assert [s.label for s in outcome.steps] == ["setup step 1", "opening the page", "step 1"]
    assert outcome.reason.startswith("step 1 (click #nothing-here) failed")


def test_ux_counts_only_a11y_violations_at_or_above_the_checks_min_impact() -> None:
    outcome = BrowserOutcome(
        status="fail",
        passed=False,
        reason="r",
        a11y_violations=[
            A11yViolation(id="region", impact="moderate", nodes=3),
            A11yViolation(id="label", impact="critical", nodes=1),
        ],
    )
    serious = browser_check("/", expect=[{"type": "a11y", "min_impact": "serious"}])
    moderate = browser_check("/", expect=[{"type": "a11y", "min_impact": "moderate"}])
    assert counts(outcome, serious)["a11y_violations"] == 1
    assert counts(outcome, moderate)["a11y_violations"] == 2
