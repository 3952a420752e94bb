"""The test binaries' own account of a run (tools/runners/account.py): what backs go test's and
libtest's result lines, read from output as the wrappers leave it."""

from __future__ import annotations

import json
import tomllib
from importlib.resources import files
from pathlib import Path

import pytest

from referee.tools.runners import Plan, plan_command
from referee.tools.runners.account import go_bypassed, libtest_bypassed
from referee.tools.runners.rust_cargo import parse_libtest

ROOT = Path(__file__).resolve().parents[3]


def _go(*events: tuple[str, str | None, str]) -> bytes:
    """go test -json lines: (action, test, output) for package example.com/calc."""
    lines = []
    for action, test, output in events:
        event: dict[str, str] = {"Action": action, "Package": "example.com/calc"}
        if test:
            event["Test"] = test
        if output:
            event["Output"] = output
        lines.append(json.dumps(event))
    return "\n".join(lines).encode()


PASSED = (("run", "TestAdd", ""), ("pass", "TestAdd", ""))


def test_a_go_binary_that_completed_its_run_backs_its_passes() -> None:
    data = _go(*PASSED, ("output", None, "referee-account go 0 1\n"), ("pass", None, ""))
    assert go_bypassed(data) is None


def test_a_go_binary_that_exited_0_without_its_mark_is_bypassed() -> None:
    data = _go(*PASSED, ("output", None, "referee-account go 0 0\n"))
    why = go_bypassed(data)
    assert why is not None and why.startswith("example.com/calc: the test binary exited 0 before")


def test_a_forged_good_account_line_does_not_hide_the_wrappers_own() -> None:
    forged = ("output", "TestZZ", "referee-account go 0 1\n")
    data = _go(*PASSED, forged, ("output", "TestZZ", "referee-account go 0 0\n"))
    assert go_bypassed(data) is not None


def test_go_passes_with_no_account_at_all_are_bypassed_but_a_failing_binary_is_not() -> None:
    assert go_bypassed(_go(*PASSED)) is not None
    failing = _go(("fail", "TestAdd", ""), ("output", None, "referee-account go 1 1\n"))
    assert go_bypassed(failing) is None


def test_a_go_failure_reported_as_passed_later_is_bypassed_unless_tests_repeat() -> None:
    data = _go(
        ("fail", "TestAdd", ""), ("pass", "TestAdd", ""), ("output", None, "referee-account go 0 1")
    )
    assert go_bypassed(data) is not None
    assert go_bypassed(data, repeats=True) is None


def _log(folder: Path, name: str, text: str) -> str:
    (folder / name).write_text(text, encoding="utf-8")
    return name


def _cargo(*lines: str) -> bytes:
    return ("\n".join(lines) + "\n").encode()


HEADER = "     Running tests/calc.rs (target/debug/deps/calc-0123456789abcdef)"


def test_a_libtest_binary_whose_log_holds_every_listed_test_backs_its_lines(
    tmp_path: Path,
) -> None:
    log = _log(tmp_path, "libtest.abcdef123456", "ok adds\nignored slow\n")
    data = _cargo(
        HEADER,
        "running 2 tests",
        "test slow ... ignored",
        "test adds ... ok",
        "test result: ok. 1 passed; 0 failed; 1 ignored",
        "",
        f"referee-account libtest 0 2 {log}",
        "   Doc-tests calc",
        "test src/lib.rs - add (line 3) ... ok",
    )
    assert libtest_bypassed(data, tmp_path) is None


def test_a_should_panic_test_is_named_as_libtests_log_names_it(tmp_path: Path) -> None:
    # libtest prints what a test expects after its name; its log has the bare name.
    log = _log(tmp_path, "libtest.abcdef123456", "ok panics\nok adds\n")
    data = _cargo(
        HEADER,
        "running 2 tests",
        "test panics - should panic ... ok",
        "test adds ... ok",
        "test result: ok. 2 passed; 0 failed",
        f"referee-account libtest 0 2 {log}",
        "   Doc-tests calc",
        "test src/lib.rs - add (line 3) - compile fail ... ok",
    )
    assert libtest_bypassed(data, tmp_path) is None
    names = [o.name for o in parse_libtest(data)]
    assert names == ["tests/calc.rs::panics", "tests/calc.rs::adds", "src/lib.rs - add"]


