"""The changed files, newer than anything else in the tree, for every run of the evaluated tree.

make, ninja, cargo, tsc's build mode and most build tools take an output for up to date when it is
newer than its sources, and the file times are the player's: the generator can build from other
code into an ignored folder (`build/`, `target/`), then write the code that is evaluated with a
time in the past (or date the output ahead), and the check runs the stale output. So every run of
the evaluated tree sees the changed files through a layer of copies whose time is later than any
file's in the tree: whatever was built before, a build of them is out of date. The tree on disk
keeps its times.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = ["fresh_times"]

_SKIP = frozenset({".git"})


def fresh_times(
    tree: Path, changed: Iterable[str], folder: Path, also: Sequence[Path] = ()
) -> Path | None:
    """A folder of copies of the `changed` files of `tree` that exist as regular files, each
    dated now, or a second after the newest file of the tree (and of the trees `also` names: the
    one a commit is shown over) when one is dated ahead (None when there is none to copy)."""
    copied: list[Path] = []
    for rel in changed:
        source = tree / rel
        if source.is_symlink() or not source.is_file():
            continue
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        copied.append(target)
    if not copied:
        return None
    stamp = max(time.time(), *(_newest(t) + 1 for t in {tree, *also}))
    for path in copied:
        os.utime(path, (stamp, stamp))
    return folder


def _newest(tree: Path) -> float:
    """The latest modification time of any file under `tree` (`.git` aside)."""
    newest, stack = 0.0, [tree]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            newest = max(newest, info.st_mtime)
            if entry.is_dir(follow_symlinks=False) and entry.name not in _SKIP:
                stack.append(Path(entry.path))
    return newest
