"""unittest (`python -m unittest …`): it has no report option, so the same interpreter runs
unittest's own `main` through a small reporter of referee's that writes JUnit XML into the scratch
folder. Ids are unittest's own (`tests.test_x.TestA.test_b`), runnable as `python -m unittest ID`.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.etree.ElementTree import Element

from referee.tools.runners.base import Call, Plan, Report, Runner
from referee.tools.runners.guard import copy_helper
from referee.tools.runners.junit import junit_reader
from referee.tools.runners.wrappers import python_module


def matches(command: Sequence[str]) -> bool:
    module = python_module(command)
    return module is not None and command[module] == "unittest"


def plan(call: Call) -> Plan:
    report = call.reports / "unittest.xml"
    script = call.reports / "referee_unittest.py"
    copy_helper("unittest_reporter.py", script)
    module = python_module(call.command)
    assert module is not None  # matches() said so
    # `python [options] -m unittest ARGS` → `python [options] SCRIPT REPORT ARGS`
    command = (*call.command[: module - 1], str(script), str(report), *call.command[module + 1 :])
    return Plan(
        runner="unittest",
        argv=call.argv(command),
        report=Report("junit", junit_reader(case_id), files=(report,)),
        env={"PYTHONDONTWRITEBYTECODE": "1"},
    )


def case_id(case: Element, suites: list[str]) -> str:
    return case.get("name") or "?"


RUNNER = Runner("unittest", matches, plan)
