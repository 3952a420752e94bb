"""Per-test outcomes from JUnit XML, and asking test runners to write it.

JUnit XML is what pytest, node's test runner and gotestsum write natively, so nothing has to be
installed into the evaluated project. The report is written by the
evaluated project's runner, so it is untrusted input: Python's bundled expat (>= 2.4.1) refuses
entity-expansion bombs, and external entities are never fetched by ElementTree.
"""

from __future__ import annotations

import os
import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from referee.tools.errors import RefereeError
from referee.tools.models.evidence import TestOutcome

__all__ = [
    "JunitError",
    "JunitPlan",
    "TestSummary",
    "parse_junit",
    "summarize_tests",
    "with_junit_reporter",
]

RAW_MESSAGE_LIMIT = 20_000
# Checked in this order: a test that failed and then errored in teardown is reported as failed.
_OUTCOME_TAGS: dict[str, Literal["failed", "error", "skipped"]] = {
    "failure": "failed",
    "error": "error",
    "skipped": "skipped",
}
_UNNAMED_SUITES = (None, "", "pytest")  # pytest's single suite adds nothing to a test's name
_PLAIN_CLASSNAMES = ("", "test")  # node writes classname="test" for every case
_PYTHON = re.compile(r"python(\d+(\.\d+)?)?$")
_WRAPPERS = {"uv", "poetry", "pipenv", "pdm", "rye", "hatch"}  # `<wrapper> run <command>`
_WRAPPER_VALUE_OPTIONS = {  # options of `uv run` & co. that take the next token as their value
    "--with",
    "--with-editable",
    "--with-requirements",
    "--python",
    "-p",
    "--extra",
    "--group",
    "--only-group",
    "--no-group",
    "--package",
    "--directory",
    "--project",
    "--env-file",
    "--index",
    "-e",
    "--env",
}


