"""The JSON report jest writes (`--json --outputFile`) and vitest's json reporter copies.

Ids are `file > describe > … > test`, the file relative to the check's directory, so a failing
test reads as the runner's own `-t` filter inside that file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from referee.tools.models.evidence import TestOutcome
from referee.tools.runners.base import relative_to
from referee.tools.runners.junit import trim_message
from referee.tools.runners.reports import json_document

__all__ = ["jest_json_reader"]

_STATUS: dict[str, Literal["passed", "failed", "skipped"]] = {
    "passed": "passed",
    "failed": "failed",
    "pending": "skipped",
    "skipped": "skipped",
    "todo": "skipped",
    "disabled": "skipped",
    "focused": "passed",
}


def jest_json_reader(cwd: Path) -> Callable[[bytes], list[TestOutcome]]:
    """A reader of jest-style JSON whose file names are shown relative to `cwd`."""
    return lambda data: parse_jest_json(data, cwd)


def parse_jest_json(data: bytes, cwd: Path) -> list[TestOutcome]:
    document = json_document(data)
    if not isinstance(document, dict) or not isinstance(document.get("testResults"), list):
        raise ValueError("no `testResults` list")
    outcomes: list[TestOutcome] = []
    for suite in document["testResults"]:
        if isinstance(suite, dict):
            outcomes.extend(_suite(suite, cwd))
    return outcomes


def _suite(suite: dict[str, Any], cwd: Path) -> list[TestOutcome]:
    file = relative_to(str(suite.get("name") or "?"), cwd)
    cases = [c for c in suite.get("assertionResults") or [] if isinstance(c, dict)]
    found = [_case(case, file) for case in cases]
    if not found and suite.get("status") == "failed":  # the file could not even run
        message = str(suite.get("message") or suite.get("failureMessage") or "")
        found.append(TestOutcome(name=file, outcome="error", message=trim_message(message)))
    return found


def _case(case: dict[str, Any], file: str) -> TestOutcome:
    titles = [str(t) for t in case.get("ancestorTitles") or [] if isinstance(t, str | int)]
    status = _STATUS.get(str(case.get("status")), "failed")
    messages = case.get("failureMessages") or []
    duration = case.get("duration")
    seconds = duration / 1000 if isinstance(duration, int | float) and 0 <= duration < 1e12 else 0
    return TestOutcome(
        name=" > ".join([file, *titles, str(case.get("title") or "?")]),
        outcome=status,
        duration_s=seconds,
        message=trim_message("\n".join(str(m) for m in messages if isinstance(m, str))),
    )
