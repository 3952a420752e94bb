"""Which runner a test command belongs to, and its plan."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from referee.tools.runners.base import JUNIT_HINT, Advice, Call, Plan, Runner
from referee.tools.runners.go_test import RUNNER as GO_TEST
from referee.tools.runners.java_gradle import RUNNER as JAVA_GRADLE
from referee.tools.runners.java_maven import RUNNER as JAVA_MAVEN
from referee.tools.runners.js_jest import RUNNER as JS_JEST
from referee.tools.runners.js_mocha import RUNNER as JS_MOCHA
from referee.tools.runners.js_node import RUNNER as JS_NODE
from referee.tools.runners.js_scripts import runner as scripts_runner
from referee.tools.runners.js_vitest import RUNNER as JS_VITEST
from referee.tools.runners.php_phpunit import RUNNER as PHP_PHPUNIT
from referee.tools.runners.py_pytest import RUNNER as PY_PYTEST
from referee.tools.runners.py_unittest import RUNNER as PY_UNITTEST
from referee.tools.runners.rust_cargo import RUNNER as RUST_CARGO
from referee.tools.runners.rust_nextest import RUNNER as RUST_NEXTEST
from referee.tools.runners.shell_line import plan_line
from referee.tools.runners.wrappers import python_script, split_wrappers

__all__ = ["RUNNERS", "plan_call", "plan_command"]


def plan_call(call: Call) -> Plan | Advice:
    """The plan of the first runner that knows the call's command, else advice."""
    for runner in RUNNERS:
        if runner.matches(call.command):
            return runner.plan(call)
    script = python_script(call.command)
    if script is not None:
        return _script_advice(call.command[script])
    program = call.program or "this command"
    return Advice(
        None,
        f"referee does not know how to ask `{program}` for per-test outcomes; make it write a"
        f" JUnit XML report (most runners have a junit reporter option) {JUNIT_HINT}",
    )


def _script_advice(script: str) -> Advice:
    """`python test.py`: a script's output is its own. Most such scripts end in unittest.main(),
    and run as a module they are unittest's, whose every outcome referee reads."""
    path = Path(script)
    module = ".".join(path.with_suffix("").parts) if path.suffix == ".py" else None
    instead = f"`python -m unittest {module}`" if module else "`python -m unittest`"
    return Advice(
        None,
        f"`python {script}` runs a script whose output referee cannot read test by test; if it"
        f" is a unittest script (it calls unittest.main()), run it as {instead} and referee reads"
        f" every test's outcome; else make it write a JUnit XML report {JUNIT_HINT}",
    )


RUNNERS: tuple[Runner, ...] = (
    scripts_runner(plan_call),
    PY_PYTEST,
    PY_UNITTEST,
    JS_NODE,
    JS_VITEST,
    JS_JEST,
    JS_MOCHA,
    GO_TEST,
    RUST_NEXTEST,
    RUST_CARGO,
    JAVA_MAVEN,
    JAVA_GRADLE,
    PHP_PHPUNIT,
)


def plan_command(
    argv: Sequence[str],
    *,
    cwd: Path,
    tree: Path,
    reports: Path,
    shell: bool = False,
    path: str | None = None,
    throwaway: bool = False,
) -> Plan | Advice:
    """Plan a check's test command so that it reports every test's outcome.

    Args:
        argv: The check's command (with `shell`, pieces of one shell line).
        cwd: Where it runs.
        tree: The evaluated tree.
        reports: An empty folder of referee's scratch space for this run's reports.
        shell: The check runs through /bin/sh.
        path: The PATH programs are looked up in.
        throwaway: The run's writes into the tree are discarded (the sandbox).

    Returns:
        How to run it and read its report, or advice when its runner cannot be asked.
    """
    if shell:
        call = Call((), (), cwd, tree, reports, path, throwaway=throwaway)
        return plan_line(" ".join(argv), call, plan_call)
    start = split_wrappers(argv)
    prefix, command = tuple(argv[:start]), tuple(argv[start:])
    return plan_call(Call(prefix, command, cwd, tree, reports, path, throwaway=throwaway))
