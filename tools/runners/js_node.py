"""node's test runner (`node --test`): its junit reporter into the scratch folder, spec on stdout.

Ids are the describe path (`group > inner > test`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePath

from referee.tools.models.evidence import TestOutcome
from referee.tools.runners.base import (
    JUNIT_HINT,
    Advice,
    Call,
    Parse,
    Plan,
    Report,
    Runner,
    base_name,
    relative_to,
)
from referee.tools.runners.junit import parse_junit_bytes


def matches(command: Sequence[str]) -> bool:
    return bool(command) and base_name(command[0]) in ("node", "nodejs") and "--test" in command


def plan(call: Call) -> Plan | Advice:
    if any(token.startswith("--test-reporter") for token in call.command):
        # The command picks its own reporters; adding ours would change what it prints.
        return Advice(
            "node",
            "this command chooses its own --test-reporter; add `--test-reporter=junit "
            f"--test-reporter-destination=FILE` {JUNIT_HINT}",
        )
    report = call.reports / "node.xml"
    command = list(call.command)
    # Node reads options only before the first file name, so they go right after --test.
    at = command.index("--test") + 1
    reporters = [
        "--test-reporter=spec",
        "--test-reporter-destination=stdout",
        "--test-reporter=junit",
        f"--test-reporter-destination={report}",
    ]
    return Plan(
        runner="node",
        argv=call.argv([*command[:at], *reporters, *command[at:]]),
        report=Report("junit", _reader(call.cwd), files=(report,)),
    )


def _reader(cwd: Path) -> Parse:
    return lambda data: _without_file_cases(parse_junit_bytes(data), cwd)


def _without_file_cases(outcomes: list[TestOutcome], cwd: Path) -> list[TestOutcome]:
    """node reports a test file that defines no test as one case named by its absolute path: it
    is no test when it passed, and an error (the file failed to load or run) when it did not."""
    kept = []
    for outcome in outcomes:
        if not PurePath(outcome.name).is_absolute():
            kept.append(outcome)
        elif outcome.outcome in ("failed", "error"):
            name = relative_to(outcome.name, cwd)
            kept.append(outcome.model_copy(update={"name": name, "outcome": "error"}))
    return kept


RUNNER = Runner("node --test", matches, plan)
