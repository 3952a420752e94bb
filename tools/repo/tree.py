"""The evaluation target: exactly which content is judged, identified by a tree hash."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from pathlib import Path

from referee.tools.repo.git import git
from referee.tools.repo.info import head_commit, is_git_repo

__all__ = [
    "STORE_DIR",
    "commit_tree_hash",
    "diff_tree_paths",
    "directory_hash",
    "working_tree_hash",
]

STORE_DIR = ".referee"


def working_tree_hash(repo: Path) -> str:
    """Tree hash of the working tree as it is: tracked changes and untracked-but-not-ignored files
    included.

    Uses a throwaway index, so the user's index is never touched; `.referee/` is excluded.
    """
    if not is_git_repo(repo):
        return directory_hash(repo)
    with tempfile.TemporaryDirectory(prefix="referee-index-") as tmp:
        index = Path(tmp) / "index"
        env = {"GIT_INDEX_FILE": str(index)}
        real = repo / git(repo, "rev-parse", "--git-path", "index").strip()
        if real.is_file():
            # A copy keeps git's stat cache, so only files
            # changed since the last `git add` are rehashed.
            shutil.copyfile(real, index)
        elif head_commit(repo):
            git(repo, "read-tree", "HEAD", env=env)
        git(repo, "add", "-A", env=env)
        # `.referee/` ignores itself; this also drops it where someone tracked it by force.
        git(repo, "rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", STORE_DIR, env=env)
        return git(repo, "write-tree", env=env).strip()


def commit_tree_hash(repo: Path, commit: str) -> str:
    return git(repo, "rev-parse", f"{commit}^{{tree}}").strip()


def directory_hash(root: Path) -> str:
    """A content hash of a folder outside git (files sorted by path)."""
    digest = hashlib.sha1()
    for path in sorted(
        p for p in root.rglob("*") if p.is_file() and STORE_DIR not in p.relative_to(root).parts
    ):
        digest.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
        digest.update(hashlib.sha1(path.read_bytes()).digest())
    return "dir:" + digest.hexdigest()


def diff_tree_paths(repo: Path, before: str, after: str) -> list[str]:
    """Paths that differ between two tree hashes (what running the checks wrote)."""
    if before.startswith("dir:") or after.startswith("dir:"):
        return [] if before == after else ["(outside git: content changed)"]
    out = git(repo, "diff-tree", "-r", "--name-only", "-z", before, after)
    return sorted(filter(None, out.split("\0")))
