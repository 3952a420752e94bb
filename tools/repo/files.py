"""Which files an evaluation covers: changed since base, every file, one file at a commit."""

from __future__ import annotations

import codecs
import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path

from referee.tools.repo.git import GitError, git, git_bytes, git_many
from referee.tools.repo.info import is_git_repo
from referee.tools.repo.objects import Change, read_blobs, root_tree, tree_diff, tree_listing
from referee.tools.repo.tree import STORE_DIR

__all__ = [
    "blobs_at",
    "changed_files",
    "changed_lines",
    "file_at",
    "ignored",
    "last_commits",
    "list_files",
    "list_files_at",
    "store_dir_changes",
]


def changed_files(repo: Path, base: str | None, tree: str) -> list[str]:
    """Files that differ between `base` and the evaluated `tree` (added, changed, deleted).

    Both sides are tree objects referee fixed itself (the working tree hashed from disk, or a
    commit's tree), so nothing in the repository's index or ignore rules shapes the answer.
    Without a base (no commit yet) every file of the tree counts as changed.
    """
    if not is_git_repo(repo) or tree.startswith("dir:"):
        return []
    if base is None:
        return sorted(tree_listing(repo, tree))
    return sorted({path for path, _, _ in tree_diff(repo, base, tree)})


def list_files(repo: Path) -> list[str]:
    """Tracked plus untracked-but-not-ignored files, `.referee/` excluded."""
    out = git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    inside = STORE_DIR + "/"
    return sorted(
        {p for p in out.split("\0") if p and not p.startswith(inside) and (repo / p).exists()}
    )


def store_dir_changes(repo: Path, base: str | None) -> list[str]:
    """Files under `.referee/` that git lists (tracked, or untracked and not ignored) whose
    content on disk is not the base's: referee's folder is left out of the evaluated tree (its
    store lives there), but a file the change commits into it ships with the change all the same.
    """
    listed = git_bytes(
        repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", STORE_DIR
    )
    at_base = _blob_ids(repo, base) if base else {}
    changed = []
    for name in sorted({os.fsdecode(p) for p in listed.split(b"\0") if p}):
        path = repo / name
        if path.is_symlink() or not path.is_file():
            continue
        try:
            blob = _blob_id(path.read_bytes())
        except OSError:
            continue
        if at_base.get(name) != blob:
            changed.append(name)
    return changed


def _blob_ids(repo: Path, commit: str) -> dict[str, str]:
    out = git_bytes(repo, "ls-tree", "-r", "-z", "--full-tree", commit, "--", STORE_DIR)
    found = {}
    for entry in out.split(b"\0"):
        meta, _, name = entry.partition(b"\t")
        if name:
            found[os.fsdecode(name)] = meta.split()[-1].decode("ascii")
    return found


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def list_files_at(repo: Path, commit: str, folder: str) -> list[str]:
    """The files under `folder` in a commit's tree (empty when the folder is not there)."""
    inside = folder.strip("/") + "/"
    return sorted(
        p for p in tree_listing(repo, commit) if p.startswith(inside) or p + "/" == inside
    )


def file_at(repo: Path, commit: str, path: str) -> str | None:
    """A file's text at a commit, or None when it did not exist there.

    Raises:
        BadObject: an object on the way does not hash to its name (never taken for "absent").
    """
    data = blobs_at(repo, commit, [path]).get(path)
    return None if data is None else data.decode("utf-8", "surrogateescape")


def ignored(repo: Path, paths: list[str]) -> set[str]:
    """The paths git ignores (build output, caches): writes there are not changes to the tree."""
    if not paths or not is_git_repo(repo):
        return set()
    # check-ignore reads each path as a pathspec and supports no magic, not even `literal`
    # (GIT_LITERAL_PATHSPECS fails every path): `./` before each name keeps a leading `:` from
    # being read as magic (`:(exclude)x`), which would fail the whole call.
    try:
        out = git_bytes(
            repo,
            "check-ignore",
            "-z",
            "--stdin",
            env={"GIT_LITERAL_PATHSPECS": "0"},
            input_data=b"".join(b"./" + os.fsencode(p) + b"\0" for p in paths),
            ok_codes=(0, 1),
        )
    except GitError:
        return set()
    found = {os.fsdecode(p.removeprefix(b"./")) for p in out.split(b"\0") if p}
    return {p for p in paths if p in found}


