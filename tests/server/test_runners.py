"""Every test runner, written as its users write the check, through the CLI and over MCP.

Each runner's tiny project (tests/runner_projects.py) has a passing suite, a suite with one
failing test and one that runs none; one of the passing tests is skipped after the contract was
written. The result must give per-test evidence and the right verdict for each.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from gitrepo import make_repo
from mcp import Client
from runner_projects import GITIGNORE, PROJECTS, PYTEST, RunnerProject, tool_path

from referee.server.app import build_server
from referee.server.cli import main
from referee.tools.settings import Settings
from referee.tools.store import Store, load_run

pytestmark = pytest.mark.slow


def _project(tmp_path: Path, project: RunnerProject) -> Path:
    if missing := project.missing():
        pytest.skip(f"{project.name} needs {', '.join(missing)}")
    root = tmp_path / "project"
    root.mkdir()
    project.write(root)
    return make_repo(root, {".gitignore": GITIGNORE + "Cargo.lock\n"})


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


def _check_result(project: RunnerProject, result: dict[str, Any]) -> None:
    passing, failing, empty = result["criteria"]
    assert passing["status"] == "pass", passing["reason"]
    assert "1 passed" in passing["reason"]
    assert failing["status"] == "fail" and project.failing_id in failing["reason"], failing
    assert empty["status"] == "fail", empty["reason"]
    assert empty["pass"] is False
    if project is not PYTEST:
        assert "no test ran" in empty["reason"] or "1 errors" in empty["reason"], empty


def _check_evidence(project: RunnerProject, root: Path, run_id: str, evidence_id: str) -> None:
    item = load_run(Store(root / ".referee"), run_id).evidence[evidence_id]
    names = {t.name: t.outcome for t in item.tests}
    assert names.get(project.failing_id) == "failed", names
    assert list(names.values()).count("passed") == 1


def _check_tampering(project: RunnerProject, result: dict[str, Any]) -> None:
    if project.name == "phpunit":  # PHP tampering is not read (no PHP grammar); the run shows it
        return
    found = [a for a in result["antipatterns"] if a["id"] == "test_skipped"]
    assert found, result["antipatterns"]
    file = f"pass/{project.skip_edit[0]}:"
    assert found[0]["location"].startswith(file), found


@pytest.fixture(autouse=True)
def _runner_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # cargo-nextest is installed from PyPI next to this interpreter.
    monkeypatch.setenv("PATH", tool_path())


def _contract_file(root: Path, project: RunnerProject) -> Path:
    spec = {
        "goal": f"{project.name} suites",
        "out_of_scope": ["x"],
        "functional": project.criteria(),
    }
    path = root.parent / "contract.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return path


@pytest.mark.parametrize("project", PROJECTS, ids=[p.name for p in PROJECTS])
def test_each_runner_gives_per_test_verdicts_through_the_cli(
    tmp_path: Path, project: RunnerProject
) -> None:
    root = _project(tmp_path, project)
    code, text = _cli(
        "--root", str(root), "contract", "create", str(_contract_file(root, project)), "--json"
    )
    assert code == 0, text
    contract_id = json.loads(text)["contract"]["id"]
    project.apply_skip(root)
    code, text = _cli("--root", str(root), "evaluate", contract_id, "--json")
    result = json.loads(text)
    assert code == 1  # a failing criterion and a skipped test
    _check_result(project, result)
    _check_tampering(project, result)
    _check_evidence(project, root, result["run_id"], result["criteria"][1]["evidence_ids"][0])
    assert result["tree_changed"]["changed"] is False, result["tree_changed"]


@pytest.mark.anyio
@pytest.mark.parametrize("project", PROJECTS, ids=[p.name for p in PROJECTS])
async def test_each_runner_gives_per_test_verdicts_over_mcp(
    tmp_path: Path, project: RunnerProject
) -> None:
    root = _project(tmp_path, project)
    async with Client(build_server(Settings.build([root]))) as client:
        created = await client.call_tool(
            "create_contract",
            {
                "goal": f"{project.name} suites",
                "out_of_scope": ["x"],
                "functional": project.criteria(),
            },
        )
        assert not created.is_error, created.content
        contract_id = created.structured_content["contract"]["id"]
        project.apply_skip(root)
        evaluated = await client.call_tool("evaluate", {"contract_id": contract_id})
    assert not evaluated.is_error, evaluated.content
    _check_result(project, evaluated.structured_content)
    _check_tampering(project, evaluated.structured_content)
