"""Fail-before/pass-after on real layouts: collection errors at base prove a failure only where
the change's tests are; a base run broken everywhere is unscored with its error quoted."""

from __future__ import annotations

from pathlib import Path

from referee.tools.graders.base import GradeResult
from referee.tools.graders.fail_to_pass import SuiteRun, bracketed, judge_fail_to_pass
from referee.tools.models.common import ReasonCode
from referee.tools.models.evidence import TestOutcome as Outcome

IMPORT_ERROR = (
    "ImportError while importing test module '/repo/tests/test_a.py'.\n"
    "tests/test_a.py:1: in <module>\n    import humanize\n"
    "E   ModuleNotFoundError: No module named 'humanize'"
)


def run(status: str, outcomes: list[tuple[str, str, str]]) -> SuiteRun:
    verdict = GradeResult(status=status, code=ReasonCode.PASSED, reason=f"{status} run")  # type: ignore[arg-type]
    return SuiteRun(verdict, [Outcome(name=n, outcome=o, message=m) for n, o, m in outcomes])  # type: ignore[arg-type]


NOW = run(
    "pass",
    [
        ("tests/test_a.py::test_one", "passed", ""),
        ("tests/test_b.py::test_two", "passed", ""),
        ("tests/test_fix.py::test_negative", "passed", ""),
    ],
)


def test_every_file_failing_with_one_import_error_is_unscored_and_quoted() -> None:
    before = run(
        "fail",
        [
            ("tests/test_a.py", "error", IMPORT_ERROR),
            ("tests/test_b.py", "error", IMPORT_ERROR.replace("test_a", "test_b")),
            ("tests/test_fix.py", "error", IMPORT_ERROR.replace("test_a", "test_fix")),
        ],
    )
    grade = judge_fail_to_pass(NOW, before, ["tests/test_fix.py"])
    assert (grade.status, grade.code) == ("unscored", ReasonCode.BASE_NOT_RUN)
    assert "No module named 'humanize'" in grade.reason
    assert "editable install" in grade.reason


def test_a_collection_error_in_a_file_the_change_did_not_touch_is_base_not_run() -> None:
    before = run(
        "fail",
        [
            ("tests/test_a.py", "error", "E   SyntaxError: invalid syntax"),
            ("tests/test_b.py::test_two", "passed", ""),
            ("tests/test_fix.py::test_negative", "failed", "assert 0 == 1"),
        ],
    )
    grade = judge_fail_to_pass(NOW, before, ["tests/test_fix.py"])
    assert (grade.status, grade.code) == ("unscored", ReasonCode.BASE_NOT_RUN)
    assert "tests/test_a.py" in grade.reason and "SyntaxError" in grade.reason


def test_the_changes_own_test_file_failing_to_load_at_base_is_a_failure_before() -> None:
    """It imports what the fix adds: that is the failure before the fix."""
    before = run(
        "fail",
        [
            ("tests/test_a.py::test_one", "passed", ""),
            ("tests/test_b.py::test_two", "passed", ""),
            ("tests/test_fix.py", "error", "E   ImportError: cannot import name 'negate'"),
        ],
    )
    grade = judge_fail_to_pass(NOW, before, ["tests/test_fix.py"])
    assert (grade.status, grade.code) == ("pass", ReasonCode.PASSED), grade.reason


def test_two_new_test_files_importing_what_the_fix_adds_still_prove_it() -> None:
    now = run("pass", [("tests/test_x.py::t", "passed", ""), ("tests/test_y.py::t", "passed", "")])
    error = "E   ImportError: cannot import name 'negate'"
    before = run("fail", [("tests/test_x.py", "error", error), ("tests/test_y.py", "error", error)])
    grade = judge_fail_to_pass(now, before, ["tests/test_x.py", "tests/test_y.py"])
    assert (grade.status, grade.code) == ("pass", ReasonCode.PASSED), grade.reason


def test_tests_in_an_edited_source_file_are_compared_with_nothing() -> None:
    """A Rust fix whose new assertions sit in src/lib.rs's test module: at base the base's
    module ran; an edited test there is neither a regression nor a proof."""
    now = run(
        "pass",
        [("src/lib.rs::tests::jaro", "passed", ""), ("src/lib.rs - jaro", "passed", "")],
    )
    before = run(
        "fail",
        [
            ("src/lib.rs::tests::jaro", "failed", "old assertion"),
            ("src/lib.rs - jaro", "passed", ""),
        ],
    )
    grade = judge_fail_to_pass(now, before, [], ["src/lib.rs"])
    assert (grade.status, grade.code) == ("unscored", ReasonCode.BASE_NOT_RUN), grade.reason
    assert grade.regressions == []
    assert "2 tests live in source files the change edited" in grade.reason


