"""Files outside git written since the contract was created: what a base run must not read.

A run of the base commit shows the base's tracked files at the repository's path over the working
tree, whose ignored files (an `.env.local`, a `dist/` build, a data file, a script the page loads)
stay in view, as in every run. Those are the generator's too: one written during the work, that
the base's code reads and the change's code does not, would make the base look like the change.
Installers, editors and build tools leave each file they write with an inode change time (ctime)
of that moment, which no program can set back, and a rename or a new hard link changes it too.
So every path outside git whose ctime is later than the contract's creation is left out of the
base run: a folder holding nothing of git's and itself changed since then as a whole (a rebuilt
`dist/`, a folder renamed into place), any other such file on its own.

Installed environments (node_modules, virtualenvs) are not walked: the environment check
(installed.py) reports each of their packages written since the contract was created, and a
package left out in part would break the base for an honest install. `__pycache__` folders are
not walked either: a sandboxed run does not read the tree's bytecode.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Written", "written_since"]

_SKIP = frozenset({".git", ".referee", "__pycache__"})
_ENVIRONMENTS = frozenset({"node_modules", ".venv", "venv", ".tox", "vendor"})
_MAX_ENTRIES = 400_000
_MAX_PATHS = 1000


@dataclass(frozen=True)
class Written:
    """What a base run leaves out (tree-relative paths, folders whole), or why it cannot tell."""

    paths: tuple[str, ...] = ()
    problem: str = ""


@dataclass
class _Walk:
    root: Path
    known: frozenset[str]
    known_dirs: frozenset[str]
    anchor: float
    found: list[str] = field(default_factory=list)
    seen: int = 0


def written_since(root: Path, known: Collection[str], anchor: float) -> Written:
    """The paths under `root` outside `known` (git's files, and paths kept apart already) whose
    ctime is later than `anchor`, folders whole where they can be.

    Args:
        root: The working tree's folder.
        known: Tree-relative paths of git's files (the evaluated and the base tree) and of paths
            the run already hides or keeps; none of them, nor a folder holding one, is left out.
        anchor: The contract's creation (POSIX time).
    """
    dirs = {posixpath.dirname(p) for p in known}
    ancestors = {a for d in dirs for a in _with_parents(d)}
    walk = _Walk(root, frozenset(known), frozenset(ancestors), anchor)
    if not _scan(walk, ""):
        return Written(
            problem=f"the working tree has more than {_MAX_ENTRIES} entries outside installed"
            " environments: which of its files outside git were written since the contract was"
            " created was not checked"
        )
    if len(walk.found) > _MAX_PATHS:
        return Written(
            problem=f"{len(walk.found)} paths outside git were written since the contract was"
            f" created (e.g. {', '.join(sorted(walk.found)[:3])}), more than the"
            f" {_MAX_PATHS} a base run can leave out"
        )
    return Written(tuple(sorted(walk.found)))


def _scan(walk: _Walk, rel: str) -> bool:
    """Walk one folder; False once the walk is too long to finish."""
    try:
        entries = list(os.scandir(walk.root / rel))
    except OSError:
        return True
    for entry in entries:
        walk.seen += 1
        if walk.seen > _MAX_ENTRIES:
            return False
        path = f"{rel}/{entry.name}" if rel else entry.name
        if entry.is_dir(follow_symlinks=False):
            if not _folder(walk, path, entry):
                return False
        elif path not in walk.known and _since(entry, walk.anchor):
            walk.found.append(path)
    return True


def _folder(walk: _Walk, path: str, entry: os.DirEntry[str]) -> bool:
    if entry.name in _SKIP or path in walk.known:
        return True
    if entry.name in _ENVIRONMENTS or os.path.exists(os.path.join(entry.path, "pyvenv.cfg")):
        return True
    if path not in walk.known_dirs and _since(entry, walk.anchor):
        walk.found.append(path)  # nothing of git's inside: left out whole
        return True
    return _scan(walk, path)


def _since(entry: os.DirEntry[str], anchor: float) -> bool:
    try:
        return entry.stat(follow_symlinks=False).st_ctime > anchor
    except OSError:
        return False


def _with_parents(folder: str) -> list[str]:
    parts = folder.split("/") if folder else []
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]
