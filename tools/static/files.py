"""Which files a run covers, and the git blob SHA of each (the per-file cache key)."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from referee.tools.errors import InvalidInput, Problem
from referee.tools.repo.git import git_many

REFEREE_DIR = ".referee/"
_WALK_SKIP = {"node_modules", ".venv", "__pycache__"}


def list_files(repo: Path, scope: str, base: str | None) -> list[str]:
    """List the repository-relative posix paths a static run covers.

    Args:
        repo: Repository root (or any directory; a non-git directory is walked).
        scope: `project` (tracked plus untracked-not-ignored files) or `task` (files changed since
            `base`: committed, staged, unstaged and untracked-not-ignored).
        base: Commit the task started from; None means HEAD (or everything before the first commit).
            Outside git there is no history: every file counts as changed.

    Returns:
        Sorted paths of existing regular files, `.referee/` excluded.

    Raises:
        InvalidInput: An unknown scope, or a base that is not a commit.
    """
    repo = Path(repo)
    if scope not in ("project", "task"):
        raise InvalidInput(
            [
                Problem(
                    path="/scope", code="invalid_scope", message="scope must be 'task' or 'project'"
                )
            ]
        )
    listed = _all_git_files(repo) if scope == "project" else _changed_files(repo, base)
    return _existing(repo, _walk(repo) if listed is None else listed)


def blob_sha(data: bytes) -> str:
    """The git blob SHA-1 of some content, equal to `git hash-object`."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def blob_shas(repo: Path, files: Sequence[str]) -> dict[str, str]:
    """Blob SHA per file, hashed from disk. Files that vanish or cannot be read are left out.

    The index is not asked: its stat cache and flags (assume-unchanged, skip-worktree, an entry
    written with the file's own stat data and an older blob) belong to the player, and a cached
    analysis of the older blob would stand in for what is on disk.
    """
    shas: dict[str, str] = {}
    for name in files:
        sha = _hash_file(os.path.join(repo, name))
        if sha is not None:
            shas[name] = sha
    return shas


def _hash_file(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return blob_sha(handle.read())
    except OSError:
        return None


def _all_git_files(repo: Path) -> list[str] | None:
    out = _git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    return None if out is None else _split_z(out)


def _changed_files(repo: Path, base: str | None) -> list[str] | None:
    untracked_out = _git(repo, "ls-files", "-z", "--others", "--exclude-standard")
    if untracked_out is None:
        return None  # not a work tree
    untracked = _split_z(untracked_out)
    commit = _resolve_commit(repo, base or "HEAD")
    if commit is None and base is None:
        return _all_git_files(repo)  # no commit yet: everything is new
    if commit is None:
        problem = Problem(
            path="/base",
            code="unknown_ref",
            message=(
                f"base {base!r} is not a commit of {repo}; "
                "pass a commit id, branch or tag that exists there"
            ),
        )
        raise InvalidInput([problem])
    # Nested repositories are not asked (git would run in them with their own configuration).
    diff = _git(
        repo,
        "diff",
        "--name-only",
        "-z",
        "--diff-filter=ACMR",
        "--relative",
        "--ignore-submodules=all",
        commit,
        "--",
    )
    return _split_z(diff) + untracked


def _resolve_commit(repo: Path, ref: str) -> str | None:
    out = _git(repo, "rev-parse", "--verify", "-q", "--end-of-options", f"{ref}^{{commit}}")
    return out.decode("ascii").strip() if out else None


def _existing(repo: Path, names: Iterable[str]) -> list[str]:
    kept = set()
    for name in names:
        name = name.replace(os.sep, "/")
        if name.startswith(REFEREE_DIR) or name in kept:
            continue
        try:
            mode = os.lstat(os.path.join(repo, name)).st_mode
        except OSError:
            continue
        if stat.S_ISREG(mode):  # symlinks could point out of the repository
            kept.add(name)
    return sorted(kept)


def _walk(repo: Path) -> list[str]:
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(repo):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in _WALK_SKIP]
        rel = Path(dirpath).relative_to(repo).as_posix()
        prefix = "" if rel == "." else f"{rel}/"
        found.extend(prefix + f for f in filenames)
    return found


def _git(repo: Path, *args: str) -> bytes | None:
    """Run a read-only git command in `repo`; None when git is missing or the command fails."""
    return git_many(repo, list(args))[0]


def _split_z(out: bytes | None) -> list[str]:
    if not out:
        return []
    return [os.fsdecode(part) for part in out.split(b"\0") if part]
