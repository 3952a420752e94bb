"""`referee report`: Markdown on stdout, a self-contained HTML file, JSON; exit 2 for unknown
ids."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from browsers import NO_BROWSER
from playwright.sync_api import sync_playwright
from projects import sample_evaluated

from referee.server import cli
from referee.tools.browser.chromium import find_chromium
from referee.tools.settings import Settings


@pytest.fixture
def evaluated(repo: Path, settings: Settings) -> tuple[str, str]:
    return anyio.run(sample_evaluated, repo, settings)


def run(repo: Path, *args: str) -> int:
    return cli.main(["--root", str(repo), "report", *args])


def test_report_prints_markdown(
    repo: Path, evaluated: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    contract_id, run_id = evaluated
    assert run(repo, contract_id) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"# referee report: {contract_id}") and "## Evidence index" in out
    assert run(repo, run_id) == 0
    assert capsys.readouterr().out.startswith(f"# referee report: run {run_id}")


def test_report_writes_a_self_contained_html_page(
    repo: Path, tmp_path: Path, evaluated: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out" / "report.html"
    assert run(repo, evaluated[0], "--html", str(target)) == 0
    assert capsys.readouterr().out.strip() == str(target.resolve())
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<h2>Improvement priorities</h2>" in page


def test_report_json_has_every_section(
    repo: Path, evaluated: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(repo, evaluated[1], "--json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["subject"] == evaluated[1]
    assert {
        "dimensions",
        "findings",
        "priorities",
        "gaming",
        "criteria",
        "trends",
        "evidence",
    } <= set(doc)


@pytest.mark.parametrize(
    "report_id", ["SC-missing-20260101", "R20260101000000-nothing", "nonsense"]
)
def test_an_unknown_id_exits_2(
    repo: Path, report_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(repo, report_id) == 2
    assert report_id in capsys.readouterr().err


def test_html_and_json_together_are_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        run(repo, "SC-x-20260101", "--html", "a.html", "--json")
    assert caught.value.code == 2


@pytest.fixture
def failed(repo: Path, settings: Settings) -> str:
    failing = "def test_adds():\n    assert 1 + 1 == 3, '<b>expected</b> 3'\n"
    return anyio.run(sample_evaluated, repo, settings, failing)[0]


def test_a_failing_run_reads_failure_first_without_machine_paths(
    repo: Path, failed: str, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(repo, failed) == 0
    page = capsys.readouterr().out
    assert page.splitlines()[2].startswith("> **NONE** · no aggregate stored yet")
    what_failed = page[page.index("## What failed") : page.index("## Dimension scores")]
    assert "AC-F-001 — fail" in what_failed and "test_sample.py::test_adds" in what_failed
    assert "Check: `python -m pytest -q test_sample.py`" in what_failed
    for machine in (str(repo), str(settings.home), sys.prefix):
        assert machine not in page


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.skipif(NO_BROWSER is not None, reason=f"no Chromium: {NO_BROWSER}")
def test_the_html_page_opens_in_chromium_on_its_verdict_and_its_contents_lead_to_the_sections(
    repo: Path, tmp_path: Path, failed: str
) -> None:
    target = tmp_path / "report.html"
    assert run(repo, failed, "--html", str(target)) == 0
    info = find_chromium()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=None if info.source == "playwright" else info.executable
        )
        page = browser.new_page()
        page.goto(target.resolve().as_uri())
        badge = page.locator(".badge")
        assert badge.inner_text().startswith("NONE")
        assert page.locator("h1, .badge, nav, h2").first.inner_text().startswith("referee report")
        page.get_by_role("link", name="What failed").click()
        assert page.url.endswith("#what-failed")
        heading = page.get_by_role("heading", name="What failed")
        assert heading.is_visible() and heading.bounding_box() is not None
        assert page.locator("#what-failed").get_by_text("test_sample.py::test_adds").count() >= 1
        browser.close()
