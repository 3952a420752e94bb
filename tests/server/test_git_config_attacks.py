"""referee's own git never runs what the evaluated repository configures.

The generator owns the repository's `.git`: each variant below plants a program through one key
and one channel (the config file, an included file, a conditional include, attributes in the tree,
in `.git/info`, or named by the config), and referee's whole loop runs over it: evaluate at task
scope with a fail-before/pass-after criterion (the base run) and a static criterion (the diff),
evaluate of a commit (`ref`), the CI gate, and checkout of a pinned iteration. A planted program
that runs writes a marker file on the host, outside every sandbox (whose /tmp is a fresh one),
so any marker is a program of the player's that referee's own git ran.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import yaml
from edits import bugfix_contract
from gitrepo import git
from mcp import Client
from mcp_calls import call
from planted import append, every_key, program, ran
from projects import BUG_FIX, apply_bugfix, bugfix_criteria, bugfix_repo, commit_all

from referee.server.app import build_server
from referee.server.cli import main as cli
from referee.tools.settings import Settings

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

Plant = Callable[[Path, Path], None]


ATTRIBUTES = "*.py filter=evil diff=evil merge=evil\n"


def config(repo: Path) -> Path:
    return repo / ".git" / "config"


def in_config(repo: Path, markers: Path) -> None:
    append(config(repo), every_key(markers, "config"))
    append(repo / ".git" / "info" / "attributes", ATTRIBUTES)


def in_tracked_attributes(repo: Path, markers: Path) -> None:
    append(config(repo), every_key(markers, "tracked"))
    append(repo / ".gitattributes", ATTRIBUTES)  # the change adds it to the tree


def through_include(repo: Path, markers: Path) -> None:
    included = markers / "included.gitconfig"
    append(included, every_key(markers, "include"))
    append(config(repo), f"[include]\n    path = {included}\n")
    append(repo / ".git" / "info" / "attributes", ATTRIBUTES)


def through_relative_include(repo: Path, markers: Path) -> None:
    append(repo / ".git" / "extra.cfg", every_key(markers, "relinclude"))
    append(config(repo), "[include]\n    path = extra.cfg\n")
    append(repo / ".git" / "info" / "attributes", ATTRIBUTES)


def through_include_if_gitdir(repo: Path, markers: Path) -> None:
    included = markers / "gitdir.gitconfig"
    append(included, every_key(markers, "gitdir"))
    append(config(repo), f'[includeIf "gitdir:{repo}/"]\n    path = {included}\n')
    append(repo / ".git" / "info" / "attributes", ATTRIBUTES)


def through_include_if_branch(repo: Path, markers: Path) -> None:
    included = markers / "onbranch.gitconfig"
    append(included, every_key(markers, "onbranch"))
    append(config(repo), f'[includeIf "onbranch:**"]\n    path = {included}\n')
    append(repo / ".git" / "info" / "attributes", ATTRIBUTES)


def through_attributes_file(repo: Path, markers: Path) -> None:
    attributes = markers / "attributes"
    attributes.write_text(ATTRIBUTES, encoding="utf-8")
    append(config(repo), every_key(markers, "attrfile"))
    append(config(repo), f"[core]\n    attributesFile = {attributes}\n")


def through_worktree_config(repo: Path, markers: Path) -> None:
    append(config(repo), "[extensions]\n    worktreeConfig = true\n")
    append(config(repo), "[core]\n    repositoryformatversion = 1\n")
    append(repo / ".git" / "config.worktree", every_key(markers, "worktree"))
    append(repo / ".git" / "info" / "attributes", ATTRIBUTES)


def through_hooks_folder(repo: Path, markers: Path) -> None:
    for hook in ("post-checkout", "reference-transaction", "post-index-change", "pre-auto-gc"):
        target = repo / ".git" / "hooks" / hook
        target.write_text(f"#!/bin/sh\n{program(markers, 'hooks-' + hook)}\n", encoding="utf-8")
        target.chmod(0o755)


def through_process_filter(repo: Path, markers: Path) -> None:
    append(
        config(repo),
        f"""
        [filter "evil"]
            process = {program(markers, "process")}
            required = true
        """,
    )
    append(repo / ".git" / "info" / "attributes", ATTRIBUTES)


def through_core_worktree(repo: Path, markers: Path) -> None:
    # Not a program but a redirection: git would read another folder as the work tree.
    decoy = markers / "decoy"
    decoy.mkdir()
    (decoy / "src").mkdir()
    (decoy / "src" / "calc.py").write_text(BUG_FIX, encoding="utf-8")
    append(config(repo), f"[core]\n    worktree = {decoy}\n")
    append(config(repo), every_key(markers, "coreworktree"))


VARIANTS: dict[str, Plant] = {
    "config": in_config,
    "tracked-attributes": in_tracked_attributes,
    "include": through_include,
    "relative-include": through_relative_include,
    "include-if-gitdir": through_include_if_gitdir,
    "include-if-onbranch": through_include_if_branch,
    "attributes-file": through_attributes_file,
    "worktree-config": through_worktree_config,
    "hooks-folder": through_hooks_folder,
    "process-filter": through_process_filter,
    "core-worktree": through_core_worktree,
}


@pytest.fixture
def markers(tmp_path: Path) -> Path:
    folder = tmp_path / "markers"
    folder.mkdir()
    return folder


def hostile_bugfix(tmp_path: Path, markers: Path, plant: Plant) -> Path:
    """A committed buggy base, the fix and its test on disk, and the planted configuration (after
    every git command of the test itself, so only referee's git can run it)."""
    repo = bugfix_repo(tmp_path / "calc")
    apply_bugfix(repo)
    plant(repo, markers)
    return repo


@pytest.fixture
async def agent_for() -> AsyncIterator[Callable[[Path], Client]]:
    clients: list[Client] = []

    def make(repo: Path) -> Client:
        client = Client(build_server(Settings.build([repo], env=dict(os.environ))))
        clients.append(client)
        return client

    yield make


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_evaluate_runs_nothing_the_repository_configures(
    variant: str, tmp_path: Path, markers: Path
) -> None:
    repo = hostile_bugfix(tmp_path, markers, VARIANTS[variant])
    async with Client(build_server(Settings.build([repo], env=dict(os.environ)))) as agent:
        cid = await bugfix_contract(agent, bugfix_criteria()[:1], quality=bugfix_criteria()[2:])
        result = await call(agent, "evaluate", contract_id=cid)
        verdicts = {c["id"]: c["status"] for c in result["criteria"]}
        # The honest fix is judged on its real content: proven at base and passing now.
        assert verdicts["AC-F-001"] == "pass", result["criteria"]
        assert "src/calc.py" in result["target"]["changed_files"]
        committed = await call(agent, "evaluate", contract_id=cid, ref="HEAD", iteration=2)
        assert committed["target"]["commit"]
    assert ran(markers) == []


def test_the_gate_and_checkout_run_nothing_the_repository_configures(
    tmp_path: Path, markers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = bugfix_repo(tmp_path / "calc")
    home = tmp_path / "home"
    source = tmp_path / "contract.yaml"
    source.write_text(
        yaml.safe_dump(
            {
                "goal": "Fix adding a negative number.",
                "task_type": "bug",
                "out_of_scope": ["other operations"],
                "functional": bugfix_criteria()[:1],
            }
        ),
        encoding="utf-8",
    )

    def run(*args: str) -> tuple[int, str]:
        capsys.readouterr()
        code = cli(["--root", str(repo), "--home", str(home), *args])
        return code, capsys.readouterr().out

    code, out = run("contract", "create", str(source), "--json")
    assert code == 0, out
    cid = json.loads(out)["contract"]["id"]
    exported = repo / ".referee" / "contracts" / "fix.yaml"
    exported.parent.mkdir(parents=True)
    assert run("contract", "export", cid, "-o", str(exported))[0] == 0
    commit_all(repo, "the contract")
    git(repo, "checkout", "-q", "-b", "fix")
    apply_bugfix(repo)
    commit_all(repo, "the fix")
    for plant in VARIANTS.values():
        plant(repo, markers)
    code, out = run("evaluate", cid, "--json")
    assert code in (0, 1), out
    assert run("checkout", cid, "--iteration", "1", "--branch", "restored")[0] == 0
    capsys.readouterr()
    gate = cli(
        [
            "--root",
            str(repo),
            "--home",
            str(tmp_path / "ci-home"),
            "ci",
            "--contract-ref",
            "main:.referee/contracts/fix.yaml",
            "--json",
        ]
    )
    assert gate in (0, 1, 4), capsys.readouterr()
    assert ran(markers) == []


async def test_replace_refs_cannot_swap_the_base(tmp_path: Path) -> None:
    """A planted refs/replace/<base> would make git show another commit as the base (a base
    where the new test already passes, so fail-before could never be proven, or the reverse)."""
    repo = bugfix_repo(tmp_path / "calc")
    base = git(repo, "rev-parse", "HEAD")
    (repo / "src" / "calc.py").write_text(BUG_FIX, encoding="utf-8")
    fixed = commit_all(repo, "fixed base")
    git(repo, "reset", "-q", "--hard", base)
    apply_bugfix(repo)
    replace = repo / ".git" / "refs" / "replace" / base
    replace.parent.mkdir(parents=True)
    replace.write_text(fixed + "\n", encoding="utf-8")
    async with Client(build_server(Settings.build([repo], env=dict(os.environ)))) as agent:
        cid = await bugfix_contract(agent, bugfix_criteria()[:1])
        result = await call(agent, "evaluate", contract_id=cid)
    criterion = result["criteria"][0]
    assert criterion["status"] == "pass", criterion
