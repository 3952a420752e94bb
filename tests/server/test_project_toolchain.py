"""The project's own toolchain, as a new user meets it: a pinned package manager that would
download itself, and a report never written because an earlier segment of the line failed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from edits import agent_for, bugfix_contract, calc_contract, python_project
from mcp_calls import call

pytestmark = pytest.mark.anyio

PINNED = '{"name": "calc", "private": true, "packageManager": "pnpm@10.28.0"}\n'


async def evaluate_check(repo: Path, check: dict[str, Any]) -> dict[str, Any]:
    """Contract with the one check, evaluate; the criterion."""
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, check)
        result = await call(agent, "evaluate", contract_id=cid)
    criterion: dict[str, Any] = result["criteria"][0]
    return criterion


async def evaluate_line(repo: Path, line: str) -> dict[str, Any]:
    return await evaluate_check(repo, {"kind": "tests", "argv": [line], "shell": True})


@pytest.mark.skipif(shutil.which("corepack") is None, reason="corepack comes with node")
async def test_a_pinned_package_manager_fails_at_once_and_says_why(tmp_path: Path) -> None:
    repo = python_project(tmp_path, None)
    (repo / "package.json").write_text(PINNED)
    criterion = await evaluate_line(
        repo, f"corepack pnpm --version && {sys.executable} -m pytest -q tests"
    )
    assert criterion["status"] == "unscored", criterion
    assert criterion["reason_code"] == "no_report", criterion
    reason = str(criterion["reason"])
    assert "segment 1 of the line, `corepack pnpm --version`, failed" in reason, reason
    assert "Network access disabled" in reason, reason


async def test_the_failed_segment_and_its_last_words_are_named(tmp_path: Path) -> None:
    repo = python_project(tmp_path, None)
    (repo / "build.sh").write_text(
        "echo compiling >&2\necho 'error: EAI_AGAIN registry' >&2\nexit 3\n"
    )
    criterion = await evaluate_line(
        repo, f"true && sh build.sh && {sys.executable} -m pytest -q tests"
    )
    reason = str(criterion["reason"])
    assert criterion["status"] == "unscored", criterion
    assert "segment 2 of the line, `sh build.sh`, failed (exit code 3)" in reason, reason
    assert "'error: EAI_AGAIN registry'" in reason, reason


async def test_a_runner_that_crashes_quotes_its_last_stderr_line(tmp_path: Path) -> None:
    repo = python_project(tmp_path, {"tests/test_calc.py": "def test_x():\n    pass\n"})
    (repo / "conftest.py").write_text(
        "import sys\nsys.stderr.write('fatal: the lock is held\\n')\nsys.exit(4)\n"
    )
    criterion = await evaluate_check(
        repo, {"kind": "tests", "argv": [sys.executable, "-m", "pytest", "-q"]}
    )
    assert criterion["status"] == "unscored", criterion
    assert "fatal: the lock is held" in criterion["reason"], criterion


UNITTEST_BUG = "def add(a, b):\n    return a - b if b < 0 else a + b\n"
UNITTEST_FIX = "def add(a, b):\n    return a + b\n"
UNITTEST_TESTS = (
    "import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n"
    "    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n"
)
NEGATIVE = "\n    def test_negative(self):\n        self.assertEqual(add(1, -1), 0)\n"


def venv_project(tmp: Path, ignore: str) -> Path:
    """A bug at base, an in-tree virtualenv the project's test command names, and the fix."""
    from gitrepo import make_repo

    repo = make_repo(tmp / "calc", {"calc.py": UNITTEST_BUG, "test_calc.py": UNITTEST_TESTS})
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(repo / ".venv")], check=True)
    if ignore:
        (repo / ".git" / "info" / "exclude").write_text(ignore)
    return repo


@pytest.mark.parametrize("ignore", ["", ".venv/\n"], ids=["not-ignored", "info-exclude"])
async def test_an_in_tree_virtualenv_serves_the_base_run_too(ignore: str, tmp_path: Path) -> None:
    """`.venv/bin/python -m unittest` at base and now: the environment is no part of the change,
    whether git ignores it through .git/info/exclude or not at all."""
    repo = venv_project(tmp_path, ignore)
    check = {
        "kind": "tests",
        "argv": [".venv/bin/python", "-m", "unittest", "test_calc"],
        "must_fail_at_base": True,
    }
    async with agent_for(repo) as agent:
        functional = [{"criterion": "fixed", "verification_method": "test", "check": check}]
        cid = await bugfix_contract(agent, functional)
        (repo / "calc.py").write_text(UNITTEST_FIX)
        (repo / "test_calc.py").write_text(UNITTEST_TESTS + NEGATIVE)
        result = await call(agent, "evaluate", contract_id=cid)
    criterion = result["criteria"][0]
    assert criterion["status"] == "pass", (criterion["reason"], result["evidence"])
    assert "test_negative" in criterion["reason"], criterion
    if ignore:
        assert result["target"]["changed_files"] == ["calc.py", "test_calc.py"]


TOOL_TEST = (
    "import subprocess\nimport unittest\n\n\nclass Tool(unittest.TestCase):\n"
    "    def test_the_projects_own_script_runs(self):\n"
    "        said = subprocess.run(['calc-tool'], capture_output=True, text=True, check=True)\n"
    "        self.assertEqual(said.stdout.strip(), 'the venv tool')\n"
)


async def test_a_virtualenvs_interpreter_runs_as_in_its_activated_environment(
    tmp_path: Path,
) -> None:
    """`.venv/bin/python -m unittest`: the tests start the project's console script, which only
    the virtualenv's bin holds (PATH as `activate` sets it, and VIRTUAL_ENV)."""
    from gitrepo import make_repo

    repo = make_repo(tmp_path / "calc", {"test_tool.py": TOOL_TEST, ".gitignore": ".venv/\n"})
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(repo / ".venv")], check=True)
    script = repo / ".venv" / "bin" / "calc-tool"
    script.write_text("#!/bin/sh\necho 'the venv tool'\n")
    script.chmod(0o755)
    check = {"kind": "tests", "argv": [".venv/bin/python", "-m", "unittest", "test_tool"]}
    async with agent_for(repo) as agent:
        functional = [{"criterion": "runs", "verification_method": "test", "check": check}]
        cid = await bugfix_contract(agent, functional)
        result = await call(agent, "evaluate", contract_id=cid, scope="project")
    criterion = result["criteria"][0]
    assert criterion["status"] == "pass", (criterion["reason"], result["evidence"])


@pytest.mark.skipif(shutil.which("mvn") is None, reason="needs maven")
async def test_a_plugin_maven_cannot_resolve_offline_is_quoted_from_stdout(tmp_path: Path) -> None:
    """Maven logs its errors on stdout: a pinned plugin the offline repository lacks is named in
    the reason, not only "no test ran"."""
    from gitrepo import make_repo
    from runner_projects import MAVEN

    files = dict(MAVEN.suites["pass"])
    files["pom.xml"] = files["pom.xml"].replace(
        "maven-surefire-plugin</artifactId><version>2.22.3",
        "maven-surefire-plugin</artifactId><version>3.2.5",
    )
    assert "3.2.5" in files["pom.xml"]
    repo = make_repo(tmp_path / "calc", files)
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, {"kind": "tests", "argv": ["mvn", "test"]})
        result = await call(agent, "evaluate", contract_id=cid, scope="project")
    criterion = result["criteria"][0]
    assert criterion["status"] == "fail", criterion
    assert "maven-surefire-plugin:3.2.5" in criterion["reason"], criterion
