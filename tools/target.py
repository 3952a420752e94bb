"""The evaluation target: exactly which content is judged, identified by a tree hash."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import InvalidInput, Problem

STORE_DIR = ".referee"
_EXCLUDE = f":(exclude){STORE_DIR}"


class GitError(RuntimeError):
    """A git command failed."""


def _git(repo: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    full_env = {**os.environ, **(env or {}), "GIT_TERMINAL_PROMPT": "0"}
    done = subprocess.run(["git", *args], cwd=repo, env=full_env, capture_output=True, text=True, encoding="utf-8")
    if done.returncode != 0:
        raise GitError(f"git {' '.join(args)}: {done.stderr.strip() or done.returncode}")
    return done.stdout


def is_git_repo(path: Path) -> bool:
    try:
        return _git(path, "rev-parse", "--is-inside-work-tree").strip() == "true"
    except (GitError, OSError):
        return False


def head_commit(repo: Path) -> str | None:
    try:
        return _git(repo, "rev-parse", "--verify", "-q", "HEAD^{commit}").strip() or None
    except GitError:
        return None


def resolve_commit(repo: Path, ref: str, at: str = "/ref") -> str:
    """The full SHA of a ref, or InvalidInput naming the ref."""
    try:
        return _git(repo, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}").strip()
    except GitError:
        raise InvalidInput([Problem(path=at, code="unknown_ref", message=f"{ref!r} is not a commit in {repo}")]) from None


def working_tree_hash(repo: Path) -> str:
    """Tree hash of the working tree as it is: tracked changes and untracked-but-not-ignored files included.

    Uses a throwaway index, so the user's index is never touched; `.referee/` is excluded.
    """
    if not is_git_repo(repo):
        return directory_hash(repo)
    with tempfile.TemporaryDirectory(prefix="referee-index-") as tmp:
        index = Path(tmp) / "index"
        env = {"GIT_INDEX_FILE": str(index)}
        real = repo / _git(repo, "rev-parse", "--git-path", "index").strip()
        if real.is_file():
            # A copy keeps git's stat cache, so only files changed since the last `git add` are rehashed.
            shutil.copyfile(real, index)
        elif head_commit(repo):
            _git(repo, "read-tree", "HEAD", env=env)
        _git(repo, "add", "-A", env=env)
        # `.referee/` ignores itself; this also drops it where someone tracked it by force.
        _git(repo, "rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", STORE_DIR, env=env)
        return _git(repo, "write-tree", env=env).strip()


def commit_tree_hash(repo: Path, commit: str) -> str:
    return _git(repo, "rev-parse", f"{commit}^{{tree}}").strip()


def directory_hash(root: Path) -> str:
    """A content hash of a folder outside git (files sorted by path)."""
    digest = hashlib.sha1()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and STORE_DIR not in p.relative_to(root).parts):
        digest.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
        digest.update(hashlib.sha1(path.read_bytes()).digest())
    return "dir:" + digest.hexdigest()


def changed_files(repo: Path, base: str | None, ref: str | None = None) -> list[str]:
    """Files changed since `base`: against `ref` when given, else the working tree (untracked included)."""
    if not is_git_repo(repo):
        return []
    if base is None:
        return list_files(repo)
    if ref is not None:
        out = _git(repo, "diff", "--name-only", "-z", "--diff-filter=ACMRD", base, ref)
        return sorted(set(filter(None, out.split("\0"))))
    tracked = _git(repo, "diff", "--name-only", "-z", "--diff-filter=ACMRD", base, "--", ".", _EXCLUDE)
    untracked = _git(repo, "ls-files", "-z", "--others", "--exclude-standard", "--", ".", _EXCLUDE)
    return sorted(set(filter(None, tracked.split("\0") + untracked.split("\0"))))


def list_files(repo: Path) -> list[str]:
    """Tracked plus untracked-but-not-ignored files, `.referee/` excluded."""
    out = _git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ".", _EXCLUDE)
    return sorted({p for p in out.split("\0") if p and (repo / p).exists()})


def diff_tree_paths(repo: Path, before: str, after: str) -> list[str]:
    """Paths that differ between two tree hashes (what running the checks wrote)."""
    if before.startswith("dir:") or after.startswith("dir:"):
        return [] if before == after else ["(outside git: content changed)"]
    out = _git(repo, "diff-tree", "-r", "--name-only", "-z", before, after)
    return sorted(filter(None, out.split("\0")))


@dataclass
class Worktree:
    path: Path
    commit: str


def add_worktree(repo: Path, commit: str, parent: Path) -> Worktree:
    """A detached worktree at `commit` in a fresh folder under `parent`."""
    parent.mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix="wt-", dir=parent))
    _git(repo, "worktree", "add", "--detach", "-f", str(path), commit)
    return Worktree(path=path, commit=commit)


def remove_worktree(repo: Path, worktree: Worktree) -> None:
    """Remove a worktree whatever state it is in (never leaves it registered)."""
    try:
        _git(repo, "worktree", "remove", "--force", str(worktree.path))
    except GitError:
        shutil.rmtree(worktree.path, ignore_errors=True)
        _git(repo, "worktree", "prune")


def file_at(repo: Path, commit: str, path: str) -> str | None:
    """A file's text at a commit, or None when it did not exist there."""
    try:
        return _git(repo, "show", f"{commit}:{path}")
    except GitError:
        return None


def files_at(repo: Path, commit: str, paths: Sequence[str]) -> dict[str, str | None]:
    return {p: file_at(repo, commit, p) for p in paths}
