"""referee's git reads only regular files and folders of the repository's git folder, and writes
its pins only inside it; and no git call runs in the event loop's thread (tools/repo/gitdir.py,
tools/repo/pins.py, tools/repo/git.py). The variants of the red team's FIFOs live in
tests/redteam_round3.py (GIT_ENTRIES), driven here through the core and through the CLI."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from fifos import Writer, served
from gitrepo import git, make_repo
from redteam_round3 import GIT_ENTRIES, PY_BASE, PY_CHECK, GitEntry

from referee.server.cli import main
from referee.tools.repo import GitError, head_commit, pin_tree, resolve_commit, working_tree_hash
from referee.tools.repo.git import GitOnEventLoop, loop_guarded
from referee.tools.repo.gitdir import UnsafeGitEntry, check_git_folder
from referee.tools.repo.pins import _write_ref


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in GIT_ENTRIES])
def test_every_entry_git_reaches_is_checked_before_git_runs(case: GitEntry, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", PY_BASE)
    planted = case.plant(repo)
    with served(planted) as writer, pytest.raises(UnsafeGitEntry) as refused:
        resolve_commit(repo, "HEAD")
    assert writer is None or writer.readers == 0, f"referee opened the FIFO {planted}"
    assert refused.value.path == planted
    assert refused.value.problems[0].code == "unsafe_git_entry"
    assert planted.name in refused.value.problems[0].message


def test_an_entry_planted_after_referee_first_looked_is_still_refused(tmp_path: Path) -> None:
    """The private git folder is made once per process and the folders listed are remembered:
    a FIFO planted later (a long-running server, the generator working meanwhile) is seen by the
    change time its folder got."""
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    assert head_commit(repo) is not None
    sha = git(repo, "rev-parse", "HEAD")
    loose = repo / ".git" / "objects" / sha[:2] / sha[2:]
    loose.unlink()
    os.mkfifo(loose)
    with pytest.raises(UnsafeGitEntry):
        head_commit(repo)


def test_a_symlinked_folder_deep_in_refs_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    (tmp_path / "elsewhere").mkdir()
    (repo / ".git" / "refs" / "heads" / "team").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UnsafeGitEntry, match="a symbolic link"):
        working_tree_hash(repo)


def test_an_alternates_file_of_an_alternate_store_is_checked_too(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    first, second = tmp_path / "first", tmp_path / "second"
    (first / "info").mkdir(parents=True)
    (second / "pack").mkdir(parents=True)
    os.mkfifo(second / "pack" / "pack-1.idx")
    (first / "info" / "alternates").write_text("../second\n")  # relative to the store
    (repo / ".git" / "objects" / "info" / "alternates").write_text(f"{first}\n")
    with pytest.raises(UnsafeGitEntry) as refused:
        check_git_folder(repo / ".git", repo / ".git")
    assert refused.value.path == second / "pack" / "pack-1.idx"


def test_an_honest_repository_with_packs_graphs_alternates_and_worktrees_is_read(
    tmp_path: Path,
) -> None:
    """No false refusal: what git itself writes (packs, a commit-graph, an alternate store of a
    `clone --shared`, a linked worktree's git folder) is all regular files and folders."""
    origin = make_repo(tmp_path / "origin", {"a.py": "x = 1\n"})
    git(origin, "gc", "-q")
    git(origin, "commit-graph", "write", "--reachable")
    git(tmp_path, "clone", "-q", "--shared", str(origin), "clone")
    clone = tmp_path / "clone"
    git(clone, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "wt")
    for repo in (origin, clone, tmp_path / "wt"):
        assert resolve_commit(repo, "HEAD") == git(origin, "rev-parse", "HEAD")
        assert working_tree_hash(repo) == git(origin, "rev-parse", "HEAD^{tree}")


# --- pins -------------------------------------------------------------------------------------


def test_a_pin_is_written_where_git_reads_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    head = git(repo, "rev-parse", "HEAD")
    tree = git(repo, "rev-parse", "HEAD^{tree}")
    ref = pin_tree(repo, "SC-x", 3, tree, head, _now())
    assert ref == "refs/referee/SC-x/3"
    assert git(repo, "rev-parse", f"{ref}^{{tree}}") == tree
    assert git(repo, "for-each-ref", "--format=%(refname)", "refs/referee") == ref


@pytest.mark.parametrize("link", ["refs/referee", "refs/referee/SC-x"])
def test_a_pin_write_never_follows_a_link_planted_on_its_way(link: str, tmp_path: Path) -> None:
    """The second line behind the folder check: a link planted between the check and the write
    (the generator racing the evaluation) fails the write, it never lands outside."""
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    planted = repo / ".git" / link
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.symlink_to(outside, target_is_directory=True)
    with pytest.raises(GitError, match="refs/referee/SC-x/1"):
        _write_ref(repo, "refs/referee/SC-x/1", git(repo, "rev-parse", "HEAD"))
    assert list(outside.iterdir()) == []


def _now() -> datetime:
    return datetime(2026, 1, 1, tzinfo=UTC)


# --- the event loop ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_git_in_the_event_loops_thread_is_flagged(tmp_path: Path) -> None:
    """As the server handles a request (server/app.py): a call site that forgot the worker
    thread fails the test suite."""
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    with loop_guarded(), pytest.warns(GitOnEventLoop):
        head_commit(repo)


@pytest.mark.anyio
async def test_git_in_a_worker_thread_is_not_flagged(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    with loop_guarded():
        found = await anyio.to_thread.run_sync(head_commit, repo)
    assert found == git(repo, "rev-parse", "HEAD")


# --- through the CLI --------------------------------------------------------------------------


@pytest.mark.slow
def test_the_cli_refuses_a_fifo_index_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path / "repo", PY_BASE)
    spec = tmp_path / "contract.json"
    spec.write_text(
        json.dumps(
            {
                "goal": "Fix add.",
                "out_of_scope": ["ui"],
                "functional": [
                    {"criterion": "tests pass", "verification_method": "test", "check": PY_CHECK}
                ],
            }
        )
    )
    home = ["--root", str(repo), "--home", str(tmp_path / "home")]
    assert main([*home, "contract", "create", str(spec), "--repo", str(repo), "--json"]) == 0
    cid = json.loads(capsys.readouterr().out)["contract"]["id"]
    index = repo / ".git" / "index"
    index.unlink()
    os.mkfifo(index)
    with Writer(index).running() as writer:
        code = main([*home, "evaluate", cid])
    err = capsys.readouterr().err
    assert writer.readers == 0
    assert code != 0
    assert "unsafe_git_entry" in err and ".git/index" in err, err
