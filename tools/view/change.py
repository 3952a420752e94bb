"""The change a run judged, on its run page: base against the evaluated tree, line by line, each
added line marked where the run said something about it (no test executed it, a mutant of it
survived, a static finding stands at it).

The diff is read from the repository's verified objects (tools/repo/diff.py), never from the
working tree, which may hold other work by now. The marks come only from the criteria the page's
audience may see: a hold-out's coverage would tell the generator which lines the hidden tests run.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from referee.tools.graders.mutation import describe
from referee.tools.models.evaluation import CriterionResult, Evaluation
from referee.tools.repo import BadObject, FileChange, GitError, change_files
from referee.tools.report.places import Places
from referee.tools.text import shown as shown_name
from referee.tools.text import unshown
from referee.tools.view.pages import ChangeLine, ChangeView, DiffFile

__all__ = ["change_view"]

MAX_LINES = 6000
"""Diff lines a page shows in all; past them the files are named with the count left out."""

_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")
_AT_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+)(?::\d+)?$")

Marks = dict[tuple[str, int], list[tuple[str, str]]]


def change_view(ev: Evaluation, shown: Iterable[CriterionResult], p: Places) -> ChangeView:
    """The run's change with its marks, or a note saying why it cannot be shown here."""
    target = ev.target
    if target.tree.startswith("dir:") or not target.changed_files:
        return ChangeView(
            note="no change to show: the run judged a folder, not a change since base"
        )
    try:
        paths = [unshown(p) for p in target.changed_files]
        # Named as the run names them (shown), which is how its marks and notes name them too.
        files = [
            replace(f, path=shown_name(f.path))
            for f in change_files(Path(target.repo), target.base, target.tree, paths)
        ]
    except (GitError, BadObject, OSError) as exc:
        note = f"the change cannot be shown: the repository's objects are not readable here ({exc})"
        return ChangeView(note=p.public(note))
    criteria = list(shown)
    marks = _marks(ev, criteria)
    coverage = _coverage_notes(criteria)
    budget, out = MAX_LINES, []
    for f in files:
        out.append(_file(f, marks, coverage.get(f.path, []), budget, p))
        budget -= len(out[-1].lines)
    return ChangeView(files=out)


def _file(f: FileChange, marks: Marks, coverage: list[str], budget: int, p: Places) -> DiffFile:
    state = "added" if not f.existed else "deleted" if not f.exists else "modified"
    if f.binary:
        return DiffFile(f.path, state, coverage, note="a binary file: not shown")
    if budget <= 0:
        return DiffFile(f.path, state, coverage, note=f"{len(f.lines)} diff lines not shown")
    lines = []
    for line in f.lines[:budget]:
        if line is None:
            lines.append(ChangeLine("…", None, None, "", []))
            continue
        here = marks.get((f.path, line.new), []) if line.kind == "+" and line.new else []
        lines.append(
            ChangeLine(
                line.kind, line.old, line.new, line.text, [(k, p.public(m)) for k, m in here]
            )
        )
    left = len(f.lines) - len(lines)
    return DiffFile(f.path, state, coverage, lines, note=f"{left} more diff lines" if left else "")


def _marks(ev: Evaluation, criteria: list[CriterionResult]) -> Marks:
    """What the run said about each line of the evaluated tree, by (path, line)."""
    marks: Marks = defaultdict(list)
    for c in criteria:
        found = c.adequacy.diff_coverage if c.adequacy else None
        for f in found.files if found else []:
            for line in _lines(f.uncovered):
                marks[(f.path, line)].append(("uncovered", f"not executed by {c.id}'s tests"))
        mutation = c.adequacy.mutation if c.adequacy else None
        for m in mutation.survived if mutation else []:
            at = _at(m.location)
            if at:
                marks[at].append(("mutant", f"{c.id}: the tests still pass when {describe(m)}"))
    for finding in ev.findings:
        at = _at(finding.location)
        if at:
            text = f"{finding.severity} [{finding.rule}] {finding.message}"
            marks[at].append(("finding", text))
    return marks


def _coverage_notes(criteria: list[CriterionResult]) -> dict[str, list[str]]:
    notes: dict[str, list[str]] = defaultdict(list)
    for c in criteria:
        found = c.adequacy.diff_coverage if c.adequacy else None
        for f in found.files if found else []:
            notes[f.path].append(f"{c.id}: {f.percent:g}% of {f.changed} changed statements run")
        for path in found.unmeasured if found else []:
            notes[path].append(f"{c.id}: not measured")
    return notes


def _lines(ranges: list[str]) -> Iterable[int]:
    for r in ranges:
        found = _RANGE.match(r.strip())
        if found:
            # Bounded: a range past what a page shows marks nothing more.
            start = int(found.group(1))
            yield from range(start, min(int(found.group(2) or start), start + MAX_LINES) + 1)


def _at(location: str) -> tuple[str, int] | None:
    found = _AT_LINE.match(location)
    return (found.group("path"), int(found.group("line"))) if found else None
