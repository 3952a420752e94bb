"""JUnit reports produced by real runners, and asking runners to write them."""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest

from referee.tools.errors import RefereeError
from referee.tools.models import evidence as models
from referee.tools.process import run_process
from referee.tools.runners import Plan, junit, plan_command
from referee.tools.runners.junit import JunitError, parse_junit, summarize_tests

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parent.parent.parent / "fixtures" / "process"
PY = sys.executable


async def run_with_report(argv: list[str], cwd: Path) -> tuple[int | None, Path]:
    """Run a test command the way a tests check does; returns the exit code and the report path."""
    reports = cwd.parent / f"{cwd.name}-reports"
    reports.mkdir(exist_ok=True)
    plan = plan_command(argv, cwd=cwd, tree=cwd, reports=reports)
    assert isinstance(plan, Plan)
    result = await run_process(
        plan.argv,
        cwd=cwd,
        timeout_s=120,
        env=plan.env,
        stdout_path=cwd.parent / "out.log",
        stderr_path=cwd.parent / "err.log",
    )
    return result.exit_code, plan.report.files[0]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(FIXTURES / "pytest_project", target)
    return target


@dataclass(frozen=True)
class OutcomesRun:
    exit_code: int | None
    report: Path
    files_before: list[str]
    files_after: list[str]


def _files(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


@pytest.fixture(scope="module")
def outcomes_run(tmp_path_factory: pytest.TempPathFactory) -> OutcomesRun:
    """One real pytest run over the case file with every outcome, shared by the tests that read
    it."""
    project = tmp_path_factory.mktemp("outcomes") / "project"
    shutil.copytree(FIXTURES / "pytest_project", project)
    before = _files(project)
    argv = [PY, "-m", "pytest", "-q", "outcomes_cases.py"]
    exit_code, report = anyio.run(run_with_report, argv, project, backend="asyncio")
    return OutcomesRun(exit_code, report, before, _files(project))


def test_a_pytest_report_gives_every_outcome(outcomes_run: OutcomesRun) -> None:
    exit_code, outcomes = outcomes_run.exit_code, parse_junit(outcomes_run.report)
    assert exit_code == 1
    assert [(o.name, o.outcome) for o in outcomes] == [
        ("outcomes_cases::test_passes", "passed"),
        ("outcomes_cases::test_fails", "failed"),
        ("outcomes_cases::test_errors_in_setup", "error"),
        ("outcomes_cases::test_is_skipped", "skipped"),
        ("outcomes_cases::test_is_expected_to_fail", "skipped"),
        ("outcomes_cases.TestGroup::test_method_passes", "passed"),
    ]
    failed = outcomes[1]
    assert failed.message.startswith("AssertionError: deliberately wrong\nassert (2 + 2) == 5")
    assert "fixture could not be built" in outcomes[2].message
    assert outcomes[3].message.startswith("not on this platform")


def test_running_pytest_with_the_plan_leaves_the_tree_unchanged(outcomes_run: OutcomesRun) -> None:
    assert outcomes_run.files_after == outcomes_run.files_before


async def test_zero_collected_tests_exit_5_and_give_an_empty_list(project: Path) -> None:
    exit_code, report = await run_with_report([PY, "-m", "pytest", "-q", "empty_cases.py"], project)
    outcomes = parse_junit(report)
    summary = summarize_tests(outcomes)
    assert (exit_code, outcomes, summary.total, summary.ok) == (5, [], 0, False)


async def test_a_passing_run_summarizes_as_ok(project: Path) -> None:
    exit_code, report = await run_with_report([PY, "-m", "pytest", "passing_cases.py"], project)
    summary = summarize_tests(parse_junit(report))
    assert exit_code == 0 and summary.ok
    assert summary.text == "2 passed, 0 failed, 0 errors, 0 skipped"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
async def test_a_node_report_gives_nested_suite_names(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "node_cases.test.mjs", tmp_path)
    exit_code, report = await run_with_report(["node", "--test", "node_cases.test.mjs"], tmp_path)
    outcomes = parse_junit(report)
    assert exit_code == 1
    assert [(o.name, o.outcome) for o in outcomes] == [
        ("group > adds", "passed"),
        ("group > adds wrong", "failed"),
        ("group > inner > skips", "skipped"),
        ("top level throws", "failed"),
    ]
    assert "deliberately wrong" in outcomes[1].message and "\n4 !== 5" in outcomes[1].message
    assert "node_cases.test.mjs" in (tmp_path.parent / "out.log").read_text(encoding="utf-8")


def test_a_single_suite_root_is_read_too(tmp_path: Path) -> None:
    report = tmp_path / "r.xml"
    report.write_text(
        '<testsuite name="s"><testcase classname="pkg.Mod" name="t" time="0.25"/></testsuite>',
        encoding="utf-8",
    )
    outcome = parse_junit(report)[0]
    assert (outcome.name, outcome.outcome, outcome.duration_s) == ("s > t", "passed", 0.25)


def test_only_huge_failure_messages_are_trimmed_when_parsed(tmp_path: Path) -> None:
    report = tmp_path / "r.xml"
    report.write_text(
        f'<testsuites><testsuite><testcase name="t"><failure message="{"x" * 30000}"/>'
        "</testcase></testsuite></testsuites>",
        encoding="utf-8",
    )
    message = parse_junit(report)[0].message
    assert len(message) == junit.RAW_MESSAGE_LIMIT and message.endswith("…")


def test_a_truncated_report_raises_a_junit_error(outcomes_run: OutcomesRun, tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    report.write_bytes(outcomes_run.report.read_bytes()[:300])
    with pytest.raises(JunitError, match="truncated or not XML") as caught:
        parse_junit(report)
    assert isinstance(caught.value, RefereeError) and caught.value.path == report


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "no report was written"),
        ("", "the file is empty"),
        ("<html><body/></html>", "not a JUnit report (root element <html>)"),
    ],
)
def test_an_unusable_report_raises_a_junit_error(
    tmp_path: Path, content: str | None, reason: str
) -> None:
    report = tmp_path / "junit.xml"
    if content is not None:
        report.write_text(content, encoding="utf-8")
    with pytest.raises(JunitError) as caught:
        parse_junit(report)
    assert caught.value.reason.startswith(reason)


def test_summarize_tests_counts_each_outcome() -> None:
    outcomes = [
        models.TestOutcome(name=str(n), outcome=kind)
        for n, kind in enumerate(["passed"] * 12 + ["failed", "error", "skipped", "skipped"])
    ]
    summary = summarize_tests(outcomes)
    assert (summary.total, summary.passed, summary.failed, summary.errors, summary.skipped) == (
        16,
        12,
        1,
        1,
        2,
    )
    assert summary.text == "12 passed, 1 failed, 1 errors, 2 skipped" and not summary.ok
