"""A report the check names itself (`junit`): JUnit XML, or jest's JSON, told apart by content."""

from __future__ import annotations

from pathlib import Path

from referee.tools.models.evidence import TestOutcome
from referee.tools.runners.base import Parse
from referee.tools.runners.js_report import parse_jest_json
from referee.tools.runners.junit import parse_junit_bytes

__all__ = ["parse_named_report"]


def parse_named_report(cwd: Path) -> Parse:
    """A reader for a report of either format (ids relative to `cwd`)."""

    def parse(data: bytes) -> list[TestOutcome]:
        if data.lstrip()[:1] == b"{":
            return parse_jest_json(data, cwd)
        return parse_junit_bytes(data)

    return parse
