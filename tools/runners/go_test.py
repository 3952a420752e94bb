"""`go test`: its own `-json` event stream on stdout (no gotestsum needed).

Ids are `import/path.TestName` (subtests `TestName/case`), runnable as
`go test import/path -run '^TestName$'`. A package that does not build is one `error` outcome.
Tests run with `-count=1`: the user's build cache is used (compiled packages stay warm), its
cached test results never are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

from referee.tools.models.evidence import TestOutcome
from referee.tools.runners.account import (
    account_env,
    go_bypassed,
    go_event,
    is_account,
    wrapper,
)
from referee.tools.runners.base import Call, Plan, Report, Runner, base_name
from referee.tools.runners.junit import CRASHED, RAW_MESSAGE_LIMIT, trim_message

_ENDS: dict[str, Literal["passed", "failed", "skipped"]] = {
    "pass": "passed",
    "fail": "failed",
    "skip": "skipped",
}


def matches(command: Sequence[str]) -> bool:
    return len(command) >= 2 and base_name(command[0]) == "go" and command[1] == "test"


def plan(call: Call) -> Plan:
    args = list(call.args[1:])
    if "-json" not in args and "--json" not in args:
        args.insert(0, "-json")
    # The build cache is the user's, warm and read through a throwaway overlay; its test results
    # must not stand for a run: `-count=1` makes every test run now (a command's own -count wins).
    repeats = any(a == "-count" or a.startswith(("-count=", "--count")) for a in args)
    if not repeats:
        args.insert(1, "-count=1")
    # Every test binary runs under referee's wrapper, which says after the binary's exit whether
    # the testing package completed its run (tools/runners/account.py). First, so that a
    # command's own -exec wins (and the account then says its binaries ran without one).
    args.insert(0, f"-exec=/bin/sh {_quoted(wrapper('go_exec.sh', call.reports))}")
    return Plan(
        runner="go test",
        argv=call.argv((call.command[0], "test", *args)),
        report=Report(
            "go-json",
            parse_go_json,
            stdout=True,
            account=partial(go_bypassed, repeats=repeats),
        ),
        env=account_env(call.reports),
    )


def _quoted(path: str) -> str:
    """A path as the go command splits -exec: quoted when it holds a space or a quote."""
    if re.fullmatch(r"[\w./+@:,=-]+", path):
        return path
    return f"'{path}'" if '"' in path else f'"{path}"'


@dataclass
class _Test:
    outcome: Literal["passed", "failed", "skipped"] | None = None
    seconds: float = 0.0
    output: list[str] = field(default_factory=list)
    size: int = 0

    def add(self, text: str) -> None:
        if self.size < RAW_MESSAGE_LIMIT:
            self.output.append(text)
            self.size += len(text)


def parse_go_json(data: bytes) -> list[TestOutcome]:
    """Outcomes from `go test -json` (one JSON event a line; other lines are ignored)."""
    tests: dict[tuple[str, str], _Test] = {}
    packages: dict[str, _Test] = {}
    for line in data.splitlines():
        broken = _BUILD_FAILED.match(line)
        if broken is not None:  # go before 1.24 says so in plain text, the details on stderr
            state = packages.setdefault(broken[1].decode("utf-8", "replace"), _Test())
            state.outcome = "failed"
            state.add(f"{broken[2].decode()} failed (the compiler's messages are on stderr)")
            continue
        event = go_event(line)
        if event is None:
            continue
        package, test = str(event.get("Package") or ""), event.get("Test")
        target = tests.setdefault((package, str(test)), _Test()) if test else None
        _apply(event, target or packages.setdefault(package, _Test()))
    outcomes = [_outcome(f"{p}.{t}", state) for (p, t), state in tests.items() if state.outcome]
    failing = {p for (p, _), s in tests.items() if s.outcome == "failed"}
    outcomes.extend(
        TestOutcome(name=p, outcome="error", message=trim_message("".join(s.output)))
        for p, s in packages.items()
        if s.outcome == "failed" and p not in failing  # the package did not build or crashed
    )
    outcomes.extend(_panicked(tests))
    return outcomes


_PANIC = re.compile(r"^panic: (.+)$", re.MULTILINE)


def _panicked(tests: dict[tuple[str, str], _Test]) -> list[TestOutcome]:
    """A package whose test binary a test's panic ended: one `error` standing for the tests it
    had not reached, which never ran (the testing package reports only the panicking test)."""
    found: dict[str, TestOutcome] = {}
    for (package, test), state in tests.items():
        if state.outcome != "failed" or package in found:
            continue
        panic = _PANIC.search("".join(state.output))
        if panic is not None:
            said = f"the test binary panicked in {test} ({panic[1].strip()[:160]})"
            message = f"{CRASHED}{said}; the package's tests after it never ran"
            found[package] = TestOutcome(name=package, outcome="error", message=message)
    return list(found.values())


_FRAMING = re.compile(r"^=== (?:RUN|PAUSE|CONT|NAME)\s")
_BUILD_FAILED = re.compile(rb"^FAIL\t(\S+) \[(build|setup) failed\]\s*$")


def _apply(event: dict[str, Any], state: _Test) -> None:
    action = event.get("Action")
    if action == "output":
        text = str(event.get("Output") or "")
        # The wrapper's line after a binary that ended mid-test is no test's; go test's own
        # framing (`=== RUN`, `=== PAUSE` …) would stand before the failure's first line.
        if not is_account(text) and not _FRAMING.match(text):
            state.add(text)
    elif action in _ENDS:
        state.outcome = _ENDS[str(action)]
        elapsed = event.get("Elapsed")
        if isinstance(elapsed, int | float) and 0 <= elapsed < 1e9:
            state.seconds = float(elapsed)


def _outcome(name: str, state: _Test) -> TestOutcome:
    assert state.outcome is not None
    message = "".join(state.output) if state.outcome != "passed" else ""
    return TestOutcome(
        name=name, outcome=state.outcome, duration_s=state.seconds, message=trim_message(message)
    )


RUNNER = Runner("go test", matches, plan)
