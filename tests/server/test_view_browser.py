"""`referee view` in a real Chromium: a person's flows through the running app and through a
bundle opened from disk, keyboard only where it matters, axe on every main page. The screenshots
in docs/images/ (shown by docs/view.md) are taken here."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from browsers import needs_browser
from playwright.async_api import Page, expect
from viewed import Viewed, browser_run, filled_view

from referee.server.view import ViewServer
from referee.tools.browser import BrowserPool, find_chromium
from referee.tools.browser.expectations import run_axe
from referee.tools.evaluate.progress import live_progress
from referee.tools.store.calibration import calibration_rows
from referee.tools.view import write_bundle

pytestmark = [*needs_browser, pytest.mark.anyio, pytest.mark.slow]

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
SERIOUS = ("serious", "critical")


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def viewed(tmp_path_factory: pytest.TempPathFactory, data_home: Path) -> Iterator[Viewed]:
    yield from filled_view(tmp_path_factory, data_home)


@pytest.fixture(scope="module")
def app(viewed: Viewed) -> Iterator[str]:
    server = ViewServer(viewed.store, "127.0.0.1", 0)
    server.start()
    yield server.url
    server.close()


@pytest.fixture
async def page(anyio_backend: str) -> AsyncIterator[Page]:
    async with (
        BrowserPool(find_chromium()) as pool,
        # axe is injected as a script, which the viewer's policy (no script at all) refuses.
        pool.context(bypass_csp=True) as ctx,
    ):
        yield await ctx.new_page()


async def _no_serious_violation(page: Page) -> None:
    found = [(v.id, v.impact, v.targets) for v in await run_axe(page) if v.impact in SERIOUS]
    assert found == [], page.url


async def _shot(page: Page, name: str) -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(IMAGES / name), full_page=True)


async def test_open_a_contract_and_follow_a_failing_criterion_to_its_log_line(
    page: Page, app: str, viewed: Viewed
) -> None:
    await page.goto(app)
    await _no_serious_violation(page)
    await _shot(page, "view-contracts.png")
    await page.get_by_role("link", name=viewed.contract_id).click()
    await expect(page.get_by_role("heading", name="Iterations × evaluators")).to_be_visible()
    await expect(page.get_by_text("referee checkout")).to_be_visible()
    await _no_serious_violation(page)
    await _shot(page, "view-contract.png")
    await page.get_by_role("link", name=viewed.runs[1]).click()
    row = page.get_by_role("row").filter(has_text="AC-F-001")
    await row.get_by_role("link", name="log line").click()
    assert re.search(r"#E\d+-L\d+$", page.url)
    target = page.locator(":target")
    await expect(target).to_contain_text("test_sums_three")
    await expect(target).to_be_in_viewport()
    await _no_serious_violation(page)
    await _shot(page, "view-run.png")


async def test_record_a_human_verdict_and_see_it_in_the_calibration_figure(
    page: Page, app: str, viewed: Viewed
) -> None:
    card = viewed.cards[1]
    await page.goto(app + f"contract-{viewed.contract_id}.html")
    await page.get_by_role("link", name=re.compile("BLOCK")).click()
    await expect(page.get_by_role("row", name=re.compile("craft \\(override\\)"))).to_be_visible()
    await _no_serious_violation(page)
    await page.get_by_label("I disagree").check()
    await page.get_by_label("The verdict should be").select_option("REVISE")
    await page.get_by_label(re.compile("^Note")).fill("the failing test was a typo")
    await page.get_by_role("button", name="Record verdict").click()
    await expect(page.get_by_role("status")).to_contain_text("Recorded REVISE")
    await expect(page.get_by_role("cell", name="the failing test was a typo")).to_be_visible()
    await _shot(page, "view-scorecard.png")
    rows = [r for r in calibration_rows(viewed.store) if r.scorecard_id == card]
    assert rows[-1].verdict == "REVISE" and rows[-1].note == "the failing test was a typo"
    await page.get_by_role("link", name="Calibration").click()
    figure = page.locator("#calibration-figure")
    await expect(figure).to_contain_text("evaluator")
    await expect(figure).to_contain_text("0%")
    await _no_serious_violation(page)
    await _shot(page, "view-calibration.png")


async def test_compare_two_iterations(page: Page, app: str, viewed: Viewed) -> None:
    await page.goto(app + f"contract-{viewed.contract_id}.html")
    await page.get_by_role("link", name="iteration 1 → iteration 2").click()
    changed = page.get_by_role("row", name=re.compile("AC-F-001 \\(changed\\)"))
    await expect(changed).to_contain_text("fail")
    await expect(changed).to_contain_text("pass")
    await _no_serious_violation(page)
    await _shot(page, "view-compare.png")


async def test_an_evaluation_in_progress_shows_on_its_contract_and_live(
    page: Page, app: str, viewed: Viewed
) -> None:
    with live_progress(viewed.store.home, viewed.contract_id, "evaluator", _now) as live:
        await live.relay(None)(2, 4, "AC-F-001")
        await page.goto(app + f"contract-{viewed.contract_id}.html")
        await expect(page.get_by_role("heading", name=re.compile("Running now"))).to_be_visible()
        await page.get_by_role("link", name="watch live").click()
        await expect(page.get_by_role("listitem").first).to_contain_text("2 of 4 · AC-F-001")
        await _no_serious_violation(page)
        await live.relay(None)(3, 4, "static")
        await page.get_by_role("link", name="refresh every 2 seconds").click()
        await expect(page.get_by_role("listitem").first).to_contain_text("3 of 4 · static")
        await live.relay(None)(4, 4, "tampering")  # the page reloads itself
        await expect(page.get_by_role("listitem").first).to_contain_text("4 of 4", timeout=15000)
    await page.goto(app + "live.html")
    await expect(page.get_by_text("no evaluation is running")).to_be_visible()


async def test_the_app_is_keyboard_navigable(page: Page, app: str, viewed: Viewed) -> None:
    await page.goto(app)
    for _ in range(30):  # site links, the filters (a date input is 3 stops), the contracts
        await page.keyboard.press("Tab")
        focused = await page.evaluate("document.activeElement.textContent")
        if focused == viewed.contract_id:
            break
    await page.keyboard.press("Enter")
    await expect(page).to_have_url(re.compile(f"contract-{viewed.contract_id}"))


async def test_a_bundle_opened_from_disk_works(page: Page, viewed: Viewed, tmp_path: Path) -> None:
    written = write_bundle(viewed.store, tmp_path / "site", "evaluator")
    await page.goto(written[0].as_uri())
    await page.get_by_role("link", name=viewed.contract_id).click()
    await expect(page.get_by_role("heading", name="Iterations × evaluators")).to_be_visible()
    await page.get_by_role("link", name=viewed.runs[1]).click()
    await page.get_by_role("link", name="log line").first.click()
    await expect(page.locator(":target")).to_contain_text("test_sums_three")
    assert page.url.startswith("file://")
    await _no_serious_violation(page)


def _now() -> datetime:
    return datetime.now(UTC)


async def test_a_failing_checks_trace_opens_in_playwrights_trace_viewer(
    app: str, viewed: Viewed, tmp_path: Path
) -> None:
    trace = tmp_path / "AC-F-001.trace.zip"
    async with BrowserPool(find_chromium()) as pool:
        # A trace as a failing check keeps one (no DOM snapshots), of a click on "Save".
        async with pool.context() as recording:
            await recording.tracing.start(snapshots=False)
            shown = await recording.new_page()
            await shown.set_content("<button onclick=\"this.textContent='Saving'\">Save</button>")
            await shown.get_by_role("button", name="Save").click()
            await recording.tracing.stop(path=trace)
        run_id = browser_run(viewed.store, viewed.runs[2], tmp_path, trace=trace)
        # The viewer's own policy is enforced here (no bypass): its scripts and worker must run.
        async with pool.context() as ctx:
            page = await ctx.new_page()
            await page.goto(app + f"run-{run_id}.html")
            await page.get_by_role("link", name="open the trace of AC-F-001").click()
            await expect(page).to_have_title("Playwright Trace Viewer")
            await expect(page.get_by_text(re.compile("Click")).first).to_be_visible(timeout=30_000)
            called = page.get_by_text(re.compile("get_by_role|getByRole")).first
            await expect(called).to_be_visible()
            await _shot(page, "view-trace.png")


async def test_read_a_runs_change_then_compare_it_with_the_previous_run(
    page: Page, app: str, viewed: Viewed
) -> None:
    await page.goto(app + f"run-{viewed.runs[2]}.html")
    unrun = page.locator("table.diff tr.add.m-uncovered")
    await expect(unrun).to_contain_text("return -1")
    await expect(unrun).to_contain_text("not executed")
    await expect(page.get_by_text("not executed by AC-F-001's tests")).to_be_visible()
    await _no_serious_violation(page)
    await page.locator("table.diff").first.screenshot(path=str(IMAGES / "view-change.png"))
    await page.get_by_role("link", name=f"compare with run {viewed.runs[1]}").click()
    changed = page.get_by_role("row", name=re.compile("AC-F-001 \\(changed\\)"))
    await expect(changed).to_contain_text("fail")
    await expect(changed).to_contain_text("pass")
    await _no_serious_violation(page)
