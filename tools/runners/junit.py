"""Per-test outcomes from JUnit XML, the format most runners write natively.

The report is written by the evaluated project's runner, so it is untrusted input: defusedxml
refuses any DTD (so no entity expansion and no external entity is ever fetched), and expat reads
in linear time. Size and time limits are applied by `reports`, which calls these readers in a
worker thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from xml.etree.ElementTree import Element, ParseError

import defusedxml
import defusedxml.ElementTree as DET

from referee.tools.errors import RefereeError
from referee.tools.models.evidence import TestOutcome
from referee.tools.text import strip_ansi

__all__ = [
    "RAW_MESSAGE_LIMIT",
    "RISKY",
    "CaseName",
    "JunitError",
    "TestSummary",
    "default_name",
    "junit_reader",
    "parse_junit",
    "parse_junit_bytes",
    "summarize_tests",
    "trim_message",
]

RAW_MESSAGE_LIMIT = 20_000
_CHUNK = 64 * 1024
# Checked in this order: a test that failed and then errored in teardown is reported as failed.
_OUTCOME_TAGS: dict[str, Literal["failed", "error", "skipped"]] = {
    "failure": "failed",
    "error": "error",
    "skipped": "skipped",
}
# PHPUnit (9 and before) reports a risky test, one that ran and proved nothing (no assertion, or
# output under beStrictAboutOutputDuringTests), as an <error> of these types, although it exits 0
# for it: neither a pass nor an error, it is read as skipped and named risky in the run's counts.
_RISKY_TYPES = frozenset({"PHPUnit\\Framework\\RiskyTestError", "PHPUnit\\Framework\\OutputError"})
RISKY = "risky: "
CRASHED = "crashed: "
"""The message prefix of an `error` outcome standing for a test process that died mid-run (a Go
test binary ended by a panic): the tests it had not reached yet never ran, and the run's summary
says so rather than counting only what did."""
"""How a risky test's message starts."""
_UNNAMED_SUITES = (None, "", "pytest")  # pytest's single suite adds nothing to a test's name
_PLAIN_CLASSNAMES = ("", "test")  # node writes classname="test" for every case

CaseName = Callable[[Element, list[str]], str]
"""A runner's test id from a <testcase> and the names of the suites around it."""


class JunitError(RefereeError):
    """A report that cannot be read: missing, empty, truncated, too large or not a report."""

    def __init__(self, path: Path | None, reason: str) -> None:
        self.path, self.reason = path, reason
        super().__init__(f"report {path}: {reason}" if path else f"report: {reason}")


@dataclass(frozen=True)
class TestSummary:
    """Counts of a test run and a one-line text such as '12 passed, 1 failed, 0 errors, 2
    skipped'."""

    __test__ = False  # not a pytest test class despite its name

    total: int
    passed: int
    failed: int
    errors: int
    skipped: int
    text: str

    @property
    def ok(self) -> bool:
        """At least one test passed and none failed or errored (zero tests is a failure)."""
        return self.passed > 0 and self.failed == 0 and self.errors == 0


def default_name(case: Element, suites: list[str]) -> str:
    """`suite > … > name` where suites are named (node's describe blocks), else
    `classname::name`."""
    name, classname = case.get("name") or "?", case.get("classname") or ""
    if suites:
        return " > ".join([*suites, name])
    return name if classname in _PLAIN_CLASSNAMES else f"{classname}::{name}"


def parse_junit(path: Path, name: CaseName = default_name) -> list[TestOutcome]:
    """Read every test case of a JUnit XML file (no size limit: for trusted callers and tests).

    Raises:
        JunitError: The file is missing, empty, truncated, or not a JUnit report.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise JunitError(
            path, "no report was written (the runner did not start, or crashed)"
        ) from None
    except OSError as exc:
        raise JunitError(path, f"cannot be read ({exc.strerror or exc})") from None
    try:
        return parse_junit_bytes(data, name)
    except JunitError as exc:
        raise JunitError(path, exc.reason) from None


def junit_reader(name: CaseName = default_name) -> Callable[[bytes], list[TestOutcome]]:
    """A report reader for JUnit XML whose test ids follow a runner's own syntax."""
    return lambda data: parse_junit_bytes(data, name)


def parse_junit_bytes(data: bytes, name: CaseName = default_name) -> list[TestOutcome]:
    """Every test case of a JUnit XML document, nested suites included, in document order.

    Raises:
        JunitError: Empty, truncated, a DTD or entity (refused), or not a JUnit report.
    """
    if not data.strip():
        raise JunitError(None, "the file is empty (the runner stopped before writing it)")
    try:
        root = _parse_in_chunks(data)
    except ParseError as exc:
        raise JunitError(None, f"truncated or not XML ({exc})") from None
    except defusedxml.DefusedXmlException as exc:
        raise JunitError(None, f"refused: the report declares a DTD or entities ({exc})") from None
    if root.tag not in ("testsuites", "testsuite"):
        raise JunitError(None, f"not a JUnit report (root element <{root.tag}>)")
    outcomes: list[TestOutcome] = []
    _walk(root if root.tag == "testsuites" else [root], outcomes, name)
    return outcomes


