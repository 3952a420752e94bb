"""JavaScript diff coverage from jest's built-in coverage (babel-plugin-istanbul, shipped with
jest), measured in the criterion's own run.

jest transforms the code it runs, so V8's offsets would not be the file's; its own coverage maps
statements back to the source. referee asks for the JSON reporter only, into the check's report
folder, with no threshold of the project's (a coverage threshold would fail a run referee asked
to measure, not the tests).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from referee.tools.adequacy.coverage_v8 import statement_lines
from referee.tools.adequacy.lines import FileLines, diff_coverage
from referee.tools.models.adequacy import DiffCoverage
from referee.tools.runners import Plan

__all__ = ["instrument_jest", "measure_istanbul"]

TOOL = "jest coverage (istanbul)"
_DATA_LIMIT = 64 * 1024 * 1024  # written by the code under test: read only this much


def instrument_jest(plan: Plan, reports: Path) -> tuple[Plan, Path] | None:
    """The jest plan with its coverage switched on, and the JSON file it will write."""
    if plan.runner != "jest" or plan.shell or any(a.startswith("--coverage") for a in plan.argv):
        return None
    folder = reports / "jest-coverage"
    extra = (
        "--coverage",
        "--coverageReporters=json",
        f"--coverageDirectory={folder}",
        "--coverageThreshold={}",
    )
    return replace(plan, argv=(*plan.argv, *extra)), folder / "coverage-final.json"


def measure_istanbul(
    data_file: Path, tree: Path, changed: Mapping[str, set[int] | None], sources: Sequence[str]
) -> DiffCoverage:
    """The changed statements of `sources` that the run executed (statements as istanbul maps
    them: a line holds a statement when one starts on it)."""
    files = _files(data_file)
    found = []
    for rel in sources:
        entry = next((v for k, v in files.items() if k.endswith("/" + rel)), None)
        statements, executed = _lines(entry) if entry else (_unloaded(tree / rel), set())
        wanted = changed.get(rel)
        targets = statements if wanted is None else statements & wanted
        found.append(FileLines(rel, targets, executed & targets))
    return diff_coverage(TOOL, found, [])


def _files(data_file: Path) -> dict[str, dict[str, object]]:
    try:
        if data_file.stat().st_size > _DATA_LIMIT:
            return {}
        data = json.loads(data_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)}


def _lines(entry: Mapping[str, object]) -> tuple[set[int], set[int]]:
    statements, executed = set(), set()
    spans, counts = entry.get("statementMap"), entry.get("s")
    if not isinstance(spans, dict) or not isinstance(counts, dict):
        return set(), set()
    for key, span in spans.items():
        start = span.get("start") if isinstance(span, dict) else None
        line = start.get("line") if isinstance(start, dict) else None
        if isinstance(line, int):
            statements.add(line)
            if isinstance(counts.get(key), int) and counts[key] > 0:
                executed.add(line)
    return statements, executed


def _unloaded(path: Path) -> set[int]:
    """A file no test loaded: jest mapped none of its statements, so every non-blank line that is
    not a comment or lone punctuation stands for one."""
    try:
        return statement_lines(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return set()
