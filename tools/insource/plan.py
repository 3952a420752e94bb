"""Which changed source files of an evaluation get their test blocks spliced into the base run,
read from the repository's verified objects (the pure work is splice.py's)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from referee.tools.insource.splice import Spliced, splice
from referee.tools.repo import blob_texts, tree_entry_map

__all__ = ["spliced_sources"]


def spliced_sources(
    repo: Path, base: str, evaluated: str, sources: list[str]
) -> dict[str, Spliced]:
    """Each changed source file, there at base and now, whose test blocks splice into its base
    version (a file new in the change has no base to splice into: it is the fix itself)."""
    return dict(_spliced(repo, base, evaluated, tuple(sorted(sources))))


# The base view and the grader both ask, for the same content-addressed trees.
@lru_cache(maxsize=16)
def _spliced(
    repo: Path, base: str, evaluated: str, sources: tuple[str, ...]
) -> tuple[tuple[str, Spliced], ...]:
    before = tree_entry_map(repo, base, sources)
    now = tree_entry_map(repo, evaluated, sources)
    both = [p for p in sources if p in before and p in now and before[p] != now[p]]
    texts = blob_texts(repo, [e[1] for p in both for e in (before[p], now[p])])
    found = []
    for path in both:
        made = splice(path, texts.get(before[path][1], ""), texts.get(now[path][1], ""))
        if made is not None:
            found.append((path, made))
    return tuple(found)
