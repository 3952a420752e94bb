"""Flaky tests: the same test, the same tree, a different outcome from one run to the next."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from referee.tools.models.adequacy import FlakyTest
from referee.tools.models.evidence import TestOutcome

__all__ = ["flaky_reason", "flaky_tests", "locate_test"]

_FAILING = ("failed", "error")
_NAMED = 5


def flaky_tests(runs: Sequence[Sequence[TestOutcome]]) -> list[FlakyTest]:
    """Tests that passed in some runs and failed or errored in others.

    A test's count of runs is the runs in which it reached an outcome (skipped ones did not).
    """
    passed: dict[str, int] = {}
    failed: dict[str, int] = {}
    for outcomes in runs:
        for t in outcomes:
            if t.outcome == "passed":
                passed[t.name] = passed.get(t.name, 0) + 1
            elif t.outcome in _FAILING:
                failed[t.name] = failed.get(t.name, 0) + 1
    return [
        FlakyTest(test=name, passed=passed[name], runs=passed[name] + failed[name])
        for name in sorted(passed)
        if failed.get(name)
    ]


def flaky_reason(flaky: Sequence[FlakyTest]) -> str:
    named = "; ".join(f"{f.test} passed {f.passed} of {f.runs}" for f in flaky[:_NAMED])
    more = f" (and {len(flaky) - _NAMED} more)" if len(flaky) > _NAMED else ""
    return f"flaky: {named}{more}"


def locate_test(tree: Path, test_id: str) -> str | None:
    """`file:line` of a pytest id's test function (`tests/test_x.py::TestA::test_b[1]`)."""
    path, sep, rest = test_id.partition("::")
    if not sep or not path.endswith(".py"):
        return None
    name = rest.split("::")[-1].split("[")[0]
    try:
        text = (tree / path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    match = re.search(rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(name)}\b", text, re.MULTILINE)
    return f"{path}:{text.count(chr(10), 0, match.start()) + 1}" if match else None
