"""Criteria that ask for the very same run of a tests check share it: one run of the suite, cited
by each; a criterion's own demands (a coverage minimum, fail-before) still judge it alone. A
hidden (hold-out) criterion never shares a run with a visible one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import Client
from mcp_calls import call
from projects import SAMPLE_ENV, calc_repo, pytest_check

from referee.server.app import build_server
from referee.server.cli import main
from referee.tools.settings import Settings

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


def _criteria(*checks: dict[str, Any], holdout: bool = False) -> list[dict[str, Any]]:
    found = [
        {"criterion": f"the tests pass ({n})", "verification_method": "test", "check": check}
        for n, check in enumerate(checks, 1)
    ]
    if holdout:
        found[-1]["holdout"] = True
    return found


def _contract(criteria: list[dict[str, Any]]) -> dict[str, Any]:
    return {"goal": "Keep adding.", "out_of_scope": ["ui"], "functional": criteria}


def _tests_runs(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in result["evidence"] if e["tool"] == "tests"]


async def test_two_criteria_with_one_command_run_the_suite_once(tmp_path: Path) -> None:
    repo = calc_repo(tmp_path / "calc")
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n", encoding="utf-8")
    checks = (pytest_check("tests"), pytest_check("tests", min_diff_coverage=100))
    async with Client(build_server(Settings.build([repo], env=dict(SAMPLE_ENV)))) as agent:
        made = await call(agent, "create_contract", **_contract(_criteria(*checks)))
        result = await call(agent, "evaluate", contract_id=made["contract"]["id"])
    first, second = result["criteria"]
    assert first["status"] == second["status"] == "pass", result["criteria"]
    assert len(_tests_runs(result)) == 1, _tests_runs(result)
    assert first["evidence_ids"][0] == second["evidence_ids"][0]
    # The second criterion still judges its own minimum on the shared run.
    assert second["adequacy"]["diff_coverage"]["percent"] == 100, second


async def test_a_hidden_criterion_runs_its_own_suite(tmp_path: Path) -> None:
    repo = calc_repo(tmp_path / "calc")
    checks = (pytest_check("tests"), pytest_check("tests"))
    async with Client(build_server(Settings.build([repo], env=dict(SAMPLE_ENV)))) as agent:
        made = await call(agent, "create_contract", **_contract(_criteria(*checks, holdout=True)))
        result = await call(agent, "evaluate", contract_id=made["contract"]["id"])
    assert len(_tests_runs(result)) == 2, _tests_runs(result)


def test_different_commands_are_not_shared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = calc_repo(tmp_path / "calc")
    checks = (pytest_check("tests"), pytest_check("tests", timeout_s=300))
    spec = tmp_path / "contract.yaml"
    spec.write_text(yaml.safe_dump(_contract(_criteria(*checks))), encoding="utf-8")
    home = ["--root", str(repo)]
    assert main([*home, "contract", "create", str(spec), "--json"]) == 0
    cid = json.loads(capsys.readouterr().out)["contract"]["id"]
    assert main([*home, "evaluate", cid, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert len(_tests_runs(result)) == 2, _tests_runs(result)
