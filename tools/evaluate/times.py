"""The changed files, newer than anything else in the tree, for every run of the evaluated tree.

make, ninja, cargo, tsc's build mode and most build tools take an output for up to date when it is
newer than its sources, and the file times are the player's: the generator can build from other
code into an ignored folder (`build/`, `target/`), then write the code that is evaluated with a
time in the past (or date the output ahead), and the check runs the stale output. So every run of
the evaluated tree sees the changed files through a layer of copies whose time is later than any
file's in the tree: whatever was built before, a build of them is out of date. The tree on disk
keeps its times.

That time is the one stamp of the evaluation: every file referee lays into any run (a view's,
a mutant's, a hold-out's, the changed files under the base's views) carries it, so no test tells
one run from another by its files' times (copied at once into one, written one by one into
another).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = ["dated", "fresh_stamp", "fresh_times"]

_SKIP = frozenset({".git"})


def fresh_stamp(trees: Sequence[Path]) -> float:
    """The one time every file referee lays into a run carries: now, or a second after the
    newest file of `trees` when one is dated ahead."""
    return max(time.time(), *(_newest(t) + 1 for t in trees))


def fresh_times(tree: Path, changed: Iterable[str], folder: Path, stamp: float) -> Path | None:
    """A folder of copies of the `changed` files of `tree` that exist as regular files, each
    dated `stamp` (None when there is none to copy)."""
    copied = False
    for rel in changed:
        source = tree / rel
        if source.is_symlink() or not source.is_file():
            continue
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        copied = True
    if not copied:
        return None
    dated(folder, stamp)
    return folder


def dated(folder: Path, stamp: float) -> None:
    """Date every file under `folder` `stamp`: a layer's files carry one time in every run, so
    no test tells one run from another by how its files' times differ (copied at once, written
    one by one)."""
    for root, _dirs, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                os.utime(path, (stamp, stamp))


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
