"""Hold-outs the generator cannot see: kept in referee's vault, laid over the tree for their own
criterion only, never in the generator's tree, views or brief."""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from holdout_attacks import HOLDOUT_TEXT, holdout_contract
from mcp import Client
from mcp_calls import call
from projects import calc_repo, commit_all, pytest_check
from runs import judged

from referee.server.app import build_server
from referee.server.cli import main as cli
from referee.tools.settings import Settings

pytestmark = pytest.mark.anyio

SECRET_TEST = (
    "import os, sys\n"
    "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'src'))\n"
    "from calc import add\n\n"
    "def test_adds_large_numbers_exactly():\n    assert add(10**20, 1) == 10**20 + 1\n"
)
# A visible test that hunts for the hold-out everywhere the code under test might look.
SNOOP = """
import glob, os

def test_snoop():
    hits = []
    roots = [os.environ.get("XDG_DATA_HOME", ""), os.path.expanduser("~"), "/tmp", *{roots!r}]
    for root in filter(None, roots):
        hits += glob.glob(os.path.join(root, "**", "test_secret*.py"), recursive=True)
    assert hits == [], hits
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return calc_repo(tmp_path / "calc")


async def refused(agent: Client, tool: str, **arguments: Any) -> set[str]:
    result = await agent.call_tool(tool, arguments)
    assert result.is_error is True
    text = result.content[0].text  # type: ignore[union-attr]
    return {p["code"] for p in json.loads(text)["problems"]}


async def created(agent: Client) -> str:
    made = await call(agent, "create_contract", **holdout_contract())
    return str(made["contract"]["id"])


async def evaluated_with_float_bug(agent: Client, project: Path) -> tuple[str, dict[str, Any]]:
    """The hold-out stored inline, then a change it catches (floats lose large integers)."""
    cid = await created(agent)
    await call(
        agent,
        "add_holdout_files",
        contract_id=cid,
        files=[{"path": "tests/test_secret_exact.py", "content": SECRET_TEST}],
    )
    (project / "src" / "calc.py").write_text(
        "def add(a, b):\n    return int(float(a) + float(b))\n"
    )
    return cid, await call(agent, "evaluate", contract_id=cid)


def every_file_text(folder: Path) -> str:
    return "\n".join(
        p.read_bytes().decode("utf-8", "replace") for p in folder.rglob("*") if p.is_file()
    )


async def test_a_holdout_given_inline_runs_for_its_criterion_and_is_nowhere_in_the_repository(
    agent: Client, project: Path
) -> None:
    cid = await created(agent)
    added = await call(
        agent,
        "add_holdout_files",
        contract_id=cid,
        files=[{"path": "tests/test_secret_exact.py", "content": SECRET_TEST}],
    )
    assert [f["path"] for f in added["files"]] == ["tests/test_secret_exact.py"]
    assert added["warnings"] == [] and added["stored"] == 1
    evaluation = await call(agent, "evaluate", contract_id=cid)
    status = {c["id"]: c["status"] for c in evaluation["criteria"]}
    assert status == {"AC-F-001": "pass", "AC-F-002": "pass"}, evaluation["criteria"]
    # The visible suite ran without it: only the hold-out criterion sees the file.
    visible = evaluation["criteria"][0]["reason"]
    assert visible.startswith("2 passed"), visible
    assert not (project / "tests" / "test_secret_exact.py").exists()
    assert "10**20" not in every_file_text(project)
    view = await agent.read_resource(f"contract://{cid}/generator")
    generator_text = view.contents[0].text  # type: ignore[union-attr]
    assert "test_secret" not in generator_text and HOLDOUT_TEXT not in generator_text


async def test_the_holdout_catches_the_bug_the_visible_tests_miss(
    agent: Client, project: Path
) -> None:
    _cid, evaluation = await evaluated_with_float_bug(agent, project)
    status = {c["id"]: c["status"] for c in evaluation["criteria"]}
    assert status == {"AC-F-001": "pass", "AC-F-002": "fail"}
    # pytest quotes the failing test in its output: that output is sealed outside the repository,
    # yet the evaluator still reads it in full.
    assert "10**20" not in every_file_text(project)
    hidden = evaluation["criteria"][1]["evidence_ids"][0]
    item = await agent.read_resource(f"evidence://{evaluation['run_id']}/{hidden}")
    assert "10**20" in item.contents[0].text  # type: ignore[union-attr]


@pytest.fixture
def vault_outside_tmp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    # /tmp is a fresh tmpfs in the sandbox anyway: a vault there would prove nothing.
    folder = Path.home() / ".cache" / f"referee-test-holdouts-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("REFEREE_HOLDOUTS", str(folder))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


async def test_code_under_test_cannot_find_the_vault(
    project: Path, vault_outside_tmp: Path
) -> None:
    async with Client(build_server(Settings.build([project]))) as agent:
        cid = await created(agent)
        await call(
            agent,
            "add_holdout_files",
            contract_id=cid,
            files=[{"path": "tests/test_secret_exact.py", "content": SECRET_TEST}],
        )
        assert list(vault_outside_tmp.rglob("test_secret_exact.py"))  # there, outside the sandbox
        roots = [str(vault_outside_tmp), str(Path.home() / ".cache"), str(project.parent)]
        (project / "tests" / "test_snoop.py").write_text(SNOOP.format(roots=roots))
        evaluation = await call(agent, "evaluate", contract_id=cid)
    first = evaluation["criteria"][0]
    assert first["status"] == "pass" and first["reason"].startswith("3 passed"), first["reason"]


async def test_bad_holdout_requests_name_their_field(agent: Client, project: Path) -> None:
    cid = await created(agent)
    assert "not_a_holdout" in await refused(
        agent,
        "add_holdout_files",
        contract_id=cid,
        criterion="AC-F-001",
        files=[{"path": "tests/t.py", "content": "x"}],
    )
    assert "bad_tree_path" in await refused(
        agent,
        "add_holdout_files",
        contract_id=cid,
        files=[{"path": "../outside.py", "content": "x"}],
    )
    assert "path_outside_roots" in await refused(
        agent, "add_holdout_files", contract_id=cid, paths=["/etc/hostname"]
    )
    plain = await call(
        agent,
        "create_contract",
        goal="No hold-out here.",
        out_of_scope=["ui"],
        functional=[
            {"criterion": "tests", "verification_method": "test", "check": pytest_check("tests")}
        ],
    )
    assert "no_holdout_criterion" in await refused(
        agent,
        "add_holdout_files",
        contract_id=plain["contract"]["id"],
        files=[{"path": "tests/t.py", "content": "x"}],
    )


async def test_an_issue_that_reveals_the_holdout_never_reaches_the_brief(
    agent: Client, project: Path
) -> None:
    cid, evaluation = await evaluated_with_float_bug(agent, project)
    hidden_ids = evaluation["criteria"][1]["evidence_ids"]
    card = judged(evaluation["draft_scorecard"])
    card["issues"] = [
        {
            "severity": "HIGH",
            "description": "add() goes through float",
            "location": "src/calc.py:2",
        },
        {
            "severity": "HIGH",
            "description": "see test_secret_exact.py",
            "location": "src/calc.py:2",
        },
        {
            "severity": "HIGH",
            "description": "test_adds_large_numbers_exactly fails",
            "location": "src/calc.py:2",
        },
        {
            "severity": "MEDIUM",
            "description": "the evidence shows a wrong sum",
            "evidence_ids": hidden_ids,
        },
        {"severity": "HIGH", "description": "large integers are not added exactly (rounding)"},
    ]
    card["guidance"] = "Add integers as integers."
    checked = await call(agent, "validate_scorecard", scorecard=card)
    assert checked["valid"] is True, checked["errors"]
    decided = await call(agent, "aggregate", contract_id=cid)
    brief = json.dumps(decided["revision_brief"])
    assert "float" in brief
    for revealing in ("test_secret", "large_numbers", "wrong sum", "exactly", "AC-F-002"):
        assert revealing not in brief, revealing
    whys = [leak["why"] for leak in decided["holdout_leaks"]]
    assert len(whys) == 4, whys
    assert any(w.startswith("names hold-out file or test") for w in whys)
    assert any(w.startswith("cites hold-out evidence") for w in whys)
    assert any(w.startswith("restates hold-out criterion AC-F-002") for w in whys)


def run(repo: Path, *args: str) -> int:
    return cli(["--root", str(repo), *args])


def created_by_cli(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    spec = tmp_path / "contract.yaml"
    spec.write_text(yaml.safe_dump(holdout_contract()), encoding="utf-8")
    assert run(project, "contract", "create", str(spec)) == 0
    return capsys.readouterr().out.split()[1]


def test_the_cli_moves_a_holdout_out_and_warns_while_the_generator_could_still_read_it(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cid = created_by_cli(project, tmp_path, capsys)
    secret = project / "tests" / "secret" / "test_secret_exact.py"
    secret.parent.mkdir()
    secret.write_text(SECRET_TEST)
    # --keep leaves it where the generator can read it, and says so.
    assert run(project, "holdout", "add", cid, str(secret), "--keep") == 0
    captured = capsys.readouterr()
    assert "stored tests/secret/test_secret_exact.py" in captured.out
    assert "holdout_in_tree" in captured.err and "holdout_in_history" not in captured.err
    assert secret.exists()
    # Committed by mistake, then moved out: gone from the tree (and its emptied folder), still in
    # the history, where the warning points.
    commit_all(project, "oops: the hold-out committed")
    assert run(project, "holdout", "add", cid, str(secret)) == 0
    captured = capsys.readouterr()
    assert "removed tests/secret/test_secret_exact.py from the working tree" in captured.out
    assert not secret.exists() and not secret.parent.exists()
    assert "holdout_in_history" in captured.err and "holdout_in_tree" not in captured.err
    assert "10**20" not in every_file_text(project / "tests")
    assert run(project, "holdout", "add", cid, str(secret)) == 1  # gone from disk
    assert "not_found" in capsys.readouterr().err
    commit_all(project, "remove it again")
    outside = tmp_path / "vaulted" / "test_secret_exact.py"
    outside.parent.mkdir()
    outside.write_text(SECRET_TEST)
    assert run(project, "holdout", "add", cid, str(outside)) == 1  # where in the tree?
    assert "outside_repository" in capsys.readouterr().err
    assert run(project, "holdout", "add", cid, str(outside), "--to", "tests") == 0
    captured = capsys.readouterr()
    assert "stored tests/test_secret_exact.py" in captured.out and outside.exists()
    assert "holdout_in_tree" not in captured.err
    assert run(project, "holdout", "list", cid) == 0
    assert "tests/test_secret_exact.py" in capsys.readouterr().out
    assert run(project, "evaluate", cid) == 0
    assert "AC-F-002" in capsys.readouterr().out


def test_exports_keep_the_holdouts_out_unless_asked_and_the_bundle_carries_them(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cid = created_by_cli(project, tmp_path, capsys)
    outside = tmp_path / "test_secret_exact.py"
    outside.write_text(SECRET_TEST)
    assert run(project, "holdout", "add", cid, str(outside), "--to", "tests") == 0
    committed = tmp_path / "committed.yaml"
    assert run(project, "contract", "export", cid, "-o", str(committed)) == 0
    assert HOLDOUT_TEXT not in committed.read_text() and "test_secret" not in committed.read_text()
    bundle = tmp_path / "bundle"
    assert run(project, "holdout", "export", cid, str(bundle)) == 0
    assert (bundle / "files" / "tests" / "test_secret_exact.py").read_text() == SECRET_TEST
    assert HOLDOUT_TEXT in (bundle / "contract.yaml").read_text()


async def test_a_vault_file_changed_behind_referees_back_is_refused(
    agent: Client, project: Path, tmp_path: Path
) -> None:
    cid = await created(agent)
    await call(
        agent,
        "add_holdout_files",
        contract_id=cid,
        files=[{"path": "tests/test_secret_exact.py", "content": SECRET_TEST}],
    )
    settings = Settings.build([project])
    stored = next(settings.vault_root.rglob("test_secret_exact.py"))
    stored.write_text("def test_nothing():\n    pass\n")
    result = await agent.call_tool("evaluate", {"contract_id": cid})
    assert result.is_error is True
    assert "store_tampered" in result.content[0].text  # type: ignore[union-attr]
