"""JavaScript diff coverage from the runners' own coverage, measured in the criterion's own run:
jest's (babel-plugin-istanbul, shipped with jest) and vitest's (its provider package,
@vitest/coverage-v8 or -istanbul, when the project has one installed).

Both transform the code they run, so V8's offsets would not be the file's; their coverage maps
statements back to the source, in istanbul's JSON. referee asks for the JSON reporter only, into
the check's report folder, with no threshold of the project's (a coverage threshold would fail a
run referee asked to measure, not the tests). vitest without a provider package would stop to ask
for one, so such a project is left unmeasured.
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

__all__ = ["TRANSFORMED_SUFFIXES", "instrument_jest", "instrument_vitest", "measure_istanbul"]

# Sources only a transforming runner runs (and maps its coverage back to): TypeScript and JSX.
TRANSFORMED_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".jsx")

TOOL = "jest coverage (istanbul)"
VITEST_TOOL = "vitest coverage"
_PROVIDERS = ("v8", "istanbul")
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


def instrument_vitest(plan: Plan, reports: Path, cwd: Path, root: Path) -> tuple[Plan, Path] | None:
    """The vitest plan with its coverage on (the provider the project has), and its JSON file."""
    if plan.runner != "vitest" or plan.shell or any("--coverage" in a for a in plan.argv):
        return None
    provider = _vitest_provider(cwd, root)
    if provider is None:
        return None
    folder = reports / "vitest-coverage"
    extra = (
        "--coverage.enabled=true",
        f"--coverage.provider={provider}",
        "--coverage.reporter=json",
        f"--coverage.reportsDirectory={folder}",
        # vitest writes no report when a test fails unless told to: a wrong fix is measured too.
        "--coverage.reportOnFailure=true",
        *(f"--coverage.thresholds.{k}=0" for k in ("lines", "functions", "branches", "statements")),
    )
    return replace(plan, argv=(*plan.argv, *extra)), folder / "coverage-final.json"


def _vitest_provider(cwd: Path, root: Path) -> str | None:
    """The coverage provider installed where vitest resolves packages (cwd up to the tree)."""
    for folder in (cwd, *cwd.parents):
        for name in _PROVIDERS:
            if (
                folder / "node_modules" / "@vitest" / f"coverage-{name}" / "package.json"
            ).is_file():
                return name
        if folder == root:
            break
    return None


def measure_istanbul(
    data_file: Path,
    tree: Path,
    changed: Mapping[str, set[int] | None],
    sources: Sequence[str],
    tool: str = TOOL,
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
    return diff_coverage(tool, found, [])


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
