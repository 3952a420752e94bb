"""Test runners: one module per runner, each saying how to ask it for a per-test report and how
to read that report.

    base        Call, Plan, Report, Advice, Runner: the interface every runner module fills in
    dispatch    which runner a command belongs to (after wrappers such as `uv run`, `npx`)
    reports     reading reports as untrusted input: fresh files only, size cap, worker thread
    junit       JUnit XML (defusedxml, no DTD)           js_report  jest/vitest JSON
    named       a report the check names in `junit` (either format)
    py_pytest   py_unittest (+ unittest_reporter)        js_node  js_vitest  js_jest  js_mocha
    js_scripts  npm/pnpm/yarn scripts resolved           shell_line  `a && b` lines
    go_test     rust_cargo  rust_nextest  java_maven  java_gradle  php_phpunit
    builds      a run the compiler stopped before any test (a mutant that does not compile)

A new runner is one new module with a `RUNNER` and one entry in `dispatch.RUNNERS`.
"""

from referee.tools.runners.base import Advice, Plan, Report
from referee.tools.runners.dispatch import RUNNERS, plan_command
from referee.tools.runners.junit import (
    JunitError,
    TestSummary,
    parse_junit,
    parse_junit_bytes,
    summarize_tests,
)
from referee.tools.runners.named import confined_report, junit_escape, parse_named_report
from referee.tools.runners.reports import ReportRead, Snapshot, read_report, snapshot

__all__ = [
    "RUNNERS",
    "Advice",
    "JunitError",
    "Plan",
    "Report",
    "ReportRead",
    "Snapshot",
    "TestSummary",
    "confined_report",
    "junit_escape",
    "parse_junit",
    "parse_junit_bytes",
    "parse_named_report",
    "plan_command",
    "read_report",
    "snapshot",
    "summarize_tests",
]