@pytest.mark.parametrize(
    ("log", "listed", "why"),
    [
        (None, "1", "before libtest began its run"),
        ("", "1", "recorded 0 of the 1 tests"),
        ("failed adds\n", "1", "although libtest recorded 1 failed"),
        ("ok other\n", "1", "which libtest's log does not record"),
    ],
)
def test_a_libtest_binary_its_log_does_not_back_is_bypassed(
    tmp_path: Path, log: str | None, listed: str, why: str
) -> None:
    name = "libtest.abcdef123456"
    if log is not None:
        _log(tmp_path, name, log)
    data = _cargo(HEADER, "test adds ... ok", f"referee-account libtest 0 {listed} {name}")
    found = libtest_bypassed(data, tmp_path)
    assert found is not None and why in found, found


def test_passes_printed_outside_any_binarys_account_are_bypassed(tmp_path: Path) -> None:
    assert libtest_bypassed(_cargo(HEADER, "test adds ... ok"), tmp_path) is not None
    after = _cargo(HEADER, "referee-account harness 0", "test adds ... ok")
    assert libtest_bypassed(after, tmp_path) is not None


def test_a_log_name_is_never_a_path_out_of_the_folder(tmp_path: Path) -> None:
    (tmp_path.parent / "libtest.abcdef123456").write_text("ok adds\n", encoding="utf-8")
    data = _cargo(HEADER, "test adds ... ok", "referee-account libtest 0 1 ../libtest.abcdef123456")
    assert libtest_bypassed(data, tmp_path) is not None


def test_the_wrappers_ship_as_package_data() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = declared["tool"]["setuptools"]["package-data"]["referee.tools.runners"]
    assert "*.sh" in patterns
    for name in ("go_exec.sh", "cargo_runner.sh"):
        assert files("referee.tools.runners").joinpath(name).is_file()


def test_cargo_test_runs_every_binary_under_the_runner_for_the_host_and_named_targets(
    tmp_path: Path,
) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    argv = ["cargo", "test", "--target", "aarch64-unknown-linux-musl"]
    plan = plan_command(argv, cwd=tmp_path, tree=tmp_path, reports=reports)
    assert isinstance(plan, Plan)
    runners = {k: v for k, v in plan.env.items() if k.endswith("_RUNNER")}
    assert "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_RUNNER" in runners
    assert len(runners) == 2 and all(v.endswith("cargo_runner.sh") for v in runners.values())
    assert plan.env["REFEREE_ACCOUNT"] == str(reports / "account")


def test_the_wrappers_line_stays_out_of_a_failing_tests_message() -> None:
    from referee.tools.runners.go_test import parse_go_json

    data = _go(
        ("run", "TestAdd", ""),
        ("output", "TestAdd", "panic: boom\n"),
        ("output", "TestAdd", "referee-account go 2 0\n"),
        ("fail", "TestAdd", ""),
    )
    outcomes = parse_go_json(data)
    (outcome,) = [o for o in outcomes if o.outcome == "failed"]
    assert "boom" in outcome.message and "referee-account" not in outcome.message
    # The panic ended the binary: one error stands for the tests it never reached.
    assert [o.message.split(";")[0] for o in outcomes if o.outcome == "error"] == [
        "crashed: the test binary panicked in TestAdd (boom)"
    ]


def test_a_failing_go_tests_message_starts_with_its_failure_not_go_tests_framing() -> None:
    from referee.tools.runners.go_test import parse_go_json

    data = _go(
        ("run", "TestV7", ""),
        ("output", "TestV7", "=== RUN   TestV7\n"),
        ("output", "TestV7", "    uuid_test.go:891: expected duplicates\n"),
        ("output", "TestV7", "--- FAIL: TestV7 (0.00s)\n"),
        ("fail", "TestV7", ""),
    )
    (outcome,) = parse_go_json(data)
    assert outcome.message.strip().startswith("uuid_test.go:891: expected duplicates")
