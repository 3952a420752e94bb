"""Which files an evaluation covers: changed since base, every file, one file at a commit."""

from __future__ import annotations

from pathlib import Path

from referee.tools.repo.git import GitError, git
from referee.tools.repo.info import is_git_repo
from referee.tools.repo.tree import STORE_DIR

__all__ = ["changed_files", "file_at", "list_files"]

_EXCLUDE = f":(exclude){STORE_DIR}"


def changed_files(repo: Path, base: str | None, ref: str | None = None) -> list[str]:
    """Files changed since `base`: against `ref` when given, else the working tree (untracked
    included)."""
    if not is_git_repo(repo):
        return []
    if base is None:
        return list_files(repo)
    if ref is not None:
        out = git(repo, "diff", "--name-only", "-z", "--diff-filter=ACMRD", base, ref)
        return sorted(set(filter(None, out.split("\0"))))
    tracked = git(
        repo, "diff", "--name-only", "-z", "--diff-filter=ACMRD", base, "--", ".", _EXCLUDE
    )
    untracked = git(repo, "ls-files", "-z", "--others", "--exclude-standard", "--", ".", _EXCLUDE)
    return sorted(set(filter(None, tracked.split("\0") + untracked.split("\0"))))


def list_files(repo: Path) -> list[str]:
    """Tracked plus untracked-but-not-ignored files, `.referee/` excluded."""
    out = git(
        repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ".", _EXCLUDE
    )
    return sorted({p for p in out.split("\0") if p and (repo / p).exists()})


def file_at(repo: Path, commit: str, path: str) -> str | None:
    """A file's text at a commit, or None when it did not exist there."""
    try:
        return git(repo, "cat-file", "blob", f"{commit}:{path}")
    except GitError:
        return None
