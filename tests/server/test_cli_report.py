"""`referee report`: Markdown on stdout, a self-contained HTML file, JSON; exit 2 for unknown
ids."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import anyio
import pytest
from projects import contract_for, pytest_check

from referee.server import cli
from referee.tools.evaluate.entry import EvaluateDeps, EvaluateInput, evaluate
from referee.tools.settings import Settings
from referee.tools.store import Store


@pytest.fixture
def evaluated(repo: Path, settings: Settings) -> tuple[str, str]:
    (repo / "test_sample.py").write_text(
        "def test_adds():\n    assert 1 + 1 == 2\n", encoding="utf-8"
    )
    store = Store(settings.home)
    contract = contract_for(
        store,
        repo,
        {
            "criterion": "adds",
            "verification_method": "test",
            "check": pytest_check("test_sample.py"),
        },
    )
    deps = EvaluateDeps(store=store, settings=settings, now=lambda: datetime.now(UTC))
    result = anyio.run(evaluate, EvaluateInput(contract_id=contract.id), deps)
    store.close()
    return contract.id, result.run_id


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
