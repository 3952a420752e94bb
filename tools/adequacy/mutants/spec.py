"""What a mutant is (one splice of one file), which lines to make them on, and how many to run."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

__all__ = ["Lines", "MutantSpec", "in_order", "read_source", "spread"]


@dataclass(frozen=True)
class Lines:
    """The lines of a file to mutate: `wanted` (None: every line) except `excluded`."""

    wanted: set[int] | None = None
    excluded: frozenset[int] = frozenset()

    def __contains__(self, line: object) -> bool:
        return line not in self.excluded and (self.wanted is None or line in self.wanted)

    def meets(self, first: int, last: int) -> bool:
        """Whether any wanted line lies in `first..last` (a subtree worth walking)."""
        if self.wanted is None:
            return True
        at = bisect.bisect_left(self._sorted, first)
        return at < len(self._sorted) and self._sorted[at] <= last

    @cached_property
    def _sorted(self) -> list[int]:
        # Asked once per node of a large file: a search, not a scan of every wanted line.
        return sorted(self.wanted - self.excluded) if self.wanted is not None else []


@dataclass(frozen=True)
class MutantSpec:
    """One mutation: bytes `start:end` of the file (`original`) become `replacement`."""

    path: str
    line: int
    start: int
    end: int
    original: str
    replacement: str
    operator: str

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"

    def apply(self, source: bytes) -> bytes:
        return source[: self.start] + self.replacement.encode("utf-8") + source[self.end :]


def in_order(found: Iterable[MutantSpec]) -> list[MutantSpec]:
    """Source order, each distinct edit once. Where two operators make the same edit (`return
    true` → `return false` is both a constant and a return value), the one made first is kept:
    the more specific operator, since generators yield it before `return value`."""
    made = list(found)
    kept: dict[tuple[int, int, str], int] = {}
    for rank, m in enumerate(made):
        key = (m.start, m.end, m.replacement)
        if key not in kept or made[kept[key]].operator == "return value":
            kept[key] = rank
    return [made[r] for r in sorted(kept.values(), key=lambda r: (made[r].line, made[r].start, r))]


def spread(found: Mapping[str, Sequence[MutantSpec]], limit: int) -> list[MutantSpec]:
    """At most `limit` mutants, spread over the changed lines: one per line per round."""
    by_line: dict[tuple[str, int], list[MutantSpec]] = {}
    for path in sorted(found):
        for m in found[path]:
            by_line.setdefault((path, m.line), []).append(m)
    queues = [by_line[k] for k in sorted(by_line)]
    chosen: list[MutantSpec] = []
    while queues and len(chosen) < limit:
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
        queues = [q for q in queues if q]
    return chosen


def read_source(tree: Path, path: str) -> bytes | None:
    try:
        return (tree / path).read_bytes()
    except OSError:
        return None
