"""Gradle (`gradle test`, `./gradlew check` …): every Test task's JUnit XML, moved into the
scratch folder by an init script of referee's (the project's build files are untouched).

Ids are `package.Class.method`, runnable as `gradle test --tests 'package.Class.method'`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from xml.etree.ElementTree import Element

from referee.tools.runners.base import Call, Plan, Report, Runner, Search, base_name
from referee.tools.runners.junit import junit_reader

# Gradle 8 has `outputLocation`; older releases only `destination`.
_INIT_SCRIPT = """\
allprojects {{ project ->
    tasks.withType(Test) {{ task ->
        def dir = new File({root}, project.path.replace(':', '/') + '/' + task.name)
        def junit = task.reports.junitXml
        if (junit.hasProperty('outputLocation')) {{ junit.outputLocation.set(dir) }}
        else {{ junit.destination = dir }}
    }}
}}
"""


def matches(command: Sequence[str]) -> bool:
    return (
        bool(command)
        and base_name(command[0]) in ("gradle", "gradlew", "gradlew.bat")
        and any(_is_test_task(arg) for arg in command[1:])
    )


def _is_test_task(arg: str) -> bool:
    task = arg.rsplit(":", 1)[-1]
    return not arg.startswith("-") and (task in ("test", "check", "build") or task.endswith("Test"))


def plan(call: Call) -> Plan:
    folder = call.reports / "gradle"
    script = call.reports / "referee-reports.gradle"
    script.write_text(_INIT_SCRIPT.format(root=json.dumps(str(folder))), encoding="utf-8")
    # In the sandbox, every task runs again: Gradle's record of what is up to date lives in the
    # tree (.gradle/, build/), outside git, and would let planted classes stand for the sources.
    rerun = ("--rerun-tasks",) if call.throwaway and "--rerun-tasks" not in call.args else ()
    command = (call.command[0], "--init-script", str(script), *rerun, *call.args)
    return Plan(
        runner="gradle",
        argv=call.argv(command),
        report=Report(
            "junit", junit_reader(case_id), search=(Search(folder, "*.xml"),), optional=True
        ),
    )


def case_id(case: Element, suites: list[str]) -> str:
    classname, name = case.get("classname") or "", case.get("name") or "?"
    name = name.removesuffix("()")  # JUnit 5 names methods `adds()`
    return f"{classname}.{name}" if classname else name


RUNNER = Runner("gradle", matches, plan)
