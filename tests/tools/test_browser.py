"""Browser checks against real pages in a real Chromium (skipped, with a reason, when none is
found)."""

from __future__ import annotations

import functools
import http.server
import os
import signal
import stat
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

import anyio
import pytest

from referee.tools.browser.check import run_browser_check
from referee.tools.browser.chromium import (
    ChromiumNotFound,
    clear_cache,
    find_chromium,
    playwright_version,
)
from referee.tools.browser.outcome import BrowserOutcome
from referee.tools.browser.pool import BrowserPool, resolver_rules
from referee.tools.models.checks import BrowserCheck

try:
    CHROMIUM = find_chromium()
except ChromiumNotFound as exc:
    pytest.skip(f"no Chromium to drive ({exc})", allow_module_level=True)

pytestmark = [pytest.mark.anyio, pytest.mark.browser]
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "browser"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class _FixtureHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/redirect-out":
            self.send_response(302)
            self.send_header("Location", "http://203.0.113.9/pixel.gif")
            self.end_headers()
            return
        super().do_GET()


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    handler = functools.partial(_FixtureHandler, directory=str(FIXTURES))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


@pytest.fixture(scope="module")
async def pool(anyio_backend: str) -> AsyncIterator[BrowserPool]:
    async with BrowserPool(CHROMIUM) as shared:
        yield shared


def browser_check(
    url: str,
    steps: list[dict[str, Any]] | None = None,
    expect: list[dict[str, Any]] | None = None,
    timeout_s: float = 20,
) -> BrowserCheck:
    return BrowserCheck.model_validate(
        {
            "kind": "browser",
            "url": url,
            "steps": steps or [],
            "expect": expect or [],
            "timeout_s": timeout_s,
        }
    )


async def run(
    pool: BrowserPool, check: BrowserCheck, out: Path, base: str | None, **kw: Any
) -> BrowserOutcome:
    return await run_browser_check(
        pool, check, base_url=base, artifacts_dir=out, name=kw.pop("name", "E1"), **kw
    )


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


async def test_missing_selector_fails_its_step_stops_the_rest_and_still_judges(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/button.html",
        steps=[{"action": "click", "selector": "#missing"}, {"action": "click", "selector": "#go"}],
        expect=[
            {"type": "visible", "text": "Clicked"},
            {"type": "title_contains", "value": "Button"},
        ],
        timeout_s=4,
    )
    outcome = await run(pool, check, tmp_path, base_url)
    assert outcome.status == "fail" and outcome.passed is False
    assert [(s.action, s.target, s.ok) for s in outcome.steps] == [
        ("goto", base_url + "button.html", True),
        ("click", "#missing", False),
    ]
    assert "#missing" in outcome.steps[1].error and "Timeout" in outcome.steps[1].error
    assert outcome.reason.startswith("step 2 (click #missing) failed")
    assert [e.ok for e in outcome.expectations] == [False, True]
    assert outcome.screenshot and Path(outcome.screenshot).is_file()


async def test_throwing_page_fails_no_console_errors(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check("/throws.html", expect=[{"type": "no_console_errors"}])
    outcome = await run(pool, check, tmp_path, base_url)
    assert outcome.status == "fail"
    assert outcome.page_errors == ["ReferenceError: notDefinedAnywhere is not defined"]
    assert outcome.console_errors == ["something went wrong"]
    assert "1 page error" in outcome.expectations[0].detail


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
    assert "2 violation(s) at or above critical" in outcome.expectations[0].detail


async def test_a11y_runs_on_a_page_whose_csp_forbids_injected_scripts(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    check = browser_check(
        "/csp.html", expect=[{"type": "a11y", "max_violations": 0, "min_impact": "critical"}]
    )
    outcome = await run(pool, check, tmp_path, base_url)
    assert outcome.status == "fail"
    assert [v.id for v in outcome.a11y_violations if v.impact == "critical"] == ["image-alt"]


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
    assert outcome.reason == "timed out after 4 s"
    assert outcome.steps[-1].error == "interrupted: the check timed out"
    assert all(s.ok for s in outcome.steps[:-1])
    assert outcome.expectations[0].detail == "not evaluated: the check timed out"
    assert 4 <= outcome.duration_s < 4 + 10  # + the capture's own bound
    assert outcome.screenshot and Path(outcome.screenshot).is_file()


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
