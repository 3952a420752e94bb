"""Which coverage tool measures a planned test command (coverage.py for pytest and unittest on
Python 3.12+, referee's line probes before, V8 for
node --test and mocha, jest's and vitest's own, the go command's `-coverprofile` for go test,
PHPUnit's clover report for phpunit), and reading what it wrote."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from referee.tools.adequacy.coverage_go import GO_SUFFIXES, instrument_go, measure_go
from referee.tools.adequacy.coverage_go import TOOL as GO_TOOL
from referee.tools.adequacy.coverage_istanbul import (
    TRANSFORMED_SUFFIXES,
    VITEST_TOOL,
    instrument_jest,
    instrument_vitest,
    measure_istanbul,
)
from referee.tools.adequacy.coverage_php import PHP_SUFFIXES, instrument_phpunit, measure_clover
from referee.tools.adequacy.coverage_php import TOOL as PHP_TOOL
from referee.tools.adequacy.coverage_py import (
    TOOL,
    changed_statements,
    instrument_python,
    measurable,
    measure_python,
    unavailable,
)
from referee.tools.adequacy.coverage_v8 import JS_SUFFIXES, instrument_node, measure_v8
from referee.tools.models.adequacy import DiffCoverage
from referee.tools.runners import Plan

__all__ = ["MEASURABLE", "Instrumented", "changed_statements", "instrument", "measure"]

MEASURABLE = (".py", *JS_SUFFIXES, *TRANSFORMED_SUFFIXES, *GO_SUFFIXES, *PHP_SUFFIXES)
_Kind = Literal["coverage.py", "v8", "istanbul", "vitest", "go", "clover"]
# The tool a note names when a run is not measured: its kind's own (see `Instrumented.note`).
_TOOLS: dict[_Kind, str] = {"go": GO_TOOL, "clover": PHP_TOOL}


@dataclass(frozen=True)
class Instrumented:
    """A plan that records the lines it executes: with what, into where, for which files."""

    plan: Plan
    data: Path
    kind: _Kind
    sources: tuple[str, ...]
    # Why this run is not measured though its runner could be (the tests run as written).
    note: str | None = None


def instrument(
    plan: Plan,
    reports: Path,
    sources: Sequence[str],
    path: str | None,
    where: tuple[Path, Path] | None = None,
    statements: Mapping[str, Sequence[int]] | None = None,
) -> Instrumented | None:
    """The plan measured by the tool of its runner's language (None: nothing to measure).

    `statements`: the changed statements' first lines per Python source (`changed_statements`).
    """
    if plan.inner is not None and (
        segment := instrument(plan.inner, reports, sources, path, where, statements)
    ):
        # `a && pytest …`: the runner's segment, whose report referee reads, is the one measured.
        return replace(segment, plan=plan.with_segment(segment.plan))
    python = measurable(sources)
    script = tuple(s for s in sources if s.endswith(JS_SUFFIXES))
    # jest and vitest transform what they run and map coverage back to it: TypeScript too.
    mapped = tuple(s for s in sources if s.endswith((*JS_SUFFIXES, *TRANSFORMED_SUFFIXES)))
    if python and (done := instrument_python(plan, reports, python, path, statements or {})):
        return Instrumented(done[0], done[1], "coverage.py", python)
    if script and (node := instrument_node(plan, reports)):
        return Instrumented(node[0], node[1], "v8", script)
    if mapped and (jest := instrument_jest(plan, reports)):
        return Instrumented(jest[0], jest[1], "istanbul", mapped)
    # `where` is (cwd, tree root): vitest measures only with a provider package installed there.
    if mapped and where and (vitest := instrument_vitest(plan, reports, *where)):
        return Instrumented(vitest[0], vitest[1], "vitest", mapped)
    go = tuple(s for s in sources if s.endswith(GO_SUFFIXES))
    if go and where and (done_go := instrument_go(plan, reports, go, *where)):
        if isinstance(done_go, str):
            return Instrumented(plan, reports / "go-cover.out", "go", go, note=done_go)
        return Instrumented(done_go[0], done_go[1], "go", go)
    php = tuple(s for s in sources if s.endswith(PHP_SUFFIXES))
    if php and where and (done_php := instrument_phpunit(plan, reports, php, *where, path)):
        if isinstance(done_php, str):
            return Instrumented(plan, reports / "phpunit-clover.xml", "clover", php, note=done_php)
        return Instrumented(done_php[0], done_php[1], "clover", php)
    return None


def measure(
    instrumented: Instrumented, tree: Path, changed: Mapping[str, set[int] | None]
) -> DiffCoverage | None:
    """What the run executed of its sources' changed lines (None: it wrote nothing)."""
    if instrumented.note:
        tool, note = _TOOLS[instrumented.kind], instrumented.note
        return DiffCoverage(tool=tool, unmeasured=list(instrumented.sources), note=note)
    if instrumented.kind == "coverage.py" and (why := unavailable(instrumented.data)):
        return DiffCoverage(tool=TOOL, unmeasured=list(instrumented.sources), note=why)
    if instrumented.kind == "coverage.py":
        return measure_python(instrumented.data, tree, changed, instrumented.sources)
    if not instrumented.data.exists():
        return None
    if instrumented.kind == "istanbul":
        return measure_istanbul(instrumented.data, tree, changed, instrumented.sources)
    if instrumented.kind == "vitest":
        data, sources = instrumented.data, instrumented.sources
        return measure_istanbul(data, tree, changed, sources, VITEST_TOOL)
    if instrumented.kind == "go":
        return measure_go(instrumented.data, tree, changed, instrumented.sources)
    if instrumented.kind == "clover":
        return measure_clover(instrumented.data, tree, changed, instrumented.sources)
    return measure_v8(instrumented.data, tree, changed, instrumented.sources)
