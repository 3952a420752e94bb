"""Which changed source files of an evaluation get their test blocks spliced into the base run,
read from the repository's verified objects (the pure work is splice.py's)."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from referee.tools.insource.splice import Spliced, splice
from referee.tools.repo import blob_texts, tree_entry_map
from referee.tools.static.paths import module_key

__all__ = ["spliced_sources"]


def spliced_sources(
    repo: Path, base: str, evaluated: str, sources: list[str], *, moved: bool = False
) -> dict[str, Spliced]:
    """Each changed source file, there at base and now, whose test blocks splice into its base
    version (a file new in the change has no base to splice into: it is the fix itself).

    Args:
        moved: Also pair a file only `base` has with the file only `evaluated` has that is the
            same module at another path (module_key), keyed by the `base` side's path.
    """
    return dict(_spliced(repo, base, evaluated, tuple(sorted(sources)), moved))


# The base view and the grader both ask, for the same content-addressed trees.
@lru_cache(maxsize=16)
def _spliced(
    repo: Path, base: str, evaluated: str, sources: tuple[str, ...], moved: bool
) -> tuple[tuple[str, Spliced], ...]:
    before = tree_entry_map(repo, base, sources)
    now = tree_entry_map(repo, evaluated, sources)
    pairs = {p: p for p in sources if p in before and p in now and before[p] != now[p]}
    if moved:
        pairs.update(_moved(list(before), list(now)))
    texts = blob_texts(repo, [e[1] for p, q in pairs.items() for e in (before[p], now[q])])
    found = []
    for path, other in sorted(pairs.items()):
        made = splice(path, texts.get(before[path][1], ""), texts.get(now[other][1], ""))
        if made is not None:
            found.append((path, made if other == path else replace(made, other=other)))
    return tuple(found)


def _moved(before: list[str], now: list[str]) -> dict[str, str]:
    """Files only one side has, paired when they are one module at two paths: moving `calc.py`
    to `calc/__init__.py` (or `ops.rs` to `ops/mod.rs`, `util.js` to `util/index.ts`) carries
    the tests inside it along, and a move must not shed the base's versions of them."""
    gone = [p for p in before if p not in now]
    new = [p for p in now if p not in before]
    found: dict[str, str] = {}
    for path in gone:
        key = module_key(path)
        same = [q for q in new if key is not None and module_key(q) == key]
        if len(same) == 1:
            found[path] = same[0]
    return found
