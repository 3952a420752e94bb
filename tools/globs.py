"""The one glob dialect referee reads paths with: git's, as `.gitignore` lines are read.

A contract's `scope.in_scope`, a static check's `paths` and their `!` exclusions all match
repository paths the way git users already know (through `pathspec`, the library pip and black
use for the same job): `*` stops at `/`, `**` crosses folders, a pattern without a `/` (other than
a trailing one) matches at any depth (`*.py`, `node_modules`), a pattern with one is anchored at
the repository's top (`src/*.py` is `src/a.py`, not `src/pkg/a.py`; `src/**/*.py` is both), and a
folder's name matches everything under it (`src`, `src/`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pathspec import GitIgnoreSpec

__all__ = ["Globs", "path_filter"]


class Globs:
    """Patterns compiled once; an entry that is no valid pattern (prose, a broken bracket)
    matches nothing."""

    def __init__(self, patterns: Iterable[str]) -> None:
        lines = [p.strip() for p in patterns if p.strip() and not p.strip().startswith("#")]
        self._spec = GitIgnoreSpec.from_lines(lines)
        self.empty = not lines

    def match(self, path: str) -> bool:
        return bool(self._spec.match_file(path))


def path_filter(patterns: Sequence[str]) -> tuple[Globs, Globs]:
    """Included and excluded (`!…`) patterns apart: an exclusion always wins, whatever its
    place in the list, and a list of exclusions only keeps every other path."""
    included = Globs(p for p in patterns if not p.lstrip().startswith("!"))
    excluded = Globs(p.lstrip()[1:] for p in patterns if p.lstrip().startswith("!"))
    return included, excluded
