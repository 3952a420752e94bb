"""What referee needs to know about a repository: its root, whether it is git, its commits."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from referee.tools.errors import InvalidInput, Problem
from referee.tools.repo.git import GitError, git
from referee.tools.repo.objects import root_tree
from referee.tools.repo.refs import qualified_ref
from referee.tools.repo.root import repository_root

__all__ = [
    "RepoInfo",
    "describe_repo",
    "head_commit",
    "is_git_repo",
    "repository_root",
    "resolve_commit",
]


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
        raise InvalidInput(
            [Problem(path=pointer, code="not_a_directory", message=f"{path} is not a directory")]
        )
    root = repository_root(resolved)
    if root is None:
        return RepoInfo(root=resolved, is_git=False, head=None)
    return RepoInfo(root=root, is_git=True, head=head_commit(root))


def is_git_repo(path: Path) -> bool:
    """Is `path` inside a git work tree? (Read from files, as `repository_root` is.)"""
    return repository_root(path) is not None


def head_commit(repo: Path) -> str | None:
    try:
        return git(repo, "rev-parse", "--verify", "-q", "HEAD^{commit}").strip() or None
    except GitError:
        return None


def root_commits(repo: Path) -> tuple[str, ...]:
    """The root commits of HEAD's history, sorted: what every clone of a repository shares,
    wherever it is checked out (empty outside git or before the first commit)."""
    try:
        out = git(repo, "rev-list", "--max-parents=0", "HEAD", "--")
    except GitError:
        return ()
    return tuple(sorted(line for line in out.split() if line))


def resolve_commit(repo: Path, ref: str, at: str = "/ref") -> str:
    """The full SHA of a ref (a short name read as the branch it names: see `refs`), or
    InvalidInput naming the ref."""
    name = qualified_ref(repo, ref).ref
    try:
        return git(
            repo, "rev-parse", "--verify", "-q", "--end-of-options", f"{name}^{{commit}}"
        ).strip()
    except GitError:
        _refuse_if_rewritten(repo, name)
        raise InvalidInput(
            [Problem(path=at, code="unknown_ref", message=f"{ref!r} is not a commit in {repo}")]
        ) from None


def _refuse_if_rewritten(repo: Path, name: str) -> None:
    """git itself refuses a commit whose content does not hash to its name (parse_object): say
    that it was rewritten (BadObject), not that the commit is unknown."""
    try:
        root_tree(repo, name, fresh=True)
    except GitError:
        return
