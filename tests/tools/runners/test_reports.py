"""Reports are written by the code under test: hostile ones are refused, never trusted."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import anyio
import pytest

from referee.tools.models.common import ReasonCode
from referee.tools.runners import Report, parse_junit_bytes, read_report, snapshot
from referee.tools.runners.base import Search
from referee.tools.runners.go_test import parse_go_json
from referee.tools.runners.junit import JunitError, junit_reader, summarize_tests
from referee.tools.runners.rust_cargo import parse_libtest

pytestmark = pytest.mark.anyio

CASE = '<testsuites><testsuite name="s"><testcase name="t"/></testsuite></testsuites>'


async def _read(report: Report, tmp_path: Path, *, limit: int = 1 << 20, timeout_s: float = 30):
    return await read_report(
        report,
        stdout=tmp_path / "stdout",
        before=await snapshot(report),
        allowed=(tmp_path,),
        limit=limit,
        timeout_s=timeout_s,
    )


def test_a_billion_laughs_report_is_refused_without_expanding() -> None:
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">'
        '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>'
        '<testsuites><testsuite><testcase name="&c;"/></testsuite></testsuites>'
    )
    with pytest.raises(JunitError, match="DTD or entities"):
        parse_junit_bytes(bomb.encode())


def test_an_external_entity_is_never_fetched() -> None:
    xxe = (
        '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        '<testsuites><testsuite><testcase name="&x;"/></testsuite></testsuites>'
    )
    with pytest.raises(JunitError, match="DTD or entities"):
        parse_junit_bytes(xxe.encode())


def test_suites_nested_past_the_recursion_limit_are_read() -> None:
    depth = 5000
    deep = "<testsuites>" + "<testsuite>" * depth + '<testcase name="deep"/>'
    deep += "</testsuite>" * depth + "</testsuites>"
    assert [o.name for o in parse_junit_bytes(deep.encode())] == ["deep"]


async def test_a_report_above_the_limit_is_unscored_without_being_read(tmp_path: Path) -> None:
    report = Report("junit", junit_reader(), files=(tmp_path / "r.xml",))
    before = await snapshot(report)
    (tmp_path / "r.xml").write_bytes(b"<" * 2048)
    read = await read_report(
        report,
        stdout=tmp_path / "out",
        before=before,
        allowed=(tmp_path,),
        limit=1024,
        timeout_s=5,
    )
    assert read.code is ReasonCode.REPORT_TOO_LARGE and read.outcomes == []
    assert "Settings.report_limit" in (read.problem or "") and "not read" in (read.problem or "")


async def test_a_report_left_from_before_the_run_is_never_read(tmp_path: Path) -> None:
    stale = tmp_path / "r.xml"
    stale.write_text(CASE, encoding="utf-8")
    read = await _read(Report("junit", junit_reader(), files=(stale,)), tmp_path)
    assert read.code is ReasonCode.NO_REPORT and "during this run" in (read.problem or "")


async def test_a_report_rewritten_during_the_run_is_read(tmp_path: Path) -> None:
    target = tmp_path / "r.xml"
    target.write_text("<testsuites/>", encoding="utf-8")
    report = Report("junit", junit_reader(), files=(target,))
    before = await snapshot(report)
    os.utime(target, ns=(time.time_ns(), time.time_ns() + 10**9))
    target.write_text(CASE, encoding="utf-8")
    read = await read_report(
        report,
        stdout=tmp_path / "o",
        before=before,
        allowed=(tmp_path,),
        limit=1 << 20,
        timeout_s=5,
    )
    assert [o.name for o in read.outcomes] == ["s > t"]


async def test_a_report_swapped_for_a_symlink_out_of_the_tree_is_refused(tmp_path: Path) -> None:
    tree, outside = tmp_path / "tree", tmp_path / "secret.xml"
    tree.mkdir()
    outside.write_text(CASE, encoding="utf-8")
    report = Report("junit", junit_reader(), files=(tree / "r.xml",))
    before = await snapshot(report)
    (tree / "r.xml").symlink_to(outside)
    read = await read_report(
        report, stdout=tree / "o", before=before, allowed=(tree,), limit=1 << 20, timeout_s=5
    )
    assert read.code is ReasonCode.REPORT_OUTSIDE and read.outcomes == []


async def test_surefire_style_reports_are_searched_and_only_fresh_ones_count(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "module" / "target" / "surefire-reports"
    folder.mkdir(parents=True)
    (folder / "TEST-old.xml").write_text(CASE.replace('"t"', '"old"'), encoding="utf-8")
    (tmp_path / "node_modules" / "surefire-reports").mkdir(parents=True)
    report = Report(
        "junit", junit_reader(), search=(Search(tmp_path, "TEST-*.xml", "surefire-reports"),)
    )
    before = await snapshot(report)
    (folder / "TEST-new.xml").write_text(CASE.replace('"t"', '"new"'), encoding="utf-8")
    (tmp_path / "node_modules" / "surefire-reports" / "TEST-x.xml").write_text(CASE, "utf-8")
    read = await read_report(
        report,
        stdout=tmp_path / "o",
        before=before,
        allowed=(tmp_path,),
        limit=1 << 20,
        timeout_s=5,
    )
    assert [o.name for o in read.outcomes] == ["s > new"]


async def test_an_optional_report_that_is_absent_means_no_test_ran(tmp_path: Path) -> None:
    report = Report("junit", junit_reader(), search=(Search(tmp_path, "*.xml"),), optional=True)
    read = await _read(report, tmp_path)
    assert read.code is None and read.outcomes == []


async def test_a_slow_parse_is_abandoned_at_the_check_timeout(tmp_path: Path) -> None:
    def slow(data: bytes) -> list:  # type: ignore[type-arg]
        time.sleep(2)
        return []

    target = tmp_path / "r.xml"
    report = Report("junit", slow, files=(target,))
    before = await snapshot(report)
    target.write_text(CASE, encoding="utf-8")
    with anyio.fail_after(1.5):
        read = await read_report(
            report,
            stdout=tmp_path / "o",
            before=before,
            allowed=(tmp_path,),
            limit=1 << 20,
            timeout_s=0.3,
        )
    assert read.code is ReasonCode.NO_REPORT and "longer than 0.3 s" in (read.problem or "")


def test_go_json_gives_subtests_skips_and_build_failures() -> None:
    stream = b"\n".join(
        [
            b'{"Action":"run","Package":"ex/a","Test":"TestX"}',
            b'{"Action":"output","Package":"ex/a","Test":"TestX/sub","Output":"boom\\n"}',
            b'{"Action":"fail","Package":"ex/a","Test":"TestX/sub","Elapsed":0.1}',
            b'{"Action":"fail","Package":"ex/a","Test":"TestX","Elapsed":0.1}',
            b'{"Action":"skip","Package":"ex/a","Test":"TestS","Elapsed":0}',
            b"# ex/b",
            b"not json at all {",
            b'{"Action":"output","Package":"ex/b","Output":"FAIL\\tex/b [build failed]\\n"}',
            b'{"Action":"fail","Package":"ex/b","Elapsed":0}',
            b'{"Action":"skip","Package":"ex/c","Elapsed":0}',
        ]
    )
    outcomes = {o.name: (o.outcome, o.message) for o in parse_go_json(stream)}
    assert outcomes == {
        "ex/a.TestX/sub": ("failed", "boom\n"),
        "ex/a.TestX": ("failed", ""),
        "ex/a.TestS": ("skipped", ""),
        "ex/b": ("error", "FAIL\tex/b [build failed]\n"),
    }


def test_libtest_lines_give_names_outcomes_and_failure_output() -> None:
    output = (
        "running 4 tests\n"
        "test tests::adds ... ok\n"
        "test tests::later ... ignored, not yet\n"
        "test src/lib.rs - add (line 3) ... ok\n"
        "test tests::wrong ... FAILED\n\n"
        "failures:\n\n---- tests::wrong stdout ----\nassertion failed: 2 + 2 == 5\n\n"
        "failures:\n    tests::wrong\n\n"
        "test result: FAILED. 2 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out\n"
        + "test "
        + "x" * 10000
        + " ... ok\n"  # an absurd line is cut, not matched
    )
    outcomes = {o.name: (o.outcome, o.message) for o in parse_libtest(output.encode())}
    assert outcomes == {
        "tests::adds": ("passed", ""),
        "tests::later": ("skipped", ""),
        "src/lib.rs - add": ("passed", ""),
        "tests::wrong": ("failed", "assertion failed: 2 + 2 == 5"),
    }


def test_libtest_ids_name_their_target_and_keep_no_line_number() -> None:
    """Two targets with a test of one name stay two tests; doc tests keep their ids when an edit
    above them moves their lines; a failure's output goes with its target's test."""
    output = (
        "   Compiling strsim v0.11.1\n"
        "     Running unittests src/lib.rs (target/debug/deps/strsim-1a2b3c4d5e6f7a8b)\n\n"
        "running 2 tests\ntest tests::same ... ok\ntest tests::only_lib ... FAILED\n\n"
        "failures:\n\n---- tests::only_lib stdout ----\nlib says no\n\n"
        "test result: FAILED. 1 passed; 1 failed\n\n"
        "     Running tests/lib.rs (target/debug/deps/lib-0f0f0f0f0f0f0f0f)\n\n"
        "running 1 test\ntest tests::same ... FAILED\n\n"
        "failures:\n\n---- tests::same stdout ----\nintegration says no\n\n"
        "test result: FAILED. 0 passed; 1 failed\n\n"
        "   Doc-tests strsim\n\n"
        "running 3 tests\n"
        "test src/lib.rs - jaro (line 163) ... ok\n"
        "test src/lib.rs - jaro (line 170) ... ok\n"
        "test src/lib.rs - hamming (line 20) ... ok\n"
    )
    outcomes = {o.name: (o.outcome, o.message) for o in parse_libtest(output.encode())}
    assert outcomes == {
        "src/lib.rs::tests::same": ("passed", ""),
        "src/lib.rs::tests::only_lib": ("failed", "lib says no"),
        "tests/lib.rs::tests::same": ("failed", "integration says no"),
        "src/lib.rs - jaro": ("passed", ""),
        "src/lib.rs - jaro #2": ("passed", ""),
        "src/lib.rs - hamming": ("passed", ""),
    }


def test_a_build_that_fails_before_any_test_ran_is_one_error_per_file() -> None:
    """cargo stops at rustc's errors: no test line follows, so each file an error points into
    is an error outcome with its first error and place (a later error is not the cause)."""
    output = (
        "   Compiling calc v0.1.0 (/repo)\n"
        "error[E0425]: cannot find function `negate` in this scope\n"
        "  --> src/lib.rs:26:20\n   |\n26 |         assert_eq!(negate(2), -2);\n"
        "   |                    ^^^^^^ not found in this scope\n\n"
        "error[E0308]: mismatched types\n  --> src/lib.rs:30:9\n\n"
        "error: cannot find macro `nope` in this scope\n  --> tests/cli.rs:4:5\n\n"
        "error: could not compile `calc` (lib test) due to 2 previous errors\n"
    )
    outcomes = {o.name: (o.outcome, o.message) for o in parse_libtest(output.encode())}
    assert outcomes == {
        "src/lib.rs": (
            "error",
            "does not compile: cannot find function `negate` in this scope at src/lib.rs:26:20",
        ),
        "tests/cli.rs": (
            "error",
            "does not compile: cannot find macro `nope` in this scope at tests/cli.rs:4:5",
        ),
    }


def test_a_go_test_that_panics_names_the_tests_it_kept_from_running() -> None:
    events = [
        {"Action": "run", "Package": "ex/v", "Test": "TestA"},
        {"Action": "pass", "Package": "ex/v", "Test": "TestA", "Elapsed": 0},
        {"Action": "run", "Package": "ex/v", "Test": "TestB/nil"},
        {"Action": "output", "Package": "ex/v", "Test": "TestB/nil", "Output": "--- FAIL\n"},
        {
            "Action": "output",
            "Package": "ex/v",
            "Test": "TestB/nil",
            "Output": "panic: runtime error: invalid memory address [recovered]\n",
        },
        {"Action": "fail", "Package": "ex/v", "Test": "TestB/nil", "Elapsed": 0},
        {"Action": "fail", "Package": "ex/v", "Test": "TestB", "Elapsed": 0},
        {"Action": "fail", "Package": "ex/v", "Elapsed": 0.1},
    ]
    data = "\n".join(json.dumps(e) for e in events).encode()
    outcomes = parse_go_json(data)
    crashed = [o for o in outcomes if o.outcome == "error"]
    assert [o.name for o in crashed] == ["ex/v"]
    text = summarize_tests(outcomes).text
    assert "ex/v: the test binary panicked in TestB/nil (runtime error" in text, text
    assert "never ran" in text
    # A test that fails without a panic ends nothing: no package error is added.
    calm = [e for e in events if "panic" not in str(e.get("Output", ""))]
    assert all(
        o.outcome != "error" for o in parse_go_json("\n".join(map(json.dumps, calm)).encode())
    )
