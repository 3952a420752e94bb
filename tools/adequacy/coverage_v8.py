"""JavaScript diff coverage from V8's own coverage, measured in the criterion's own run.

Node writes V8's precise coverage of every process it starts when `NODE_V8_COVERAGE` names a
folder (node's test runner forks one process per test file; each writes its own file). Only
commands where node runs the sources as they are on disk are measured (`node --test`, mocha, and
package.json scripts leading to them): jest and vitest transform the code first, so V8's offsets
would not be the file's. A line counts as executed when the innermost V8 range holding its first
character ran at least once; lines holding only punctuation or comments are not statements.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from urllib.parse import unquote, urlsplit

from referee.tools.adequacy.lines import FileLines, diff_coverage
from referee.tools.models.adequacy import DiffCoverage
from referee.tools.runners import Plan

__all__ = ["JS_SUFFIXES", "V8_RUNNERS", "instrument_node", "measure_v8", "statement_lines"]

JS_SUFFIXES = (".js", ".mjs", ".cjs")
V8_RUNNERS = frozenset({"node", "mocha"})
TOOL = "V8 coverage (NODE_V8_COVERAGE)"
_DATA_LIMIT = 64 * 1024 * 1024  # written by the code under test: read only this much
_PUNCTUATION = re.compile(r"^[\s{}()\[\];,]*$")
_Range = tuple[int, int, int]


def instrument_node(plan: Plan, reports: Path) -> tuple[Plan, Path] | None:
    """The plan with V8 coverage switched on, and the folder node writes it to."""
    if plan.runner not in V8_RUNNERS:
        return None
    folder = reports / "v8-coverage"
    folder.mkdir(exist_ok=True)
    return replace(plan, env={**plan.env, "NODE_V8_COVERAGE": str(folder)}), folder


def measure_v8(
    folder: Path, tree: Path, changed: Mapping[str, set[int] | None], sources: Sequence[str]
) -> DiffCoverage:
    """The changed statements of `sources` (tree-relative JS files) that the run executed."""
    ranges = _ranges(folder, sources)
    found, unmeasured = [], []
    for rel in sources:
        try:
            text = (tree / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            unmeasured.append(rel)
            continue
        starts, statements = _statements(text)
        wanted = changed.get(rel)
        targets = statements if wanted is None else statements & wanted
        executed = {n for n in targets if _ran(ranges.get(rel, []), starts[n - 1])}
        found.append(FileLines(rel, targets, executed))
    return diff_coverage(TOOL, found, unmeasured)


def _ranges(folder: Path, sources: Sequence[str]) -> dict[str, list[list[_Range]]]:
    """Per source file, the ranges of each script V8 saw for it (one per process)."""
    out: dict[str, list[list[_Range]]] = {}
    for path in sorted(folder.glob("coverage-*.json")):
        for script in _scripts(path):
            rel = _source_of(str(script.get("url", "")), sources)
            if rel is not None:
                out.setdefault(rel, []).append(list(_script_ranges(script)))
    return out


def _scripts(path: Path) -> list[dict[str, object]]:
    try:
        if path.stat().st_size > _DATA_LIMIT:
            return []
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    result = data.get("result") if isinstance(data, dict) else None
    return [s for s in result if isinstance(s, dict)] if isinstance(result, list) else []


def _source_of(url: str, sources: Sequence[str]) -> str | None:
    path = unquote(urlsplit(url).path) if url.startswith("file:") else url
    return next((rel for rel in sources if path.endswith("/" + rel)), None)


def _script_ranges(script: Mapping[str, object]) -> Iterable[_Range]:
    functions = script.get("functions")
    for function in functions if isinstance(functions, list) else []:
        for r in function.get("ranges", []) if isinstance(function, dict) else []:
            if isinstance(r, dict):
                yield (
                    int(r.get("startOffset", 0)),
                    int(r.get("endOffset", 0)),
                    int(r.get("count", 0)),
                )


def _ran(scripts: list[list[_Range]], offset: int) -> bool:
    """Whether any process ran the innermost range holding `offset`."""
    for ranges in scripts:
        holding = [r for r in ranges if r[0] <= offset < r[1]]
        if holding and min(holding, key=lambda r: r[1] - r[0])[2] > 0:
            return True
    return False


def _statements(text: str) -> tuple[list[int], set[int]]:
    """Each line's offset of its first non-blank character, and the lines that are statements."""
    starts, statements, offset, comment = [], set(), 0, False
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        stripped = line.strip()
        starts.append(offset + len(line) - len(line.lstrip()))
        offset += len(line)
        if comment:
            comment = "*/" not in stripped
            continue
        if stripped.startswith("/*"):
            comment = "*/" not in stripped
            continue
        if stripped and not stripped.startswith("//") and not _PUNCTUATION.match(stripped):
            statements.add(number)
    return starts, statements


def statement_lines(text: str) -> set[int]:
    """The lines of a JS file that hold code (not blank, a comment or lone punctuation)."""
    return _statements(text)[1]
