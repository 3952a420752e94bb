"""New findings and old debt, at task scope.

A finding counts for the change when it lies in the lines the change touched, or when the same
finding did not exist at base: the same rule, file and enclosing symbol (function or class), not
the same line number, which moves whenever code above it changes. Everything else is a
*baseline* finding: shown, never counted. `test_existence` is about the change itself (a changed
file without a test), so it always counts; a near-duplicate counts when one of its two blocks
overlaps the changed lines, and only then.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from referee.tools.static.duplicates import other_side
from referee.tools.static.model import StaticFinding

__all__ = ["FILE_RULES", "Split", "split_findings"]

FILE_RULES = frozenset({"file_length", "todo_density"})
"""Rules about a whole file: matched by rule and file alone."""

_ALWAYS_NEW = frozenset({"test_existence"})
# Decided by the changed lines alone: a duplicate neither of whose blocks the change touched is old.
_BY_LINES = frozenset({"near_duplicates"})

SymbolAt = Callable[[str, int], str]
"""The enclosing symbol of a line of a file ('' at module level)."""


@dataclass(frozen=True)
class Split:
    new: list[StaticFinding]
    baseline: list[StaticFinding]


def split_findings(
    now: Sequence[StaticFinding],
    base: Sequence[StaticFinding],
    changed: Mapping[str, set[int] | None],
    symbol_now: SymbolAt,
    symbol_base: SymbolAt,
) -> Split:
    """Split the findings of the changed files into those of the change and the baseline.

    Args:
        now: Findings on the evaluated tree.
        base: Findings on the same files at base.
        changed: Per file, the changed lines (numbered as now); None for a file added since base.
            A file missing here is treated as added.
        symbol_now: The enclosing symbol of a line now.
        symbol_base: The enclosing symbol of a line at base.
    """
    left = Counter(_key(f, symbol_base) for f in base)
    new: list[StaticFinding] = []
    old: list[StaticFinding] = []
    for finding in now:
        if finding.rule in _ALWAYS_NEW or _touched(finding, changed):
            new.append(finding)
            continue
        if finding.rule in _BY_LINES:
            old.append(finding)
            continue
        key = _key(finding, symbol_now)
        if left[key] > 0:
            left[key] -= 1
            old.append(finding)
        else:
            new.append(finding)
    return Split(new=new, baseline=old)


def _touched(finding: StaticFinding, changed: Mapping[str, set[int] | None]) -> bool:
    if finding.rule != "near_duplicates":
        return _overlaps(changed, finding.path, finding.line, finding.line)
    end = finding.line + max(finding.value, 1) - 1
    if _overlaps(changed, finding.path, finding.line, end):
        return True
    other = other_side(finding.path, finding.message)
    return other is not None and other[0] in changed and _overlaps(changed, *other)


def _overlaps(changed: Mapping[str, set[int] | None], path: str, first: int, last: int) -> bool:
    lines = changed.get(path)
    return lines is None or any(n in lines for n in range(first, last + 1))


def _key(finding: StaticFinding, symbol: SymbolAt) -> tuple[str, str, str]:
    where = "" if finding.rule in FILE_RULES else symbol(finding.path, finding.line)
    return finding.rule, finding.path, where
