"""mocha: its built-in xunit reporter, written to the scratch folder.

Ids are `file > parent suites > test` (mocha joins parent suite titles with spaces).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from xml.etree.ElementTree import Element

from referee.tools.runners.base import (
    JUNIT_HINT,
    Advice,
    Call,
    Plan,
    Report,
    Runner,
    base_name,
    relative_to,
)
from referee.tools.runners.junit import junit_reader

_REPORTER_OPTIONS = ("--reporter", "-R")


def matches(command: Sequence[str]) -> bool:
    return bool(command) and base_name(command[0]) in ("mocha", "_mocha")


def plan(call: Call) -> Plan | Advice:
    if any(t in _REPORTER_OPTIONS or t.startswith("--reporter=") for t in call.args):
        return Advice(
            "mocha",
            "this command chooses its own --reporter (mocha runs one); use `--reporter xunit "
            f"--reporter-option output=FILE` {JUNIT_HINT}",
        )
    report = call.reports / "mocha.xml"
    extra = ("--reporter", "xunit", "--reporter-option", f"output={report}")
    return Plan(
        runner="mocha",
        argv=call.argv((*call.command, *extra)),
        report=Report("junit", junit_reader(_case_id(call.cwd)), files=(report,)),
    )


def _case_id(cwd: Path) -> Callable[[Element, list[str]], str]:
    def case_id(case: Element, suites: list[str]) -> str:
        file = case.get("file")
        parts = [relative_to(file, cwd)] if file else []
        if case.get("classname"):
            parts.append(str(case.get("classname")))
        return " > ".join([*parts, case.get("name") or "?"])

    return case_id


RUNNER = Runner("mocha", matches, plan)