def _parse_in_chunks(data: bytes) -> Element:
    # expat holds the GIL for a whole `feed`: small chunks let the event loop's thread run while
    # a large report is parsed in a worker thread.
    parser = DET.DefusedXMLParser(forbid_dtd=True)
    for start in range(0, len(data), _CHUNK):
        parser.feed(data[start : start + _CHUNK])
    root: Element = parser.close()
    return root


def _walk(top: Iterable[Element], out: list[TestOutcome], name: CaseName) -> None:
    # Iterative, in document order: a hostile report may nest suites past the recursion limit.
    stack: list[tuple[Iterator[Element], list[str]]] = [(iter(top), [])]
    while stack:
        children, suites = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
        elif child.tag == "testsuite":  # node nests describe() blocks as suites
            label = child.get("name")
            stack.append(
                (iter(child), suites if label in _UNNAMED_SUITES else [*suites, str(label)])
            )
        elif child.tag == "testcase":
            out.append(_outcome(child, suites, name))


def _outcome(case: Element, suites: list[str], name: CaseName) -> TestOutcome:
    marker = next((sub for tag in _OUTCOME_TAGS for sub in case if sub.tag == tag), None)
    if marker is not None and marker.get("type") in _RISKY_TYPES:
        return TestOutcome(
            name=name(case, suites),
            outcome="skipped",
            duration_s=_seconds(case.get("time")),
            message=RISKY + _risk(_message(marker)),
        )
    return TestOutcome(
        name=name(case, suites),
        outcome="passed" if marker is None else _OUTCOME_TAGS[marker.tag],
        duration_s=_seconds(case.get("time")),
        message="" if marker is None else _message(marker),
    )


def _seconds(value: str | None) -> float:
    try:
        seconds = float(value or 0)
    except ValueError:
        return 0.0
    return seconds if 0 <= seconds < 1e9 else 0.0


def _risk(message: str) -> str:
    """PHPUnit's reason (`This test did not perform any assertions`), without the test's name
    and place around it."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return lines[1] if len(lines) > 1 else (lines[0] if lines else "risky")


def _message(marker: Element) -> str:
    # node glues message lines together ("wrong4 !== 5"); the element's text has them apart.
    summary, details = (marker.get("message") or "").strip(), (marker.text or "").strip()
    text = summary if not details or details == summary else f"{summary}\n{details}".strip()
    return trim_message(text)


def trim_message(text: str) -> str:
    """A failure message without terminal escape codes, cut to `RAW_MESSAGE_LIMIT` characters."""
    text = strip_ansi(text)
    return text if len(text) <= RAW_MESSAGE_LIMIT else text[: RAW_MESSAGE_LIMIT - 1] + "…"


def summarize_tests(outcomes: Iterable[TestOutcome]) -> TestSummary:
    """Count outcomes.

    Args:
        outcomes: Parsed test outcomes.

    Returns:
        The counts and a line like '12 passed, 1 failed, 0 errors, 2 skipped'.
    """
    counts = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    risky: list[TestOutcome] = []
    crashed: list[TestOutcome] = []
    for outcome in outcomes:
        counts[outcome.outcome] += 1
        if outcome.outcome == "skipped" and outcome.message.startswith(RISKY):
            risky.append(outcome)
        if outcome.outcome == "error" and outcome.message.startswith(CRASHED):
            crashed.append(outcome)
    text = (
        (
            f"{counts['passed']} passed, {counts['failed']} failed, {counts['error']} errors, "
            f"{counts['skipped']} skipped"
        )
        + _risky_text(risky)
        + _crashed_text(crashed)
    )
    return TestSummary(
        sum(counts.values()),
        counts["passed"],
        counts["failed"],
        counts["error"],
        counts["skipped"],
        text,
    )


_RISKY_SHOWN = 3


def _crashed_text(crashed: list[TestOutcome]) -> str:
    """`; example.com/pkg: the test binary panicked in TestX (…), its later tests never ran`."""
    said = [f"{t.name}: {t.message.removeprefix(CRASHED).splitlines()[0]}" for t in crashed]
    shown = "; ".join(said[:_RISKY_SHOWN])
    more = f" and {len(said) - _RISKY_SHOWN} more" if len(said) > _RISKY_SHOWN else ""
    return f"; {shown}{more}" if said else ""


def _risky_text(risky: list[TestOutcome]) -> str:
    """` (2 of them risky: A::testX, this test did not perform any assertions; …)`."""
    if not risky:
        return ""
    shown = "; ".join(f"{t.name}, {t.message.removeprefix(RISKY)}" for t in risky[:_RISKY_SHOWN])
    more = f" and {len(risky) - _RISKY_SHOWN} more" if len(risky) > _RISKY_SHOWN else ""
    return f" ({len(risky)} of them risky, ran and proved nothing: {shown}{more})"
