"""The base-form verdict when the base as it was cannot answer: never a pass."""

from __future__ import annotations

import anyio

from referee.tools.graders.base import GradeResult
from referee.tools.graders.base_tests import edited_tests_verdict, silenced_tests, suspects
from referee.tools.graders.fail_to_pass import SuiteRun
from referee.tools.models import checks, evidence
from referee.tools.models.common import ReasonCode

CHECK = checks.TestsCheck(kind="tests", argv=["npx", "jest"])


def _run(status: str, **outcomes: str) -> SuiteRun:
    verdict = GradeResult(status, ReasonCode.PASSED, f"{status} run")  # type: ignore[arg-type]
    return SuiteRun(verdict, [evidence.TestOutcome(name=n, outcome=o) for n, o in outcomes.items()])  # type: ignore[arg-type]


def _verdict(before: SuiteRun) -> GradeResult:
    now = _run("pass", adds="passed", x="passed")
    form = _run("fail", adds="failed")

    async def base_only() -> SuiteRun:
        return before

    names = suspects(now, form)
    assert names == ["adds"]
    return anyio.run(edited_tests_verdict, now.verdict, CHECK, form, names, base_only)


def test_a_base_run_with_no_result_leaves_the_edited_pass_unconfirmed() -> None:
    """Under load the base's own run can time out or write no report: the edited copies' pass
    must not stand (it once did, and a patched describe body was passed)."""
    verdict = _verdict(SuiteRun(GradeResult("unscored", ReasonCode.NO_REPORT, "timed out")))
    assert verdict.status == "unscored"
    assert verdict.code == ReasonCode.BASE_TESTS_NOT_RUN and "timed out" in verdict.reason


def test_a_test_that_passed_at_base_and_fails_in_its_base_form_fails_the_criterion() -> None:
    assert _verdict(_run("pass", adds="passed")).status == "fail"


def _stopped(code: ReasonCode, status: str, **outcomes: str) -> GradeResult:
    """The verdict when the base form stops early, having reported `outcomes` first."""
    now = _run("pass", adds="passed", zero="passed")
    verdict = GradeResult(status, code, f"{code.value} run")  # type: ignore[arg-type]
    form = SuiteRun(
        verdict,
        [evidence.TestOutcome(name=n, outcome=o) for n, o in outcomes.items()],  # type: ignore[arg-type]
    )

    async def base_only() -> SuiteRun:
        return _run("pass", adds="passed", zero="passed")

    return anyio.run(edited_tests_verdict, now.verdict, CHECK, form, suspects(now, form), base_only)


def test_a_base_form_that_stops_after_a_reported_pass_confirms_nothing() -> None:
    """The code hangs (or crashes) just before the base test that would fail: the tests reported
    before it are all passes, so there is no suspect, and the run's own end must decide."""
    for code, status in [
        (ReasonCode.TIMED_OUT, "unscored"),
        (ReasonCode.NO_REPORT, "unscored"),
        (ReasonCode.EXIT_CODE, "fail"),
        (ReasonCode.NO_TESTS, "fail"),
        (ReasonCode.MEMORY_LIMIT, "unscored"),
    ]:
        verdict = _stopped(code, status, zero="passed")
        assert verdict.status == "unscored", (code, verdict)
        assert verdict.code == ReasonCode.BASE_TESTS_NOT_RUN, (code, verdict)


def test_a_base_form_that_ran_to_its_end_keeps_the_pass() -> None:
    assert _stopped(ReasonCode.PASSED, "pass", zero="passed", adds="passed").status == "pass"


def test_a_test_skipped_now_that_passed_at_base_is_silenced_unless_expected() -> None:
    before = [
        evidence.TestOutcome(name="adds", outcome="passed"),
        evidence.TestOutcome(name="windows_only", outcome="skipped"),
        evidence.TestOutcome(name="trailing[1]", outcome="passed"),
    ]
    skipped = {"adds", "windows_only", "trailing[1]", "new_one"}
    assert silenced_tests(skipped, before, []) == ["adds", "trailing[1]"]
    assert silenced_tests(skipped, before, ["trailing*"]) == ["adds"]


def test_a_module_skipped_as_it_loads_silences_each_of_its_base_tests() -> None:
    before = [
        evidence.TestOutcome(name="tests/test_calc.py::test_add", outcome="passed"),
        evidence.TestOutcome(name="tests/test_calc.py::test_zero", outcome="passed"),
        evidence.TestOutcome(name="tests/test_more.py::test_big", outcome="passed"),
    ]
    assert silenced_tests({"tests.test_calc"}, before, []) == [
        "tests/test_calc.py::test_add",
        "tests/test_calc.py::test_zero",
    ]
    assert silenced_tests({"tests/test_calc.py"}, before, ["*zero"]) == [
        "tests/test_calc.py::test_add"
    ]
