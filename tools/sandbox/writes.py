"""What a sandboxed command wrote into its tree, read from its overlay's upper layer.

overlayfs copies a file up on its first write, whatever its final content, so a tracked file that
a test rewrote and then restored is listed like any other write. A deletion leaves a whiteout (a
0:0 character device); a folder replaced as a whole carries the `user.overlay.opaque` attribute.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Collection
from pathlib import Path

__all__ = ["Writes", "read_upper"]

_OPAQUE = "user.overlay.opaque"


def read_upper(upper: Path, planted: Collection[str] = ()) -> set[str]:
    """Tree-relative posix paths written, created or deleted by the command (folders excluded).

    `planted` are the whiteouts referee made itself before the command (harness files hidden for
    the base-harness run): while they are still whiteouts, they are no write of the command's.
    """
    found: set[str] = set()
    for dirpath, _dirnames, filenames in os.walk(upper):
        rel = Path(dirpath).relative_to(upper)
        if rel != Path(".") and _opaque(Path(dirpath)):
            found.add(rel.as_posix() + "/")
        # os.walk lists whiteouts (character devices) among the files: a deleted file or folder.
        found.update((rel / name).as_posix() for name in filenames)
    return {p for p in found if p not in planted or not _whiteout(upper / p)}


def _whiteout(path: Path) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    return stat.S_ISCHR(info.st_mode) and info.st_rdev == 0


def _opaque(folder: Path) -> bool:
    try:
        return _OPAQUE in os.listxattr(folder)
    except OSError:
        return False


class Writes:
    """Writes per tree, gathered from every sandboxed command of one evaluation (thread-safe).

    A hold-out criterion's runs are kept apart (`holdout_of`): code under test can read the
    hold-out while it is laid over the tree and spell it in the names of the files it writes, so
    those names are the evaluator's only, never part of what the tree reports (`of`).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_tree: dict[tuple[Path, bool], set[str]] = {}

    def add(self, tree: Path, paths: set[str], *, holdout: bool = False) -> None:
        with self._lock:
            self._by_tree.setdefault((tree.resolve(), holdout), set()).update(paths)

    def of(self, tree: Path) -> list[str]:
        """What the ordinary runs wrote into `tree`."""
        return self._get(tree, holdout=False)

    def holdout_of(self, tree: Path) -> list[str]:
        """What hold-out runs wrote into `tree` and no ordinary run did."""
        return sorted(set(self._get(tree, holdout=True)) - set(self.of(tree)))

    def _get(self, tree: Path, *, holdout: bool) -> list[str]:
        with self._lock:
            return sorted(self._by_tree.get((tree.resolve(), holdout), set()))
