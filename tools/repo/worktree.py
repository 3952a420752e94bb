"""Detached worktrees: a commit checked out in a folder of referee's own, always removed."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from referee.tools.repo.git import GitError, git

__all__ = ["Worktree", "add_worktree", "remove_worktree"]


@dataclass
class Worktree:
    path: Path
    commit: str


def add_worktree(repo: Path, commit: str, parent: Path) -> Worktree:
    """A detached worktree at `commit` in a fresh folder under `parent`."""
    parent.mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix="wt-", dir=parent))
    git(repo, "worktree", "add", "--detach", "-f", str(path), commit)
    return Worktree(path=path, commit=commit)


def remove_worktree(repo: Path, worktree: Worktree) -> None:
    """Remove a worktree whatever state it is in (never leaves it registered)."""
    try:
        git(repo, "worktree", "remove", "--force", str(worktree.path))
    except GitError:
        shutil.rmtree(worktree.path, ignore_errors=True)
        git(repo, "worktree", "prune")
