"""pytest: `--junitxml` into referee's scratch folder; ids as `tests/test_x.py::TestA::test_b`."""

from __future__ import annotations

from collections.abc import Sequence
from xml.etree.ElementTree import Element

from referee.tools.runners.base import Call, Plan, Report, Runner, base_name
from referee.tools.runners.guard import guarded_env
from referee.tools.runners.junit import junit_reader
from referee.tools.runners.wrappers import python_module


def matches(command: Sequence[str]) -> bool:
    if command and base_name(command[0]) in ("pytest", "py.test"):
        return True
    module = python_module(command)
    return module is not None and command[module] == "pytest"


def plan(call: Call) -> Plan:
    report = call.reports / "pytest.xml"
    # xunit1 adds each case's file; no cache provider and no bytecode keep the tree unchanged.
    extra = (f"--junitxml={report}", "-o", "junit_family=xunit1", "-p", "no:cacheprovider")
    # The guard (pytest_guard.py) watches the report from inside the run: see guard.py.
    guard_env, guard_args = guarded_env(call.reports, report)
    return Plan(
        runner="pytest",
        argv=call.argv((*call.command, *extra, *guard_args)),
        report=Report("junit", junit_reader(case_id), files=(report,)),
        env={"PYTHONDONTWRITEBYTECODE": "1", **guard_env},
    )


def case_id(case: Element, suites: list[str]) -> str:
    """pytest's node id: the file, the classes inside it, the test (with its parameters)."""
    name, classname, file = case.get("name") or "?", case.get("classname") or "", case.get("file")
    if not file:
        return f"{classname}::{name}" if classname else name
    if not classname and name == _module(file):
        return file  # a collection error: the file that could not be imported
    inner = _classes(classname, file)
    return "::".join([file, *inner, name])


def _module(file: str) -> str:
    return file.removesuffix(".py").replace("\\", "/").replace("/", ".")


def _classes(classname: str, file: str) -> list[str]:
    # classname is the module's dotted path (from pytest's rootdir or a package root) + classes.
    parts = file.removesuffix(".py").replace("\\", "/").split("/")
    for start in range(len(parts)):
        module = ".".join(parts[start:])
        if classname == module:
            return []
        if classname.startswith(module + "."):
            return classname[len(module) + 1 :].split(".")
    return []


RUNNER = Runner("pytest", matches, plan)
