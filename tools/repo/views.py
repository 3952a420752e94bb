"""Other content at the repository's own path: a tree shown over the working tree as it is on disk.

Every run of the project's code (the evaluated tree, the base with the change's tests, the base's
own tests, a `ref`) happens at the repository's path, over the working tree with its untracked
and ignored files (virtualenvs, node_modules, generated files, build output), so that a test
cannot tell one run from another by its path, its git layout or a missing ignored file. A view
says what differs: the files of the shown tree that differ from the working tree (laid over it
as an overlay layer) and the working tree's files the shown tree does not have (hidden).

The shown tree is a real git tree object. A combination (the base with the change's test files)
is written as one through a throwaway index first, so every view is computed the same way.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.tools.repo.git import GitError, git, git_bytes
from referee.tools.repo.objects import Entry, read_blobs, tree_diff, tree_listing

__all__ = [
    "Entry",
    "TreeView",
    "blob_texts",
    "compose_tree",
    "tree_entry_map",
    "view_of",
    "write_tree",
]


@dataclass(frozen=True)
class TreeView:
    """A tree shown at the repository's path.

    Attributes:
        tree: The shown tree's hash.
        layer: A folder of the files that differ from the working tree (None when none do).
        hide: Working-tree paths the shown tree does not have.
        restored: Paths where the shown tree puts the base's content back over the evaluated
            tree's (the base's versions of edited tests, whatever file holds them).
        tests: The change's test files the shown tree holds in their current version (the
            `base` view: test files by path, and the tests' data, modules and test-only files).
        moved: (shown path, base path) of each source file the change moved to another path of
            the same module whose base test blocks the shown tree holds (the `base-tests` view):
            the base's test names under the old path are these tests.
    """

    tree: str
    layer: Path | None = None
    hide: tuple[str, ...] = ()
    restored: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    moved: tuple[tuple[str, str], ...] = ()


def view_of(repo: Path, now: str, shown: str, folder: Path, keep: Sequence[str] = ()) -> TreeView:
    """The view that shows tree `shown` where the working tree (hashed as `now`) is.

    Args:
        repo: The repository root.
        now: The working tree's hash (tree.py: hashed from disk, untracked files included).
        shown: The tree to show.
        folder: An empty folder outside the repository for the layer.
        keep: Folders whose files `shown` lacks but that stay (an installed environment that git
            does not ignore: every run uses it, and none may lose it).
    """
    if now == shown:
        return TreeView(shown)
    written: list[str] = []
    gone: list[str] = []
    wanted: dict[str, Entry] = {}
    for path, _, entry in tree_diff(repo, now, shown):
        if entry is None:
            if not any(path == k or path.startswith(k + "/") for k in keep):
                gone.append(path)
        elif entry[0] != "160000":  # a submodule's commit: nothing to lay out
            wanted[path] = entry
    _write_blobs(repo, wanted, folder)
    written = sorted(wanted)
    # A path the layer turns into a folder (or a folder into a file) must not be hidden too: the
    # whiteout would sit above the layer and hide what it shows.
    laid = set(written) | {p for w in written for p in _parents(w)}
    hide = tuple(p for p in gone if p not in laid and not (set(_parents(p)) & set(written)))
    return TreeView(shown, folder if written else None, hide)


def write_tree(repo: Path, tree: str, folder: Path, paths: Collection[str] | None = None) -> None:
    """Every file of a tree (or the `paths` it has) written into `folder` (no `.git`, no
    filters: the stored bytes)."""
    entries = {p: e for p, e in tree_entry_map(repo, tree, paths).items() if e[0] != "160000"}
    _write_blobs(repo, entries, folder)


def compose_tree(repo: Path, base: str, overrides: Mapping[str, Entry | None]) -> str:
    """A tree object: `base` with each path of `overrides` set to its entry (None: removed).

    The index is filled from the verified listing of `base` (objects.py), not by `read-tree`,
    which would take the base's trees from the repository's objects unchecked.
    """
    if not overrides:
        return base
    entries = {**tree_listing(repo, base), **overrides}
    lines = "".join(
        f"{entry[0]} {entry[1]}\t{path}\0"
        for path, entry in sorted(entries.items())
        if entry is not None
    )
    with tempfile.TemporaryDirectory(prefix="referee-index-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git_bytes(
            repo, "update-index", "-z", "--index-info", env=env, input_data=os.fsencode(lines)
        )
        return git(repo, "write-tree", env=env).strip()


def tree_entry_map(repo: Path, tree: str, paths: Collection[str] | None = None) -> dict[str, Entry]:
    """(mode, sha) of every file of a tree (or of `paths` only, where they are in it), each tree
    on the way verified against its name (objects.py)."""
    return tree_listing(repo, tree, paths)


def _write_blobs(repo: Path, wanted: Mapping[str, Entry], folder: Path) -> None:
    by_sha: dict[str, list[tuple[str, str]]] = {}
    for path, (mode, sha) in wanted.items():
        by_sha.setdefault(sha, []).append((path, mode))
    shas = sorted(by_sha)
    for start in range(0, len(shas), _BATCH):  # bounded memory on a large tree
        chunk = shas[start : start + _BATCH]
        where = {sha: by_sha[sha][0][0] for sha in chunk}
        found = read_blobs(repo, chunk, where)
        for sha in chunk:
            if sha not in found:
                raise GitError(f"{where[sha]}: its blob {sha} is missing from the repository")
            for path, mode in by_sha[sha]:
                data = found[sha]
                _write_one(folder / path, mode, data)


_BATCH = 512


def blob_texts(repo: Path, shas: list[str]) -> dict[str, str]:
    """The text of each blob (undecodable bytes replaced)."""
    return {sha: data.decode("utf-8", "replace") for sha, data in read_blobs(repo, shas).items()}


def write_blob(repo: Path, data: bytes) -> str:
    """The sha of a new blob holding `data`, written into the repository's objects (a tree
    that no commit of the repository has, such as a base with a file rewritten, needs it)."""
    return git(repo, "hash-object", "-w", "--stdin", input_data=data).strip()


def _write_one(target: Path, mode: str, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if mode == "120000":
        os.symlink(os.fsdecode(data), target)
        return
    target.write_bytes(data)
    if mode == "100755":
        target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _parents(path: str) -> list[str]:
    parts = path.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]