def test_a_proof_outside_the_source_files_still_counts() -> None:
    now = run(
        "pass",
        [("tests/cli.rs::negative", "passed", ""), ("src/lib.rs::tests::old", "failed", "x")],
    )
    now.verdict.status = "pass"
    before = run(
        "fail",
        [("tests/cli.rs::negative", "failed", "boom"), ("src/lib.rs::tests::old", "passed", "")],
    )
    grade = judge_fail_to_pass(now, before, ["tests/cli.rs"], ["src/lib.rs"])
    assert (grade.status, grade.code) == ("pass", ReasonCode.PASSED), grade.reason
    assert grade.regressions == [] and "not compared" in grade.reason


def test_a_failing_list_names_each_test_once_and_says_how_many_more(tmp_path: Path) -> None:
    from referee.tools.graders.suite import suite_verdict
    from referee.tools.process import ProcessResult
    from referee.tools.runners import ReportRead

    names = [f"tests/test_a.py::test_{i}" for i in range(7)]
    outcomes = [Outcome(name=n, outcome="failed") for n in names]
    outcomes.append(Outcome(name=names[0], outcome="error", message="teardown"))
    log = tmp_path / "log"
    log.write_text("")
    result = ProcessResult(("pytest",), tmp_path, 1, False, 0.1, "2026-12-02T00:00:00", log, log)
    grade = suite_verdict(result, ReportRead(outcomes=outcomes))
    assert grade.reason.count("tests/test_a.py::test_0") == 1, grade.reason
    assert grade.reason.endswith("tests/test_a.py::test_4 and 2 more"), grade.reason


# The base runs made before and after the run now count as one: a test fails at base only where
# it failed in both.
def test_a_test_that_passed_in_either_base_run_passed_at_base() -> None:
    first = run("fail", [("t::old", "passed", ""), ("t::new", "passed", "")])
    last = run("fail", [("t::old", "passed", ""), ("t::new", "failed", "assert -1 == 5")])
    merged, differ = bracketed(first, last)
    assert differ == ["t::new"]
    grade = judge_fail_to_pass(
        run("pass", [("t::old", "passed", ""), ("t::new", "passed", "")]), merged
    )
    assert grade.status == "fail" and grade.code == ReasonCode.PASSES_AT_BASE, grade.reason


def test_a_test_that_failed_in_both_base_runs_proves_the_fix() -> None:
    first = run("fail", [("t::new", "failed", "assert -1 == 5")])
    last = run("fail", [("t::new", "error", "boom")])
    merged, differ = bracketed(first, last)
    assert differ == []
    grade = judge_fail_to_pass(run("pass", [("t::new", "passed", "")]), merged)
    assert grade.status == "pass", grade.reason


def test_an_unscored_first_base_run_decides() -> None:
    first = SuiteRun(GradeResult("unscored", ReasonCode.NO_REPORT, "timed out", ["E1"]))
    merged, _ = bracketed(first, run("fail", [("t::new", "failed", "")]))
    grade = judge_fail_to_pass(run("pass", [("t::new", "passed", "")]), merged)
    assert grade.status == "unscored" and grade.code == ReasonCode.BASE_NOT_RUN, grade.reason


def test_a_test_passing_in_one_base_run_only_is_named_at_its_line(tmp_path: Path) -> None:
    from referee.tools.graders.tests import _told_apart

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_add.py").write_text("import calc\n\n\ndef test_add():\n    pass\n")
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "add.test.js").write_text("const t = 1;\n\nit('adds', () => {});\n")
    py = _told_apart(tmp_path, "tests/test_add.py::test_add", ["tests/test_add.py"])
    assert py is not None and (py.kind, py.location) == (
        "test_inspects_environment",
        "tests/test_add.py:4",
    )
    js = _told_apart(tmp_path, "test/add.test.js > adds", ["test/add.test.js"])
    assert js is not None and js.location == "test/add.test.js:3", js
    assert "passed at base in one run and failed in the other" in js.message
    assert _told_apart(tmp_path, "elsewhere > nowhere", ["test/add.test.js"]) is None


def test_a_package_that_failed_as_a_whole_at_base_is_named_with_its_reason() -> None:
    """go-humanize: the base test binary panicked in TestRange, so the tests after it never ran
    there; they count as failing at base, and the reason says why, not "could not be collected"."""
    now = run("pass", [("m.TestRange", "passed", ""), ("m.FuzzComma", "passed", "")])
    panicked = "the test binary panicked in TestRange (runtime error: index out of range)"
    before = run("fail", [("m.TestRange", "failed", "boom"), ("m", "error", panicked)])
    grade = judge_fail_to_pass(now, before)
    assert grade.status == "pass", grade.reason
    assert f"at base, m failed as a whole: {panicked}" in grade.reason
    assert "could not be collected" not in grade.reason
