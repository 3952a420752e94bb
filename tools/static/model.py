"""The static pipeline's value types: configuration, findings and the report."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

# Bump whenever a check's logic changes, so results cached by an older version are never reused.
CHECKS_VERSION = 6

CRITICAL, HIGH, MEDIUM, LOW = "CRITICAL", "HIGH", "MEDIUM", "LOW"
SEVERITY_RANK = {CRITICAL: 0, HIGH: 1, MEDIUM: 2, LOW: 3}


@dataclass(frozen=True)
class StaticConfig:
    """Thresholds of the static checks; a finding fires when a measure exceeds its maximum.

    `jobs` and `inline_bytes` tune execution only and are not part of `key()`.
    """

    max_file_lines: int = 800
    max_function_lines: int = 50
    max_nesting: int = 4
    max_cognitive: int = 15
    max_duplicate_lines: int = 6
    max_todos: int = 5
    max_file_bytes: int = 1_000_000
    jobs: int | None = None
    """Worker processes for per-file analysis; None means os.cpu_count()."""
    inline_bytes: int = 1_000_000
    """Below this many bytes to analyse, work stays in-process (no pool start-up cost)."""
    markers: bool = True
    """Whether a file's own markers (a generated banner, a minified shape or `.min.` name) spare
    it the code rules; off for the files a change wrote (pipeline.py)."""

    def key(self) -> str:
        """The part of the cache key that depends on the checks and their thresholds."""
        return (
            f"static-v{CHECKS_VERSION};file={self.max_file_lines};fn={self.max_function_lines};"
            f"nest={self.max_nesting};cog={self.max_cognitive};dup={self.max_duplicate_lines};"
            f"todo={self.max_todos};bytes={self.max_file_bytes}"
            + ("" if self.markers else ";markers=0")
        )


@dataclass(frozen=True)
class StaticFinding:
    """One violation of a static rule at a repository-relative posix path and 1-based line."""

    rule: str
    severity: str
    path: str
    line: int
    message: str
    value: int = 0
    """The measure behind it (lines, depth, score, count); a duplicate's value is its length."""

    @property
    def location(self) -> str:
        """`path:line`, the form scorecards and evaluations use."""
        return f"{self.path}:{self.line}"


@dataclass
class StaticReport:
    """The outcome of one pipeline run."""

    findings: list[StaticFinding] = field(default_factory=list)
    files_analysed: int = 0
    cache_hits: int = 0
    errors: list[str] = field(default_factory=list)
    duration_s: float = 0.0
    by_rule: dict[str, int] = field(default_factory=dict)
    excluded: dict[str, int] = field(default_factory=dict)
    """Files not analysed, per reason: build output, vendored, minified, generated, ignored."""


class Item(NamedTuple):
    """A finding before it has a path and a severity: what the per-file cache stores.

    `value` is the measure (lines, depth, score, count) that decides the severity.
    """

    rule: str
    line: int
    message: str
    value: int = 0


@dataclass
class Outcome:
    """What one analyser produced for one file content (cacheable: no path, no secret)."""

    items: list[Item] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    transient: bool = False
    """Says nothing about the content (e.g. the file could not be read): never cached."""
    skipped: str = ""
    """Why the content was not analysed at all (generated, minified, binary, too large)."""

    def to_data(self) -> dict[str, Any]:
        """A JSON-ready form (the cache and the worker protocol use it)."""
        data: dict[str, Any] = {"i": [list(item) for item in self.items], "e": self.errors}
        if self.transient:
            data["t"] = True
        if self.skipped:
            data["s"] = self.skipped
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Outcome:
        """The inverse of `to_data`."""
        return cls(
            items=[Item(*row) for row in data["i"]],
            errors=list(data["e"]),
            transient=bool(data.get("t")),
            skipped=str(data.get("s", "")),
        )
