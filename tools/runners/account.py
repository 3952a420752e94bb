"""A test binary's own account of its run, for `go test` and `cargo test`.

The result lines of go test and libtest are printed by the test process, so a test can print
them too, and end the process before the real ones come. Each test binary therefore runs under a
small wrapper of referee's (package data: `go_exec.sh` as `go test -exec`, `cargo_runner.sh` as
cargo's target runner) that asks the runner for a mark only its own, completed run leaves, and
prints after the binary has exited one line on the same output stream:

    referee-account go STATUS DONE            DONE: 1 the testing package's M.Run completed
                                              (its -test.memprofile was written), 0 not, - unknown
    referee-account libtest STATUS LISTED LOG  LISTED: tests libtest listed (- for a merged
                                              doc-test binary: its `running N tests` counts);
                                              LOG: its --logfile
    referee-account doc|harness STATUS        a doc-test program rustdoc judges itself, a custom
                                              harness: nothing to ask

A test can print such lines too, but it cannot stop the wrapper's true line, which comes after the
binary's exit: so a bad line anywhere condemns the run, and a good one only counts where nothing
contradicts it. What in-process code does with full knowledge of the wrapper (writing the mark
itself) is detected by the claims reader, not prevented here.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from functools import partial
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

from referee.tools.runners.base import Account

__all__ = [
    "DOC_TESTS",
    "RESULT",
    "RUNNING",
    "account_env",
    "go_bypassed",
    "go_event",
    "is_account",
    "libtest_account",
    "libtest_bypassed",
    "wrapper",
]

_FOLDER = "account"
_LINE = re.compile(r"referee-account (go|libtest|doc|harness) (\S+)(?: (\S+))?(?: (\S+))?")
_LOG_NAME = re.compile(r"libtest\.[A-Za-z0-9]{6,32}")
_LOG_LIMIT = 4 * 1024 * 1024
_RUNNING_TESTS = re.compile(r"running (\d+) tests?")
_MAX_LINE = 4096

# libtest names a test, then what it expects of it (` - should panic`, a doc test's
# ` - compile fail`), which its log leaves out.
RESULT = re.compile(
    r"test (\S(?:.*?\S)?)(?: - (?:should panic|compile fail|compile))? \.\.\."
    r" (ok|FAILED|ignored(?:, .*)?)"
)
RUNNING = re.compile(r"\s*Running (?:unittests )?(\S+)(?: \([^)]*\))?")
DOC_TESTS = re.compile(r"\s*Doc-tests \S+")


def is_account(text: str) -> bool:
    """A wrapper's account line (kept out of a test's failure message)."""
    return _LINE.fullmatch(text.strip()) is not None


def account_env(reports: Path) -> dict[str, str]:
    """The folder the wrappers write their marks and logs into (inside the run's reports)."""
    folder = reports / _FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    return {"REFEREE_ACCOUNT": str(folder)}


def wrapper(name: str, reports: Path) -> str:
    """A copy of a wrapper script of referee's package in the run's reports folder, as the pytest
    guard plugin is: the package itself may live where the sandbox shows nothing of the host (a
    checkout under /tmp, whose /tmp is the sandbox's own), and cargo splits its runner setting on
    spaces, which a package path may hold."""
    with as_file(files("referee.tools.runners").joinpath(name)) as path:
        copy = reports / _FOLDER / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)
        return str(copy)


# --- go test ------------------------------------------------------------------------------


@dataclass
class _Package:
    accounts: list[tuple[str, str]] = field(default_factory=list)
    ends: dict[str, list[str]] = field(default_factory=dict)


def go_bypassed(data: bytes, *, repeats: bool = False) -> str | None:
    """Why `go test -json` output is not backed by its binaries' accounts, or None.

    Args:
        data: The go command's output (its -json event stream).
        repeats: The command runs each test more than once (its own -count), so a test may end
            more than once.
    """
    packages: dict[str, _Package] = {}
    for line in data.splitlines():
        event = go_event(line)
        if event is None:
            continue
        package = packages.setdefault(str(event.get("Package") or ""), _Package())
        action, test = event.get("Action"), event.get("Test")
        if action == "output":
            found = _LINE.search(str(event.get("Output") or ""))
            if found is not None and found[1] == "go":
                package.accounts.append((found[2], found[3] or "-"))
        elif test and action in ("pass", "fail", "skip"):
            package.ends.setdefault(str(test), []).append(str(action))
    for name, package in packages.items():
        if why := _go_package(name, package, repeats):
            return why
    return None