class JunitError(RefereeError):
    """A JUnit report that cannot be read: missing, empty, truncated or not JUnit."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path, self.reason = path, reason
        super().__init__(f"JUnit report {path}: {reason}")


@dataclass(frozen=True)
class JunitPlan:
    """How to run a command so that it writes a JUnit report."""

    argv: tuple[str, ...]
    report: Path
    runner: Literal["pytest", "node", "go"]
    env: Mapping[str, str] = field(default_factory=dict)


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


def parse_junit(path: Path) -> list[TestOutcome]:
    """Read every test case of a JUnit XML report, nested suites included.

    Args:
        path: The report written by pytest ``--junitxml``, node's junit reporter, gotestsum, etc.

    Returns:
        One outcome per test case, in document order; an empty list when no test ran.

    Raises:
        JunitError: The file is missing, empty, truncated, or not a JUnit report.
    """
    root = _read_root(path)
    if root.tag not in ("testsuites", "testsuite"):
        raise JunitError(path, f"not a JUnit report (root element <{root.tag}>)")
    outcomes: list[TestOutcome] = []
    _walk(root if root.tag == "testsuites" else [root], [], outcomes)
    return outcomes


def _read_root(path: Path) -> ET.Element:
    try:
        if path.stat().st_size == 0:
            raise JunitError(path, "the file is empty (the runner stopped before writing it)")
        return ET.parse(path).getroot()
    except FileNotFoundError:
        raise JunitError(
            path, "no report was written (the runner did not start, or crashed)"
        ) from None
    except ET.ParseError as exc:
        raise JunitError(path, f"truncated or not XML ({exc})") from None
    except OSError as exc:
        raise JunitError(path, f"cannot be read ({exc.strerror or exc})") from None


def _walk(parent: Iterable[ET.Element], suites: list[str], out: list[TestOutcome]) -> None:
    for child in parent:
        if child.tag == "testsuite":  # node nests describe() blocks as suites
            name = child.get("name")
            _walk(child, suites if name in _UNNAMED_SUITES else [*suites, str(name)], out)
        elif child.tag == "testcase":
            out.append(_outcome(child, suites))


def _outcome(case: ET.Element, suites: list[str]) -> TestOutcome:
    marker = next((sub for tag in _OUTCOME_TAGS for sub in case if sub.tag == tag), None)
    return TestOutcome(
        name=_case_name(case, suites),
        outcome="passed" if marker is None else _OUTCOME_TAGS[marker.tag],
        duration_s=_seconds(case.get("time")),
        message="" if marker is None else _message(marker),
    )


def _case_name(case: ET.Element, suites: list[str]) -> str:
    name, classname = case.get("name") or "?", case.get("classname") or ""
    if suites:
        return " > ".join([*suites, name])
    return name if classname in _PLAIN_CLASSNAMES else f"{classname}::{name}"


def _seconds(value: str | None) -> float:
    try:
        return max(0.0, float(value or 0))
    except ValueError:
        return 0.0


def _message(marker: ET.Element) -> str:
    # node glues message lines together ("wrong4 !== 5"); the element's text has them apart.
    summary, details = (marker.get("message") or "").strip(), (marker.text or "").strip()
    text = summary if not details or details == summary else f"{summary}\n{details}".strip()
    return text if len(text) <= RAW_MESSAGE_LIMIT else text[: RAW_MESSAGE_LIMIT - 1] + "…"


def summarize_tests(outcomes: Iterable[TestOutcome]) -> TestSummary:
    """Count outcomes.

    Args:
        outcomes: Parsed test outcomes.

    Returns:
        The counts and a line like '12 passed, 1 failed, 0 errors, 2 skipped'.
    """
    counts = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    for outcome in outcomes:
        counts[outcome.outcome] += 1
    text = (
        f"{counts['passed']} passed, {counts['failed']} failed, {counts['error']} errors, "
        f"{counts['skipped']} skipped"
    )
    return TestSummary(
        sum(counts.values()),
        counts["passed"],
        counts["failed"],
        counts["error"],
        counts["skipped"],
        text,
    )


def with_junit_reporter(
    argv: Sequence[str], report: Path, *, path: str | None = None
) -> JunitPlan | None:
    """Rewrite a test command so that it also writes a JUnit report.

    Recognised: pytest (``pytest``, ``py.test``, ``[/path/]python[3[.x]] -m pytest``, the same
    behind
    ``uv run``, ``poetry run``, ``pipenv run``, ``pdm run``, ``rye run``, ``hatch run``), ``node
    --test``
    (unless it already names a reporter) and ``go test`` when ``gotestsum`` is installed.

    Args:
        argv: The check's command.
        report: Where the report should be written.
        path: The PATH used to look for ``gotestsum`` (default: this process's PATH).

    Returns:
        The new argv, extra environment and report path, or None when the runner is not recognised
        (the check must then name its own ``junit`` path).
    """
    command = list(argv)
    start = _command_start(command)
    if _is_pytest(command[start:]):
        return _pytest_plan(command, report)
    if _is_node_test(command[start:]):
        return _node_plan(command, start, report)
    if _is_go_test(command[start:]):
        return _go_plan(command, start, report, path)
    return None


def _base(token: str) -> str:
    return os.path.basename(token)


def _command_start(argv: list[str]) -> int:
    """Index of the real command behind a `<wrapper> run [options]` prefix (0 without one)."""
    if len(argv) < 2 or _base(argv[0]) not in _WRAPPERS or argv[1] != "run":
        return 0
    index = 2
    while index < len(argv) and argv[index].startswith("-"):
        index += 2 if argv[index] in _WRAPPER_VALUE_OPTIONS else 1
    return index


def _is_pytest(command: list[str]) -> bool:
    if not command:
        return False
    if _base(command[0]) in ("pytest", "py.test"):
        return True
    if not _PYTHON.fullmatch(_base(command[0])):
        return False
    options = command[1:]
    module = options.index("-m") + 1 if "-m" in options else None
    return (
        module is not None
        and options[module : module + 1] == ["pytest"]
        and all(token.startswith("-") for token in options[: module - 1])
    )


def _pytest_plan(argv: list[str], report: Path) -> JunitPlan:
    # -p no:cacheprovider and no bytecode keep the evaluated tree as it was.
    return JunitPlan(
        argv=(*argv, f"--junitxml={report}", "-p", "no:cacheprovider"),
        report=report,
        runner="pytest",
        env={"PYTHONDONTWRITEBYTECODE": "1"},
    )


def _is_node_test(command: list[str]) -> bool:
    if not command or _base(command[0]) not in ("node", "nodejs") or "--test" not in command:
        return False
    # A command that picks its own reporters keeps them; the check must then name its junit path.
    return not any(token.startswith("--test-reporter") for token in command)


def _node_plan(argv: list[str], start: int, report: Path) -> JunitPlan:
    # Node reads options only before the first file name, so they go right after --test.
    at = argv.index("--test", start) + 1
    reporters = [
        "--test-reporter=spec",
        "--test-reporter-destination=stdout",
        "--test-reporter=junit",
        f"--test-reporter-destination={report}",
    ]
    return JunitPlan(argv=(*argv[:at], *reporters, *argv[at:]), report=report, runner="node")


def _is_go_test(command: list[str]) -> bool:
    return len(command) >= 2 and _base(command[0]) == "go" and command[1] == "test"


def _go_plan(argv: list[str], start: int, report: Path, path: str | None) -> JunitPlan | None:
    gotestsum = shutil.which("gotestsum", path=path)
    if gotestsum is None:
        return None
    rewritten = (*argv[:start], gotestsum, "--junitfile", str(report), "--", *argv[start + 2 :])
    return JunitPlan(argv=rewritten, report=report, runner="go")
