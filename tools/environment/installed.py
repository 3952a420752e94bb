"""Installed environments in the tree (virtualenvs, node_modules): changed since the contract?

What git ignores is the generator's too: a test runner's module in `node_modules`, a package in an
in-tree virtualenv, a `.pth` file in its site-packages all run inside every check, and none of it
is in the tree hash. Installers leave every file they write with an inode change time (ctime) of
the moment they wrote it, and no program can set a ctime back. So a file of an installed
environment whose ctime is later than the contract's creation was written while the generator
worked: by an install the generator ran (a new dependency: legitimate, for the judge to weigh) or
by an edit (a patched runner, a planted hook). Each package with such files is reported
(`environment_modified`, with the path), grouped so an honest install reads as one line.

Caches the runners write as they go (`__pycache__`, `node_modules/.cache`, `.vite` …) are left out:
in the sandbox every run gets a fresh bytecode cache and the overlay discards what it wrote.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Changed",
    "bytecode_after",
    "changed_environments",
    "environment_roots",
    "outside_environments",
    "written",
]

# (vite bundles its config into `node_modules/.vite-temp` and deletes the bundle when loaded.)
_CACHES = frozenset(
    {"__pycache__", ".cache", ".vite", ".vitest", ".temp", ".tmp", ".parcel-cache", ".vite-temp"}
)
_MAX_FILES = 400_000  # a walk this long stops, and says so
# Folders no environment lives in: git's objects (large to walk), referee's store, bytecode.
_NOT_ENVIRONMENTS = frozenset({".git", ".referee", "__pycache__"})


@dataclass(frozen=True)
class Changed:
    """A package of an installed environment with files written after the anchor."""

    path: str  # tree-relative, the package's folder (node_modules/x, .venv/lib/…/site-packages/y)
    files: int
    example: str
    truncated: bool = False


def environment_roots(tree: Path, depth: int = 2) -> list[Path]:
    """Installed environments of the tree: node_modules folders and virtualenvs (a folder with
    pyvenv.cfg), at most `depth` levels down, symlinked ones included."""
    found: list[Path] = []
    level = [tree]
    for _ in range(depth + 1):
        deeper: list[Path] = []
        for folder in level:
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                if not _is_dir(entry):
                    continue
                path = Path(entry.path)
                if entry.name == "node_modules" or (path / "pyvenv.cfg").is_file():
                    found.append(path)
                elif not entry.is_symlink() and entry.name not in _NOT_ENVIRONMENTS:
                    # Dot folders too: tox and nox keep their virtualenvs in `.tox/py`, `.nox/s`.
                    deeper.append(path)
        level = deeper
    return sorted(set(found))


def outside_environments(tree: Path, paths: list[str]) -> list[str]:
    """`paths` without what an installed environment in the tree holds (a virtualenv or
    node_modules git does not ignore): its package files are no part of a change to read, scan
    or judge; changed_environments watches them."""
    if not paths:
        return paths
    roots = tuple(f"{r.relative_to(tree).as_posix()}/" for r in environment_roots(tree))
    return [p for p in paths if not p.startswith(roots)] if roots else paths


def _is_dir(entry: os.DirEntry[str]) -> bool:
    # A symbolic link that points at itself (ELOOP) or into a folder referee may not enter is a
    # name of the player's like any other: not an environment, never an error.
    try:
        return entry.is_dir()
    except OSError:
        return False


def changed_environments(tree: Path, anchor: float) -> list[Changed]:
    """The packages of the tree's installed environments with files written after `anchor`
    (a POSIX time: the contract's creation), or a folder changed after it while nothing in it
    was: a package prepared earlier and renamed in (a rename sets the moved folder's ctime,
    never its files'), or a file taken out."""
    found: dict[str, list[str]] = {}
    truncated = False
    for root in environment_roots(tree):
        for path, package in written(root, anchor):
            if len(found) > _MAX_FILES:
                truncated = True
                break
            found.setdefault(_relative(tree, package), []).append(_relative(tree, path))
    return [
        Changed(path=p, files=len(files), example=files[0], truncated=truncated)
        for p, files in sorted(found.items())
    ]


def bytecode_after(tree: Path, anchor: float) -> str | None:
    """A compiled module (`.pyc`) of the tree's installed environments written after `anchor`,
    or None. A run imports installed bytecode whose header matches its source, so one written
    during the work (a planted module that patches the code, headed to look current) would decide
    what every run sees; while any is there, each run compiles afresh (evaluate/run.py)."""
    # node_modules too: a package may carry a Python environment of its own.
    for root in environment_roots(tree):
        for folder, entries in _folders(root):
            for entry in entries:
                if folder.name == "__pycache__" and not _is_dir(entry) and _ctime(entry) > anchor:
                    return str(Path(entry.path).relative_to(tree))
    return None


def _folders(
    root: Path, skip: frozenset[str] = frozenset()
) -> Iterator[tuple[Path, list[os.DirEntry[str]]]]:
    """Every folder below `root` (links not followed, none named in `skip`) with its entries."""
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        yield folder, entries
        stack.extend(
            Path(e.path) for e in entries if e.name not in skip and e.is_dir(follow_symlinks=False)
        )


def written(root: Path, anchor: float) -> Iterator[tuple[Path, Path]]:
    """Every file under an environment written after `anchor`, and every folder changed after
    it with no entry that was, each with the package folder it belongs to. A cache's folder
    counts as an entry (a `__pycache__` made beside a module changes its folder)."""
    for folder, entries in _folders(root, _CACHES):
        newer = False
        for entry in entries:
            ctime = _ctime(entry)
            newer = newer or ctime > anchor
            if entry.name in _CACHES or entry.is_dir(follow_symlinks=False):
                continue
            if ctime > anchor:
                yield Path(entry.path), _package_of(root, Path(entry.path))
        if folder != root and not newer and ctime_of(folder) > anchor:
            yield folder, _package_of(root, folder / "_")


def _ctime(entry: os.DirEntry[str]) -> float:
    try:
        return entry.stat(follow_symlinks=False).st_ctime
    except OSError:
        return 0.0


def ctime_of(path: Path) -> float:
    """A file's inode change time (0 when it cannot be read)."""
    try:
        return path.lstat().st_ctime
    except OSError:
        return 0.0


def _package_of(root: Path, path: Path) -> Path:
    """node_modules/pkg or node_modules/@scope/pkg; a virtualenv's site-packages/<top-level>."""
    parts = path.relative_to(root).parts
    if root.name == "node_modules":
        depth = 2 if parts and parts[0].startswith("@") else 1
        return root.joinpath(*parts[:depth]) if len(parts) > depth else root
    if "site-packages" in parts:
        at = parts.index("site-packages")
        name = parts[at + 1] if len(parts) > at + 1 else ""
        top = name.split(".dist-info")[0].split("-")[0] if name.endswith(".dist-info") else name
        return root.joinpath(*parts[: at + 1], top) if top else root.joinpath(*parts[: at + 1])
    return root.joinpath(*parts[:1]) if len(parts) > 1 else root


def _relative(tree: Path, path: Path) -> str:
    try:
        return path.relative_to(tree).as_posix()
    except ValueError:
        return str(path)
