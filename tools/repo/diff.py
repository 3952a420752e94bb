"""The change an evaluation judged, as a unified diff: base against the evaluated tree.

Read from the verified objects (objects.py), never from the working tree, which may hold other
work by then: this is what the run's checks saw, for the judge to read.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from referee.tools.repo.objects import read_blobs, root_tree, tree_listing
from referee.tools.text import shown

__all__ = ["DiffLine", "FileChange", "change_diff", "change_files"]

_MAX_BYTES = 512 * 1024
_CONTEXT = 3


@dataclass(frozen=True)
class DiffLine:
    """One line of a hunk: kept (`" "`), removed (`"-"`) or added (`"+"`), with its numbers in
    the base file and in the evaluated one (None where the line is not in that side)."""

    kind: Literal[" ", "-", "+"]
    old: int | None
    new: int | None
    text: str


@dataclass(frozen=True)
class FileChange:
    """One changed file: its hunks' lines in order, a None between two hunks."""

    path: str
    existed: bool
    exists: bool
    binary: bool = False
    lines: list[DiffLine | None] = field(default_factory=list)


def change_diff(repo: Path, base: str | None, tree: str, paths: Sequence[str]) -> str:
    """A unified diff of `paths` from `base` (a commit, or None: every file new) to `tree`.

    Binary files are named, not shown; the text stops at 512 KiB, saying so.
    """
    parts = [
        _file_diff(path, before, after, existed, exists)
        for path, before, after, existed, exists in _contents(repo, base, tree, paths)
    ]
    data = "".join(parts).encode("utf-8")
    if len(data) <= _MAX_BYTES:
        return data.decode("utf-8")
    return data[:_MAX_BYTES].decode("utf-8", "ignore") + "\n… (cut at 512 KiB)\n"


def change_files(repo: Path, base: str | None, tree: str, paths: Sequence[str]) -> list[FileChange]:
    """The same change as `change_diff`, line by line with each side's line numbers, so a page
    can mark a line (not executed, a surviving mutant, a finding) where it stands."""
    return [
        _file_change(path, before, after, existed, exists)
        for path, before, after, existed, exists in _contents(repo, base, tree, paths)
    ]


def _contents(
    repo: Path, base: str | None, tree: str, paths: Sequence[str]
) -> list[tuple[str, bytes, bytes, bool, bool]]:
    """Each path's bytes at base and in the evaluated tree, read from verified objects."""
    old = tree_listing(repo, root_tree(repo, base), paths) if base else {}
    new = tree_listing(repo, tree, paths)
    blobs = read_blobs(repo, [sha for _, sha in [*old.values(), *new.values()]])
    return [
        (
            path,
            blobs.get(old[path][1], b"") if path in old else b"",
            blobs.get(new[path][1], b"") if path in new else b"",
            path in old,
            path in new,
        )
        for path in sorted(paths)
    ]


def _file_change(path: str, before: bytes, after: bytes, existed: bool, exists: bool) -> FileChange:
    if b"\0" in before or b"\0" in after:
        return FileChange(path, existed, exists, binary=True)
    a = before.decode("utf-8", "replace").splitlines()
    b = after.decode("utf-8", "replace").splitlines()
    lines: list[DiffLine | None] = []
    for group in difflib.SequenceMatcher(None, a, b).get_grouped_opcodes(_CONTEXT):
        if lines:
            lines.append(None)
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [DiffLine(" ", i + 1, j1 + i - i1 + 1, a[i]) for i in range(i1, i2)]
                continue
            lines += [DiffLine("-", i + 1, None, a[i]) for i in range(i1, i2)]
            lines += [DiffLine("+", None, j + 1, b[j]) for j in range(j1, j2)]
    return FileChange(path, existed, exists, lines=lines)


def _file_diff(path: str, before: bytes, after: bytes, existed: bool, exists: bool) -> str:
    # The name as text shows it (one line whatever it holds): the diff is read, never applied.
    name = shown(path)
    if b"\0" in before or b"\0" in after:
        return f"Binary file {name} differs\n"
    lines = difflib.unified_diff(
        before.decode("utf-8", "replace").splitlines(keepends=True),
        after.decode("utf-8", "replace").splitlines(keepends=True),
        fromfile=f"a/{name}" if existed else "/dev/null",
        tofile=f"b/{name}" if exists else "/dev/null",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
