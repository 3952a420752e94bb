"""Where the store lives: `.referee/` at the repository root, or REFEREE_HOME."""

from __future__ import annotations

from pathlib import Path

import git


def repository_root(path: Path) -> Path | None:
    """The top of the git work tree containing `path`, or None outside git."""
    try:
        repo = git.Repo(path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    try:
        return Path(repo.working_tree_dir).resolve() if repo.working_tree_dir else None
    finally:
        repo.close()


def store_home(root: Path, referee_home: str | None) -> Path:
    """REFEREE_HOME when set, else `<repository root>/.referee` (or `<root>/.referee` outside git)."""
    if referee_home:
        return Path(referee_home).expanduser().resolve()
    return (repository_root(root) or root.resolve()) / ".referee"
