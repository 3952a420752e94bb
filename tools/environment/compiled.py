"""Compiled Python modules outside git that Python would import in place of the source.

Python prefers an extension module (`calc.cpython-311-x86_64-linux-gnu.so`) to `calc.py` in the
same folder, and imports a sourceless `calc.pyc` where no `calc.py` is left. Neither is in the tree
hash when git ignores it, so a broken `calc.py` could be judged by the tests against a planted
binary. Each such file is reported: one that stands where a tracked module is (or was), or one
written after the contract was created. (`__pycache__` needs nothing: a sandboxed run does not see
the tree's `__pycache__` folders beside its sources, and a run outside the sandbox gets a fresh
bytecode cache, `PYTHONPYCACHEPREFIX`.)
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Compiled", "compiled_modules"]

_SKIP = frozenset(
    {".git", ".referee", "node_modules", "__pycache__", ".tox", ".nox", ".mypy_cache"}
)
_SUFFIXES = (".so", ".pyd", ".pyc")


@dataclass(frozen=True)
class Compiled:
    path: str
    shadows: str | None  # the tracked module it stands for, if any


def compiled_modules(tree: Path, tracked: Collection[str], anchor: float | None) -> list[Compiled]:
    """Untracked compiled modules of the tree that shadow a tracked module or are new."""
    known = set(tracked)
    found: list[Compiled] = []
    for folder, dirs, files in os.walk(tree):
        here = Path(folder)
        dirs[:] = [d for d in dirs if d not in _SKIP and not (here / d / "pyvenv.cfg").exists()]
        rel = here.relative_to(tree)
        for name in files:
            if not name.endswith(_SUFFIXES):
                continue
            path = (rel / name).as_posix()
            if path in known:
                continue
            module = name.split(".")[0]
            shadows = _shadowed(rel, module, known)
            if shadows is None and not _new(here / name, anchor):
                continue
            found.append(Compiled(path, shadows))
    return found


def _shadowed(folder: Path, module: str, known: set[str]) -> str | None:
    for candidate in (folder / f"{module}.py", folder / module / "__init__.py"):
        text = candidate.as_posix()
        if text in known:
            return text
    return None


def _new(path: Path, anchor: float | None) -> bool:
    if anchor is None:
        return False
    try:
        return path.lstat().st_ctime > anchor
    except OSError:
        return False
