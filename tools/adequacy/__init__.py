"""Test adequacy: do the tests of a criterion execute the change, would they notice a bug in it,
and do they give the same answer every time?

lines        changed/covered line sets and the `12-14` ranges people read
instrument   which tool measures a test command: coverage.py (Python) or V8 (node)
coverage_py  Python diff coverage, in the criterion's own run: coverage.py (3.12+) or line probes
coverage_probes  the line probes: the changed statements of Python before 3.12, no tracer
coverage_v8  JavaScript diff coverage from node's V8 coverage, in the criterion's own run
mutants      mutants of the changed lines (Python with `ast`, JS/TS, Go, Rust, Java and PHP with
             tree-sitter), spread over the lines
flaky        per-test pass counts across repeated runs
"""

from referee.tools.adequacy.flaky import flaky_reason, flaky_tests, locate_test
from referee.tools.adequacy.instrument import (
    MEASURABLE,
    Instrumented,
    changed_statements,
    instrument,
    measure,
)
from referee.tools.adequacy.lines import FileLines, diff_coverage, parse_ranges, ranges
from referee.tools.adequacy.mutants import (
    Lines,
    MutantSpec,
    generate,
    mutable,
    read_source,
    spread,
)

__all__ = [
    "MEASURABLE",
    "FileLines",
    "Instrumented",
    "Lines",
    "MutantSpec",
    "changed_statements",
    "diff_coverage",
    "flaky_reason",
    "flaky_tests",
    "generate",
    "instrument",
    "locate_test",
    "measure",
    "mutable",
    "parse_ranges",
    "ranges",
    "read_source",
    "spread",
]
