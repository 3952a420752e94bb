"""Graders: one module per check kind, each judging one criterion's check.

    base     GradeContext (one evaluation's shared state), the Grader protocol, GradeResult
    tests    a suite's per-test outcomes (runners in referee.tools.runners)
    fail_to_pass  the current tests on the base code: FAIL_TO_PASS and PASS_TO_PASS
    command  a command's exit code
    static   one rule of the static pipeline, within an allowance
    browser  a page driven in Chromium against the served app
    serve    the contract's app, started once for every browser check

A new check kind is one new module and one entry in GRADERS.
"""

from collections.abc import Mapping

from referee.tools.graders.base import (
    BaseHarness,
    GradeContext,
    Grader,
    GradeResult,
    ServeState,
    StaticRun,
    unscored,
)
from referee.tools.graders.browser import grade_browser
from referee.tools.graders.command import grade_command
from referee.tools.graders.fail_to_pass import test_patch
from referee.tools.graders.serve import private_network, start_serve
from referee.tools.graders.static import grade_static
from referee.tools.graders.tests import grade_tests, run_suite
from referee.tools.models.common import CheckKind

GRADERS: Mapping[CheckKind, Grader] = {
    "tests": grade_tests,
    "command": grade_command,
    "static": grade_static,
    "browser": grade_browser,
}

__all__ = [
    "GRADERS",
    "BaseHarness",
    "GradeContext",
    "GradeResult",
    "Grader",
    "ServeState",
    "StaticRun",
    "private_network",
    "run_suite",
    "start_serve",
    "test_patch",
    "unscored",
]