def _go_package(name: str, package: _Package, repeats: bool) -> str | None:
    if ("0", "0") in package.accounts:
        return (
            f"{name}: the test binary exited 0 before the testing package's run completed (an"
            " exit from TestMain, init, a test, a goroutine or a signal handler): the results it"
            " printed are not the runner's"
        )
    passed = [t for t, ends in package.ends.items() if "pass" in ends]
    if passed and not package.accounts:
        return (
            f"{name}: {passed[0]} passed by the output of a test binary that did not run under"
            " referee's account (go test -exec)"
        )
    if not repeats:
        for test, ends in package.ends.items():
            if "fail" in ends and ends[-1] == "pass":
                return (
                    f"{name}.{test} failed and was then reported as passed in the same run: the"
                    " pass was printed after the testing package's verdict"
                )
    return None


def go_event(line: bytes) -> dict[str, Any] | None:
    """One event of go's -json stream (untrusted: a test prints to the same stream), or None."""
    if len(line) > 1024 * 1024 or not line.startswith(b"{"):
        return None
    try:
        event = json.loads(line)
    except ValueError:
        return None
    return event if isinstance(event, dict) else None


# --- cargo test ---------------------------------------------------------------------------


@dataclass
class _Section:
    """What one stretch of cargo's output claims, and the account line that closed it."""

    kind: str  # target · doc · after (output after an account line, before the next header)
    passed: list[str] = field(default_factory=list)
    account: tuple[str, ...] | None = None
    running: str = "-"  # libtest's `running N tests`, printed before any test runs


def libtest_account(folder: Path) -> Account:
    """The account reader for one cargo run whose wrappers wrote into `folder`."""
    return partial(libtest_bypassed, folder=folder)


def libtest_bypassed(data: bytes, folder: Path) -> str | None:
    """Why cargo test's output is not backed by its libtest binaries' logs, or None."""
    for section in _sections(data):
        if why := _judge_section(section, folder):
            return why
    return None


def _sections(data: bytes) -> list[_Section]:
    sections = [_Section("after")]
    for raw in data.decode("utf-8", errors="replace").splitlines():
        line = raw[:_MAX_LINE].rstrip()
        if RUNNING.fullmatch(line) is not None:
            sections.append(_Section("target"))
        elif DOC_TESTS.fullmatch(line) is not None:
            sections.append(_Section("doc"))
        elif (found := _LINE.fullmatch(line.strip())) is not None and found[1] != "go":
            sections[-1].account = tuple(g for g in found.groups() if g is not None)
            sections.append(_Section("after"))
        elif (result := RESULT.fullmatch(line)) is not None and result[2] == "ok":
            sections[-1].passed.append(result[1])
        elif (count := _RUNNING_TESTS.fullmatch(line)) is not None and sections[-1].running == "-":
            sections[-1].running = count[1]
    return sections


def _judge_section(section: _Section, folder: Path) -> str | None:
    account = section.account
    if account is None or account[0] != "libtest":
        if section.passed and account is None and section.kind != "doc":
            return (
                f"`test {section.passed[0]} ... ok` was printed outside the account of any test"
                " binary referee's runner ran"
            )
        return None  # a doc test (rustdoc judges it), a custom harness (its own word)
    status, listed, name = (*account[1:], "", "")[:3]
    if not listed.isdigit():  # a merged doc-test binary cannot be asked to list its tests
        listed = section.running
    log = _read_log(folder, name)
    if status == "0":
        if log is None:
            return "a test binary exited 0 before libtest began its run (it left no log)"
        finished = log.entries
        if listed.isdigit() and finished < int(listed):
            return (
                f"a test binary exited 0 after libtest recorded {finished} of the {listed} tests"
                " it listed: the process ended inside a test"
            )
        if log.failed:
            return f"a test binary exited 0 although libtest recorded {log.failed} failed tests"
    recorded = log.ok if log is not None else set()
    for test in section.passed:
        if test not in recorded:
            return f"the output says `test {test} ... ok`, which libtest's log does not record"
    return None


@dataclass
class _Log:
    ok: set[str] = field(default_factory=set)
    failed: int = 0
    entries: int = 0


def _read_log(folder: Path, name: str) -> _Log | None:
    if _LOG_NAME.fullmatch(name) is None:
        return None  # not a name the wrapper draws: never a path out of the folder
    try:
        with open(folder / name, "rb") as handle:
            text = handle.read(_LOG_LIMIT).decode("utf-8", errors="replace")
    except OSError:
        return None
    log = _Log()
    for line in filter(str.strip, text.splitlines()):
        log.entries += 1  # `ok NAME`, `failed NAME`, `ignored NAME`, each with a message or not
        if line.startswith("ok "):
            log.ok.add(line[3:].strip())
        elif line.startswith("failed"):
            log.failed += 1
    return log
