"""Maven (`mvn test`, `./mvnw verify` …): Surefire's (and Failsafe's) JUnit XML.

Surefire always writes its reports inside the tree (`target/surefire-reports`) and has no command
line property to move them, so referee reads the ones written during this run there (older ones
are never read, and nothing is deleted). `target/` is Maven's build folder, ignored by git in
Maven projects, so the tree hash does not change. Ids are `package.Class#method`, runnable as
`mvn test -Dtest='package.Class#method'`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from xml.etree.ElementTree import Element

from referee.tools.runners.base import Call, Plan, Report, Runner, Search, base_name
from referee.tools.runners.junit import junit_reader

_TESTING_PHASES = {"test", "package", "verify", "install", "deploy", "surefire:test"}
_REPORT_FOLDERS = ("surefire-reports", "failsafe-reports")


def matches(command: Sequence[str]) -> bool:
    return (
        bool(command)
        and base_name(command[0]) in ("mvn", "mvnw", "mvn.cmd", "mvnw.cmd")
        and any(arg in _TESTING_PHASES for arg in command[1:])
    )


def plan(call: Call) -> Plan:
    search = tuple(Search(call.cwd, "TEST-*.xml", folder) for folder in _REPORT_FOLDERS)
    # target/ is hidden from the run: its classes are outside git, and Maven skips compiling a
    # source its class file is newer than, so a planted class would be tested in place of the
    # source. Only in the sandbox, where hiding is an overlay's whiteout and nothing is deleted.
    build = call.cwd / "target"
    hide = (
        (build.relative_to(call.tree).as_posix(),)
        if call.throwaway and _inside(build, call.tree)
        else ()
    )
    return Plan(
        runner="maven",
        argv=call.argv(call.command),
        hide=hide,
        report=Report("junit", junit_reader(case_id), search=search, optional=True),
        notes=("Surefire writes its reports inside the tree, under target/surefire-reports",),
    )


def _inside(folder: Path, tree: Path) -> bool:
    try:
        return (
            folder.is_dir()
            and not folder.is_symlink()
            and folder.resolve().is_relative_to(tree.resolve())
        )
    except OSError:
        return False


def case_id(case: Element, suites: list[str]) -> str:
    classname, name = case.get("classname") or "", case.get("name") or "?"
    return f"{classname}#{name}" if classname else name


RUNNER = Runner("maven", matches, plan)
