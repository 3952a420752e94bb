"""The delivered iteration is restorable: a three-iteration loop over MCP whose second iteration
was best, then `referee checkout` (and `referee gc`) on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import git
from loops import loop
from mcp import Client
from projects import SAMPLE_ENV, calc_repo

from referee.server.app import build_server
from referee.server.cli import main
from referee.tools.repo import working_tree_hash
from referee.tools.settings import Settings

pytestmark = pytest.mark.anyio


async def test_a_loop_whose_second_iteration_was_best_is_restored_with_one_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = calc_repo(tmp_path / "calc")
    async with Client(build_server(Settings.build([repo], env=dict(SAMPLE_ENV)))) as client:
        cid, decisions, trees = await loop(client, repo)
    last = decisions[-1]
    assert [d["decision"] for d in decisions] == ["REVISE", "REVISE", "DELIVER"]
    assert last["delivered_iteration"] == 2
    assert last["checkout"] == f"referee checkout {cid} --iteration 2"
    assert working_tree_hash(repo) == trees[3]

    capsys.readouterr()
    assert main(["--root", str(repo), "aggregate", cid]) == 0
    assert f"referee checkout {cid} --iteration 2" in capsys.readouterr().out
    assert main(["--root", str(repo), "checkout", cid]) == 0  # default: the delivered iteration
    assert "iteration 2" in capsys.readouterr().out
    assert working_tree_hash(repo) == trees[2]
    assert (repo / "src" / "calc.py").read_text(encoding="utf-8").endswith("a + b\n")
    assert (repo / "src" / "helper.py").exists() and not (repo / "notes.txt").exists()


async def test_checkout_refuses_unpinned_work_then_restores_to_a_branch_and_gc_drops_pins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = calc_repo(tmp_path / "calc")
    async with Client(build_server(Settings.build([repo], env=dict(SAMPLE_ENV)))) as client:
        cid, _, trees = await loop(client, repo)
    (repo / "src" / "calc.py").write_text("unsaved work\n", encoding="utf-8")
    root = ["--root", str(repo)]

    capsys.readouterr()
    assert main([*root, "checkout", cid, "--iteration", "1"]) == 1
    assert "--force" in capsys.readouterr().err
    assert (repo / "src" / "calc.py").read_text(encoding="utf-8") == "unsaved work\n"

    assert main([*root, "checkout", cid, "--branch", "best", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["branch"] == "best" and shown["iteration"] == 2
    assert git(repo, "rev-parse", "best^{tree}") == trees[2]
    assert (repo / "src" / "calc.py").read_text(encoding="utf-8") == "unsaved work\n"

    assert main([*root, "checkout", cid, "--iteration", "7"]) == 2
    assert "not pinned" in capsys.readouterr().err
    assert main([*root, "checkout", "SC-ghost-20260101"]) == 2

    assert main([*root, "gc", cid, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dropped"] == [1, 2, 3]
    assert git(repo, "for-each-ref", f"refs/referee/{cid}") == ""
    assert main([*root, "checkout", cid]) == 2
    assert "nothing is pinned" in capsys.readouterr().err
