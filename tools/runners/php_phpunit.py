"""PHPUnit (`phpunit`, `vendor/bin/phpunit`, `php vendor/bin/phpunit`): `--log-junit` into the
scratch folder. Ids are `Class::method` (data sets included), runnable with `--filter`.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.etree.ElementTree import Element

from referee.tools.runners.base import Call, Plan, Report, Runner, base_name
from referee.tools.runners.junit import junit_reader


def matches(command: Sequence[str]) -> bool:
    if command and base_name(command[0]) == "php":
        command = [t for t in command[1:] if not t.startswith("-")][:1]
    return bool(command) and base_name(command[0]) in ("phpunit", "phpunit.phar")


def plan(call: Call) -> Plan:
    report = call.reports / "phpunit.xml"
    return Plan(
        runner="phpunit",
        # No result cache: it would be written into the evaluated tree.
        argv=call.argv((*call.command, "--do-not-cache-result", "--log-junit", str(report))),
        report=Report("junit", junit_reader(case_id), files=(report,)),
    )


def case_id(case: Element, suites: list[str]) -> str:
    owner, name = case.get("class") or case.get("classname") or "", case.get("name") or "?"
    return f"{owner}::{name}" if owner else name


RUNNER = Runner("phpunit", matches, plan)
