"""Changed lines, covered lines and the ranges a person reads (`12-14, 20`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from referee.tools.models.adequacy import DiffCoverage, FileDiffCoverage

__all__ = ["FileLines", "diff_coverage", "parse_ranges", "ranges"]


@dataclass(frozen=True)
class FileLines:
    """One file's changed statements and the lines the tests executed."""

    path: str
    changed: set[int]
    executed: set[int]


def ranges(uncovered: Iterable[int], statements: Iterable[int]) -> list[str]:
    """Runs of uncovered lines, broken only by a statement that was covered.

    A comment or a blank line between two uncovered statements does not split them: `5-7` reads
    better than `5, 7` when line 6 is a comment.
    """
    missing = set(uncovered)
    out: list[str] = []
    start = end = None
    for line in sorted(set(statements) | missing):
        if line in missing:
            start, end = (line if start is None else start), line
            continue
        if start is not None:
            out.append(_span(start, end or start))
            start = end = None
    if start is not None:
        out.append(_span(start, end or start))
    return out


def _span(start: int, end: int) -> str:
    return str(start) if start == end else f"{start}-{end}"


def parse_ranges(spans: Sequence[str]) -> set[int]:
    """The lines of `ranges`' output."""
    lines: set[int] = set()
    for span in spans:
        first, _, last = span.partition("-")
        lines.update(range(int(first), int(last or first) + 1))
    return lines


def _percent(covered: int, changed: int) -> float:
    return round(100.0 * covered / changed, 1) if changed else 100.0


def diff_coverage(tool: str, found: Sequence[FileLines], unmeasured: Sequence[str]) -> DiffCoverage:
    """Per-file and overall diff coverage; files without changed statements are left out."""
    files = []
    for f in found:
        if not f.changed:
            continue
        hit = f.changed & f.executed
        files.append(
            FileDiffCoverage(
                path=f.path,
                changed=len(f.changed),
                covered=len(hit),
                uncovered=ranges(f.changed - hit, f.changed),
                percent=_percent(len(hit), len(f.changed)),
            )
        )
    changed = sum(f.changed for f in files)
    covered = sum(f.covered for f in files)
    return DiffCoverage(
        tool=tool,
        percent=_percent(covered, changed) if changed else None,
        changed=changed,
        covered=covered,
        files=files,
        unmeasured=list(unmeasured),
    )
