"""mocha: its built-in xunit reporter, written to the scratch folder.

Ids are `file > parent suites > test` (mocha joins parent suite titles with spaces).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from xml.etree.ElementTree import Element

from referee.tools.runners.base import (
    Call,
    Plan,
    Report,
    Runner,
    base_name,
    relative_to,
)
from referee.tools.runners.js_bin import runner_argv
from referee.tools.runners.junit import junit_reader

_REPORTER_OPTIONS = ("--reporter", "-R", "--reporter-option", "--reporter-options", "-O")
_REPORTER_PREFIXES = ("--reporter=", "--reporter-option=", "--reporter-options=")


def matches(command: Sequence[str]) -> bool:
    return bool(command) and base_name(command[0]) in ("mocha", "_mocha")


def plan(call: Call) -> Plan:
    report = call.reports / "mocha.xml"
    # mocha runs one reporter: the command's own (`--reporter dot`) only changes what is printed,
    # so it gives way to xunit (the evidence says which reporter the command named).
    args = _without_reporter(call.args)
    extra = ("--reporter", "xunit", "--reporter-option", f"output={report}")
    dropped = [a for a in call.args if a not in args]
    notes = (
        (f"mocha's own reporter options replaced by xunit: {' '.join(dropped)}",) if dropped else ()
    )
    return Plan(
        runner="mocha",
        argv=runner_argv(call, "mocha", (*args, *extra)),
        report=Report("junit", junit_reader(_case_id(call.cwd)), files=(report,)),
        notes=notes,
    )


def _without_reporter(args: Sequence[str]) -> list[str]:
    kept: list[str] = []
    skip_next = False
    for arg in args:
        if skip_next:
            skip_next = False
        elif arg in _REPORTER_OPTIONS:
            skip_next = True
        elif not arg.startswith(_REPORTER_PREFIXES):
            kept.append(arg)
    return kept


def _case_id(cwd: Path) -> Callable[[Element, list[str]], str]:
    def case_id(case: Element, suites: list[str]) -> str:
        file = case.get("file")
        parts = [relative_to(file, cwd)] if file else []
        if case.get("classname"):
            parts.append(str(case.get("classname")))
        return " > ".join([*parts, case.get("name") or "?"])

    return case_id


RUNNER = Runner("mocha", matches, plan)
