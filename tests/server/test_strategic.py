"""Strategic scope: direction read from the stored history, without running a check, over MCP,
on the command line and in the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from loops import create, loop
from mcp import Client
from projects import SAMPLE_ENV, calc_repo

from referee.server.app import build_server
from referee.server.cli import main
from referee.tools.settings import Settings

pytestmark = pytest.mark.anyio


async def strategic(client: Client, cid: str) -> dict:
    result = await client.call_tool("evaluate", {"contract_id": cid, "scope": "strategic"})
    assert result.is_error is False, result.content
    return result.structured_content


async def test_strategic_scope_reads_trends_risks_and_priorities_without_running_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = calc_repo(tmp_path / "calc")
    async with Client(build_server(Settings.build([repo], env=dict(SAMPLE_ENV)))) as client:
        cid, _, _ = await loop(client, repo)
        (repo / "src" / "calc.py").write_text("changed after the loop\n", encoding="utf-8")
        first = await strategic(client, cid)
        again = await strategic(client, cid)
        text = await client.call_tool("evaluate", {"contract_id": cid, "scope": "strategic"})
        report = (await client.read_resource(f"report://{cid}")).contents[0].text

    assert first["scope"] == "strategic" and first["iterations"] == [1, 2, 3]
    assert first["evaluations"] == again["evaluations"] == 3  # nothing ran
    trends = {t["dimension"]: t for t in first["trends"]}
    design = trends["design_quality"]
    assert design["values"] == [1, 2, 1] and design["direction"] == "declining"
    assert design["high_water"] == 2 and design["high_water_iteration"] == 2
    risks = {r["dimension"]: r for r in first["regression_risks"]}
    assert risks["design_quality"]["iteration"] == 3 and risks["design_quality"]["score"] == 1
    assert "security" not in risks  # at 1 throughout: low, but it did not fall
    priorities = first["priorities"]
    assert [p["priority"] for p in priorities] == sorted(
        (p["priority"] for p in priorities), reverse=True
    )
    security = next(p for p in priorities if p["dimension"] == "security")
    assert security["priority"] == pytest.approx((1 - 1 / 3) * 0.10 * 0.6, abs=1e-4)
    assert all(p["recommendation"] and p["evidence"] for p in priorities)
    assert (
        "regression risks" in text.content[0].text and "no checks were run" in text.content[0].text
    )
    assert "## Strategic direction" in report and "Regression risk: design_quality" in report

    capsys.readouterr()
    assert main(["--root", str(repo), "evaluate", cid, "--scope", "strategic"]) == 0
    out = capsys.readouterr().out
    assert (
        "regression risks:" in out and "design_quality" in out and "improvement priorities" in out
    )
    assert main(["--root", str(repo), "evaluate", cid, "--scope", "strategic", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["regression_risks"] == first["regression_risks"]


async def test_a_dimension_at_the_top_for_three_evaluations_is_saturated(tmp_path: Path) -> None:
    repo = calc_repo(tmp_path / "calc")
    async with Client(build_server(Settings.build([repo], env=dict(SAMPLE_ENV)))) as client:
        cid, _, _ = await loop(client, repo, scores={1: 3, 2: 3, 3: 3})
        result = await strategic(client, cid)
    saturated = {s["dimension"]: s for s in result["saturation"]}
    assert saturated["design_quality"]["evaluations"] == 3
    assert "security" not in saturated and result["regression_risks"] == []


async def test_strategic_scope_of_an_unknown_contract_is_a_tool_error(tmp_path: Path) -> None:
    repo = calc_repo(tmp_path / "calc")
    async with Client(build_server(Settings.build([repo], env=dict(SAMPLE_ENV)))) as client:
        result = await client.call_tool(
            "evaluate", {"contract_id": "SC-ghost-20260101", "scope": "strategic"}
        )
    assert result.is_error is True and "SC-ghost-20260101" in result.content[0].text


async def test_a_contract_without_history_says_there_is_nothing_to_read(tmp_path: Path) -> None:
    repo = calc_repo(tmp_path / "calc")
    async with Client(build_server(Settings.build([repo], env=dict(SAMPLE_ENV)))) as client:
        cid = await create(client)
        result = await client.call_tool("evaluate", {"contract_id": cid, "scope": "strategic"})
    assessment = result.structured_content
    assert assessment["iterations"] == [] and assessment["priorities"] == []
    assert all(t["direction"] == "unknown" for t in assessment["trends"])
    assert "nothing is stored" in result.content[0].text
