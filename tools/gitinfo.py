"""What referee needs to know about a repository before it evaluates anything."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import git

from .errors import InvalidInput, Problem


@dataclass(frozen=True)
class RepoInfo:
    root: Path
    is_git: bool
    head: str | None


def describe_repo(path: Path, pointer: str = "/repo") -> RepoInfo:
    """Resolve a repository path: its work-tree root and HEAD commit (None before the first commit).

    Raises:
        InvalidInput: the path does not exist or is not a directory.
    """
    resolved = path.expanduser().resolve()
    if not resolved.is_dir():
        raise InvalidInput([Problem(path=pointer, code="not_a_directory", message=f"{path} is not a directory")])
    try:
        repo = git.Repo(resolved, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return RepoInfo(root=resolved, is_git=False, head=None)
    try:
        root = Path(repo.working_tree_dir or resolved).resolve()
        head = repo.head.commit.hexsha if repo.head.is_valid() else None
        return RepoInfo(root=root, is_git=True, head=head)
    finally:
        repo.close()