def last_commits(repo: Path, paths: list[str]) -> dict[str, str]:
    """The latest commit of any ref that holds each path (paths never committed are left out)."""
    if not paths or not is_git_repo(repo):
        return {}
    logs = git_many(repo, *[("log", "--all", "-1", "--format=%h", "--", p) for p in paths])
    found = {
        p: (out or b"").decode("utf-8", "replace").strip()
        for p, out in zip(paths, logs, strict=True)
    }
    return {p: c for p, c in found.items() if c}


def blobs_at(repo: Path, commit: str, paths: Sequence[str]) -> dict[str, bytes]:
    """The verified content of each path at a commit; absent paths (and folders, submodules)
    are left out.

    Raises:
        BadObject: the commit, a tree on the way or a blob does not hash to its name.
    """
    if not paths:
        return {}
    entries = tree_listing(repo, commit, paths)
    files = {p: sha for p, (mode, sha) in entries.items() if mode != "160000"}
    blobs = read_blobs(repo, set(files.values()), {sha: p for p, sha in files.items()})
    return {p: blobs[sha] for p, sha in files.items() if sha in blobs}


_HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


def changed_lines(repo: Path, base: str, tree: str) -> dict[str, set[int] | None]:
    """The lines of each changed file that differ from `base` (numbered as in `tree`).

    A file added since base maps to None (every line is new); a deleted file is left out.

    `--text`: the tree's attributes are the player's (`*.py -diff`, `binary`, a NUL byte in the
    first 8000 bytes, which node and many data formats accept): a file git called binary would
    show no lines at all, and with them no diff coverage, no mutants, no re-scanned allow marks.

    The patch is git's, so every tree and blob it reads is verified first (objects.py): a
    rewritten object of the base would otherwise show other lines as changed.
    """
    old, new = root_tree(repo, base), root_tree(repo, tree)
    _verify_changed(repo, tree_diff(repo, old, new))
    out = git_bytes(
        repo,
        "diff-tree",
        "-r",
        "-p",
        "-U0",
        "--text",
        "--no-renames",
        "--no-ext-diff",
        # The tree's .gitmodules is the player's: git would parse it for every gitlink (an
        # invalid value ends the command) and run git in nested repositories.
        "--ignore-submodules=all",
        "--no-color",
        old,
        new,
    )
    found: dict[str, set[int] | None] = {}
    for section in re.split(rb"^diff --git ", out, flags=re.MULTILINE)[1:]:
        head, _, body = section.partition(b"\n@@")
        name = _new_name(head)
        if name is None:
            continue
        if b"\nnew file mode" in head or b"--- /dev/null" in head:
            found[name] = None
            continue
        lines: set[int] = set()
        for match in _HUNK.finditer(b"@@" + body):
            start, count = int(match.group(1)), int(match.group(2) or b"1")
            lines.update(range(start, start + count))
        found[name] = lines
    return found


def _verify_changed(repo: Path, changes: list[Change]) -> None:
    where = {e[1]: path for path, *sides in changes for e in sides if e and e[0] != "160000"}
    shas = sorted(where)
    for start in range(0, len(shas), 512):  # read to check, not kept: bounded memory
        read_blobs(repo, shas[start : start + 512], where)


def _new_name(head: bytes) -> str | None:
    for line in head.split(b"\n"):
        if line.startswith(b"+++ "):
            target = line[4:].rstrip(b"\t\r")
            if target == b"/dev/null":
                return None
            if target.startswith(b'"'):  # git C-quotes unusual names: "b/caf\303\251.py"
                target = codecs.escape_decode(target[1:-1])[0]
            return os.fsdecode(target[2:] if target.startswith(b"b/") else target)
    return None
