"""PHP diff coverage from PHPUnit's clover report with pcov: the report reader on what a test can
write into it, the php the run is started with, and evaluations of real PHP projects, with and
without a coverage driver."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from coverage_projects import php_cart
from projects import contract_for, evaluated

from referee.tools.adequacy.coverage_php import (
    CloverError,
    coverage_driver,
    instrument_phpunit,
    measure_clover,
    read_clover,
)
from referee.tools.models import Evaluation
from referee.tools.runners import Plan
from referee.tools.runners.base import Report
from referee.tools.store import Store

pytestmark = pytest.mark.anyio
PHP_CONF = Path("/etc/php/8.2/cli/conf.d")
needs_pcov = pytest.mark.skipif(
    shutil.which("phpunit") is None or coverage_driver("php", os.environ.get("PATH")) != "pcov",
    reason="phpunit and php-pcov are not installed (scripts/setup.sh installs them)",
)

CLOVER = """<?xml version="1.0" encoding="UTF-8"?>
<coverage generated="1"><project timestamp="1">
  <file name="/work/cart/src/Cart.php">
    <class name="Shop\\Cart" namespace="global"><metrics statements="4"/></class>
    <line num="8" type="method" name="total" count="1"/>
    <line num="10" type="stmt" count="1"/>
    <line num="12" type="stmt" count="3"/>
    <line num="19" type="stmt" count="0"/>
    <line num="22" type="stmt" count="0"/>
  </file>
</project></coverage>
"""


def test_a_clover_report_gives_each_files_statements(tmp_path: Path) -> None:
    report = tmp_path / "clover.xml"
    report.write_text(CLOVER, encoding="utf-8")
    # The method line is a declaration, not a statement.
    assert read_clover(report) == {"/work/cart/src/Cart.php": ({10, 12, 19, 22}, {10, 12})}
    found = measure_clover(report, tmp_path, {"src/Cart.php": {10, 19, 20, 22}}, ["src/Cart.php"])
    assert [(f.path, f.changed, f.covered, f.uncovered) for f in found.files] == [
        ("src/Cart.php", 3, 1, ["19-22"])
    ]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "not XML"),
        ("<coverage><file name='a'>", "not XML"),
        (
            '<!DOCTYPE c [<!ENTITY x "y">]><coverage>&x;</coverage>',
            "not XML referee reads",
        ),
    ],
)
def test_a_malformed_report_is_a_clear_error(tmp_path: Path, text: str, says: str) -> None:
    report = tmp_path / "clover.xml"
    report.write_text(text, encoding="utf-8")
    with pytest.raises(CloverError, match=says):
        read_clover(report)
    found = measure_clover(report, tmp_path, {"a.php": {1}}, ["a.php"])
    assert (found.percent, found.unmeasured) == (None, ["a.php"]) and says in found.note


def test_odd_numbers_in_a_report_are_skipped_not_a_crash(tmp_path: Path) -> None:
    report = tmp_path / "clover.xml"
    report.write_text(
        '<coverage><file name="/t/a.php"><line num="-3" type="stmt" count="1"/>'
        f'<line num="{"9" * 40}" type="stmt" count="1"/><line num="4" type="stmt" count="x"/>'
        "</file></coverage>",
        encoding="utf-8",
    )
    assert read_clover(report) == {"/t/a.php": ({4}, set())}


def test_a_huge_report_is_refused_unread(tmp_path: Path) -> None:
    report = tmp_path / "clover.xml"
    with report.open("wb") as f:
        f.write(b"<coverage>")
        f.truncate(65 * 1024 * 1024)
    with pytest.raises(CloverError, match="over 64 MiB"):
        read_clover(report)


def test_a_file_no_test_loaded_has_every_line_of_code_uncovered(tmp_path: Path) -> None:
    report = tmp_path / "clover.xml"
    report.write_text(CLOVER, encoding="utf-8")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "Refund.php").write_text(
        "<?php\n\n// Refunds.\nfunction refund(int $a): int\n{\n    return -$a;\n}\n",
        encoding="utf-8",
    )
    found = measure_clover(report, tmp_path, {"src/Refund.php": None}, ["src/Refund.php"])
    assert [(f.path, f.uncovered) for f in found.files] == [("src/Refund.php", ["4-6"])]


def phpunit_plan(*argv: str) -> Plan:
    return Plan(runner="phpunit", argv=argv, report=Report("junit", lambda data: []))


@needs_pcov
def test_pcov_is_on_for_the_run_only_and_phpunit_filters_the_changed_folders(
    tmp_path: Path,
) -> None:
    path = os.environ.get("PATH")
    plan = phpunit_plan("php", "vendor/bin/phpunit", "tests")
    done = instrument_phpunit(plan, tmp_path, ["src/Cart.php"], tmp_path, tmp_path, path)
    assert isinstance(done, tuple)
    report = tmp_path / "phpunit-clover.xml"
    assert done == (
        Plan(
            runner="phpunit",
            argv=(
                "php",
                "-d",
                "pcov.enabled=1",
                "-d",
                f"pcov.directory={tmp_path}",
                "vendor/bin/phpunit",
                "tests",
                "--coverage-clover",
                str(report),
                "--coverage-filter",
                str(tmp_path / "src"),
            ),
            report=plan.report,
        ),
        report,
    )
    # `phpunit` alone: started by the php of its `#!` line, given as the command found it.
    bare = instrument_phpunit(
        phpunit_plan("phpunit"), tmp_path, ["a.php"], tmp_path, tmp_path, path
    )
    assert isinstance(bare, tuple)
    assert bare[0].argv[0] == "/usr/bin/php" and bare[0].argv[5] == shutil.which("phpunit")


def test_a_command_asking_for_its_own_coverage_keeps_it(tmp_path: Path) -> None:
    plan = phpunit_plan("phpunit", "--coverage-html", "out")
    why = instrument_phpunit(plan, tmp_path, ["a.php"], tmp_path, tmp_path, None)
    assert isinstance(why, str) and "coverage of its own" in why


def without_pcov(folder: Path) -> str:
    """A PATH whose `php` is this machine's, with every extension but pcov."""
    ini = folder / "conf.d"
    ini.mkdir(parents=True)
    for conf in PHP_CONF.iterdir():
        if "pcov" not in conf.name:
            (ini / conf.name).symlink_to(conf)
    php = folder / "bin" / "php"
    php.parent.mkdir()
    php.write_text(f'#!/bin/sh\nPHP_INI_SCAN_DIR={ini} exec /usr/bin/php "$@"\n', encoding="utf-8")
    php.chmod(0o755)
    return f"{php.parent}:{os.environ['PATH']}"


