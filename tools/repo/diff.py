"""The change an evaluation judged, as a unified diff: base against the evaluated tree.

Read from the verified objects (objects.py), never from the working tree, which may hold other
work by then: this is what the run's checks saw, for the judge to read.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path

from referee.tools.repo.objects import read_blobs, root_tree, tree_listing

__all__ = ["change_diff"]

_MAX_BYTES = 512 * 1024


def change_diff(repo: Path, base: str | None, tree: str, paths: Sequence[str]) -> str:
    """A unified diff of `paths` from `base` (a commit, or None: every file new) to `tree`.

    Binary files are named, not shown; the text stops at 512 KiB, saying so.
    """
    old = tree_listing(repo, root_tree(repo, base), paths) if base else {}
    new = tree_listing(repo, tree, paths)
    blobs = read_blobs(repo, [sha for _, sha in [*old.values(), *new.values()]])
    parts: list[str] = []
    for path in sorted(paths):
        before = blobs.get(old[path][1], b"") if path in old else b""
        after = blobs.get(new[path][1], b"") if path in new else b""
        parts.append(_file_diff(path, before, after, path in old, path in new))
    data = "".join(parts).encode("utf-8")
    if len(data) <= _MAX_BYTES:
        return data.decode("utf-8")
    return data[:_MAX_BYTES].decode("utf-8", "ignore") + "\n… (cut at 512 KiB)\n"


def _file_diff(path: str, before: bytes, after: bytes, existed: bool, exists: bool) -> str:
    if b"\0" in before or b"\0" in after:
        return f"Binary file {path} differs\n"
    lines = difflib.unified_diff(
        before.decode("utf-8", "replace").splitlines(keepends=True),
        after.decode("utf-8", "replace").splitlines(keepends=True),
        fromfile=f"a/{path}" if existed else "/dev/null",
        tofile=f"b/{path}" if exists else "/dev/null",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
