"""How each runner is asked for a per-test report: the commands people write, rewritten."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.tools.runners import Advice, Plan, plan_command


def go_exec(tmp_path: Path) -> Path:
    """Where a plan puts referee's go test -exec wrapper: a copy in the run's reports folder."""
    return tmp_path / "reports" / "account" / "go_exec.sh"


def plan(
    argv: list[str], tmp_path: Path, *, shell: bool = False, throwaway: bool = False
) -> Plan | Advice:
    reports = tmp_path / "reports"
    reports.mkdir(exist_ok=True)
    return plan_command(
        argv, cwd=tmp_path, tree=tmp_path, reports=reports, shell=shell, throwaway=throwaway
    )


def planned(argv: list[str], tmp_path: Path, **kw: bool) -> Plan:
    result = plan(argv, tmp_path, **kw)
    assert isinstance(result, Plan), result
    return result


@pytest.mark.parametrize(
    "argv",
    [
        ["pytest", "-q"],
        ["py.test"],
        ["python", "-m", "pytest"],
        ["python3", "-W", "error", "-m", "pytest", "tests/test_login.py"],
        ["/opt/venv/bin/python3.11", "-B", "-m", "pytest", "-x"],
        ["uv", "run", "pytest", "-q"],
        ["uv", "run", "--with", "pytest-xdist", "python", "-m", "pytest"],
        ["poetry", "run", "pytest"],
    ],
)
def test_pytest_gets_a_junit_report_in_scratch_and_no_cache(
    argv: list[str], tmp_path: Path
) -> None:
    result = planned(argv, tmp_path)
    report = tmp_path / "reports" / "pytest.xml"
    assert result.runner == "pytest" and result.report.files == (report,)
    assert result.argv == (
        *argv,
        f"--junitxml={report}",
        "-o",
        "junit_family=xunit1",
        "-p",
        "no:cacheprovider",
        "-p",
        "referee_guard",
    )
    guard = tmp_path / "reports" / "guard"
    assert result.env == {
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": str(guard),
        "REFEREE_GUARD_REPORT": str(report),
        "REFEREE_GUARD_LOG": str(tmp_path / "reports" / "referee-guard.log"),
    }
    assert (guard / "referee_guard.py").is_file()


def test_unittest_runs_unittest_itself_through_referees_reporter(tmp_path: Path) -> None:
    result = planned(["python3", "-B", "-m", "unittest", "discover", "-s", "tests"], tmp_path)
    script = tmp_path / "reports" / "referee_unittest.py"
    assert result.argv == (
        "python3",
        "-B",
        str(script),
        str(tmp_path / "reports" / "unittest.xml"),
        "discover",
        "-s",
        "tests",
    )
    assert "unittest.main(module=None" in script.read_text(encoding="utf-8")


def test_node_test_gets_spec_on_stdout_and_junit_before_its_files(tmp_path: Path) -> None:
    report = tmp_path / "reports" / "node.xml"
    assert planned(["node", "--test", "a.test.mjs"], tmp_path).argv == (
        "node",
        "--test",
        "--test-reporter=spec",
        "--test-reporter-destination=stdout",
        "--test-reporter=junit",
        f"--test-reporter-destination={report}",
        "a.test.mjs",
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["npx", "vitest"], ["npx", "vitest", "run"]),
        (["npx", "vitest", "run", "src"], ["npx", "vitest", "run", "src"]),
        (["npx", "vitest", "watch"], ["npx", "vitest", "run"]),
        (["pnpm", "exec", "vitest", "--coverage"], ["pnpm", "exec", "vitest", "run", "--coverage"]),
    ],
)
def test_vitest_runs_once_with_its_json_reporter(
    argv: list[str], expected: list[str], tmp_path: Path
) -> None:
    report = tmp_path / "reports" / "vitest.json"
    extra = ["--reporter=default", "--reporter=json", f"--outputFile.json={report}"]
    assert planned(argv, tmp_path).argv == (*expected, *extra)


def test_jest_and_mocha_use_their_built_in_reporters(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    assert planned(["npx", "jest", "--ci"], tmp_path).argv == (
        "npx",
        "jest",
        "--ci",
        "--json",
        f"--outputFile={reports / 'jest.json'}",
    )
    assert planned(["npx", "mocha", "test/"], tmp_path).argv == (
        "npx",
        "mocha",
        "test/",
        "--reporter",
        "xunit",
        "--reporter-option",
        f"output={reports / 'mocha.xml'}",
    )


def test_go_cargo_maven_gradle_phpunit(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    assert planned(["go", "test", "-race", "./..."], tmp_path).argv == (
        "go",
        "test",
        f"-exec=/bin/sh {go_exec(tmp_path)}",
        "-json",
        "-count=1",
        "-race",
        "./...",
    )
    # stderr joins stdout (cargo names each test binary there); every binary runs.
    # The workspace's own build output goes first (its files' times are the player's).
    clean = "cargo +nightly clean --workspace --offline -q >/dev/null 2>&1; "
    cargo = ["cargo", "+nightly", "test", "-q", "--", "-q"]
    assert planned(cargo, tmp_path, throwaway=True).argv == (
        "sh",
        "-c",
        clean + 'exec "$0" "$@" 2>&1',
        "cargo",
        "+nightly",
        "test",
        "--no-fail-fast",
        "--",
        "-q",
        "--logfile",  # for rustdoc's merged doc-test binary (see cargo_runner.sh)
        str(reports / "account" / "doc.log"),
    )
    # Outside the overlay the tree's own output is not cleaned: only the command runs.
    assert planned(cargo, tmp_path).argv[:3] == ("sh", "-c", 'exec "$0" "$@" 2>&1')
    nextest = planned(["cargo", "nextest", "run", "--profile", "ci"], tmp_path, throwaway=True)
    config = reports / "nextest.toml"
    assert nextest.argv[:2] == ("sh", "-c") and "clean --workspace" in nextest.argv[2]
    assert nextest.argv[3:7] == ("cargo", "nextest", "run", f"--tool-config-file=referee:{config}")
    assert config.read_text(encoding="utf-8").startswith("[profile.ci.junit]\npath = ")
    maven = planned(["./mvnw", "-q", "verify"], tmp_path)
    assert maven.argv == ("./mvnw", "-q", "verify") and maven.report.optional
    gradle = planned(["./gradlew", ":app:test"], tmp_path)
    assert gradle.argv[1:3] == ("--init-script", str(reports / "referee-reports.gradle"))
    assert planned(["vendor/bin/phpunit"], tmp_path).argv == (
        "vendor/bin/phpunit",
        "--do-not-cache-result",
        "--log-junit",
        str(reports / "phpunit.xml"),
    )


def _package(tmp_path: Path, scripts: dict[str, str]) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"scripts": scripts}), encoding="utf-8")


def test_npm_test_resolves_the_script_and_asks_its_runner(tmp_path: Path) -> None:
    _package(tmp_path, {"pretest": "tsc", "test": 'NODE_ENV=test jest "src/a b"', "posttest": "x"})
    result = planned(["npm", "test", "--", "--coverage"], tmp_path)
    report = tmp_path / "reports" / "jest.json"
    assert result.shell and result.runner == "jest"
    assert result.argv == (
        f'tsc && NODE_ENV=test jest "src/a b" --coverage --json --outputFile={report} && x',
    )
    assert result.env["PATH"].startswith(str(tmp_path / "node_modules" / ".bin"))
    assert "package.json runs" in result.notes[0]


@pytest.mark.parametrize(
    "argv", [["pnpm", "test"], ["pnpm", "run", "test"], ["yarn", "test"], ["yarn", "test:unit"]]
)
def test_pnpm_and_yarn_scripts_resolve_too(argv: list[str], tmp_path: Path) -> None:
    _package(tmp_path, {"test": "npm run test:unit", "test:unit": "mocha 'test/**/*.js'"})
    result = planned(argv, tmp_path)
    assert result.runner == "mocha" and result.argv[0].startswith("mocha 'test/**/*.js' --reporter")


@pytest.mark.parametrize(
    ("scripts", "argv", "hint"),
    [
        ({"test": 'echo "Error: no test specified" && exit 1'}, ["npm", "test"], "no part of"),
        ({"test": "jest | tee out"}, ["npm", "test"], "shell syntax (|)"),
        ({"test": "npm test"}, ["npm", "test"], "scripts 4 deep"),
        ({"lint": "eslint"}, ["npm", "test"], "has no `test` script"),
        ({"test": "jest --json --outputFile=r.json"}, ["npm", "test"], "its own JSON report"),
        ({"test": "node --test --test-reporter=tap"}, ["npm", "t"], "--test-reporter=junit"),
    ],
)
def test_scripts_referee_cannot_ask_get_advice_naming_what_to_add(
    scripts: dict[str, str], argv: list[str], hint: str, tmp_path: Path
) -> None:
    _package(tmp_path, scripts)
    result = plan(argv, tmp_path)
    assert isinstance(result, Advice) and hint in result.hint, result


@pytest.mark.parametrize(
    "argv",
    [["make", "test"], ["python", "script.py"], ["./run-tests.sh"], ["go", "build"], []],
)
def test_unknown_commands_get_advice_naming_the_junit_field(
    argv: list[str], tmp_path: Path
) -> None:
    result = plan(argv, tmp_path)
    assert isinstance(result, Advice) and result.runner is None
    assert "JUnit XML" in result.hint and "`junit` field" in result.hint


@pytest.mark.parametrize(
    ("argv", "instead"),
    [
        (["python", "test.py"], "`python -m unittest test`"),
        (["python3", "-u", "tests/run_all.py"], "`python -m unittest tests.run_all`"),
        (["python3.11", "-X", "dev", "tests.py", "-v"], "`python -m unittest tests`"),
    ],
)
def test_a_python_script_is_advised_to_run_as_unittest(
    argv: list[str], instead: str, tmp_path: Path
) -> None:
    result = plan(argv, tmp_path)
    assert isinstance(result, Advice) and result.runner is None
    assert instead in result.hint and "unittest.main()" in result.hint, result.hint


def stops(segment: str, index: int = 1) -> str:
    """A segment before the runner's, as planned: it says on stderr that it failed."""
    marker = f"referee: segment {index} failed with exit code"
    return f'{segment} || {{ s=$?; echo "{marker} $s" >&2; exit $s; }}'


def test_a_shell_check_is_planned_segment_by_segment(tmp_path: Path) -> None:
    result = planned(["cd web &&", "go test ./..."], tmp_path, shell=True)
    wrapper = go_exec(tmp_path)
    line = f"{stops('cd web')} && go test '-exec=/bin/sh {wrapper}' -json -count=1 ./..."
    assert result.argv == (line,) and result.shell
    assert result.segments == ("cd web",)


def test_mochas_own_display_reporter_gives_way_to_xunit(tmp_path: Path) -> None:
    _package(
        tmp_path, {"mocha": "mocha --reporter dot -O foo=1", "test": "eslint . && npm run mocha"}
    )
    result = planned(["npm", "test"], tmp_path)
    report = tmp_path / "reports" / "mocha.xml"
    assert result.argv == (
        f"{stops('eslint .')} && mocha --reporter xunit --reporter-option output={report}",
    )
    assert "replaced by xunit: --reporter dot -O foo=1" in result.notes[-1]