async def run(
    store: Store, repo: Path, argv: list[str], env: dict[str, str] | None = None
) -> Evaluation:
    check = {"kind": "tests", "argv": argv, "min_diff_coverage": 80}
    criterion = {"criterion": "the tests pass", "verification_method": "test", "check": check}
    return await evaluated(store, repo, contract_for(store, repo, criterion).id, env=env)


@needs_pcov
async def test_a_new_php_method_no_test_calls_fails_naming_its_lines(
    store: Store, tmp_path: Path
) -> None:
    repo = php_cart(tmp_path / "cart", tested=False)
    result = await run(store, repo, ["phpunit", "tests"])
    criterion = result.criteria[0]
    assert (criterion.status, criterion.reason_code) == ("fail", "diff_coverage_low"), criterion
    assert "not executed: src/Cart.php:19-22" in criterion.reason
    found = criterion.adequacy.diff_coverage if criterion.adequacy else None
    assert (
        found
        and found.tool == "phpunit --coverage-clover"
        and (found.changed, found.covered) == (3, 0)
    )
    assert not result.tree_changed.changed  # the report is written outside the tree


@needs_pcov
async def test_the_honest_php_change_passes(store: Store, tmp_path: Path) -> None:
    repo = php_cart(tmp_path / "cart", tested=True)
    result = await run(store, repo, ["php", "/usr/bin/phpunit", "tests"])
    criterion = result.criteria[0]
    assert criterion.status == "pass", criterion.reason
    found = criterion.adequacy.diff_coverage if criterion.adequacy else None
    assert found and (found.percent, found.changed) == (100.0, 3)


@pytest.mark.skipif(not PHP_CONF.is_dir() or not shutil.which("phpunit"), reason="no PHP 8.2")
async def test_without_a_coverage_driver_the_minimum_is_unscored_saying_what_to_install(
    store: Store, tmp_path: Path
) -> None:
    repo = php_cart(tmp_path / "cart", tested=True)
    path = without_pcov(tmp_path / "php")
    result = await run(store, repo, ["php", "/usr/bin/phpunit", "tests"], env={"PATH": path})
    criterion = result.criteria[0]
    assert (criterion.status, criterion.reason_code) == ("unscored", "diff_coverage_low"), criterion
    assert "no PHP coverage driver" in criterion.reason
    assert "apt install php-pcov" in criterion.reason
    assert criterion.reason.startswith("2 passed, 0 failed")  # the tests ran as written
