"""What `change_tests` makes of a change written over a base repository (shared by the unit tests
of the data rule and the red-team rounds that attack it)."""

from __future__ import annotations

from pathlib import Path

from gitrepo import git, make_repo

from referee.tools.evaluate.change_tests import change_tests
from referee.tools.repo import commit_tree_hash, working_tree_hash


def changed(tmp_path: Path, files: dict[str, str], edits: dict[str, str]) -> list[str]:
    """What change_tests makes of `edits` (written over `files`, uncommitted)."""
    repo = make_repo(tmp_path / "r", files)
    base = commit_tree_hash(repo, git(repo, "rev-parse", "HEAD"))
    for path, text in edits.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    return change_tests(repo, sorted(edits), [base, working_tree_hash(repo)])
