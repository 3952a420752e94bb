"""The project's own toolchain, as a new user meets it: a pinned package manager that would
download itself, and a report never written because an earlier segment of the line failed."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from edits import agent_for, python_project
from mcp_calls import call

pytestmark = pytest.mark.anyio

PINNED = '{"name": "calc", "private": true, "packageManager": "pnpm@10.28.0"}\n'


async def evaluate_line(repo: Path, line: str) -> dict[str, object]:
    async with agent_for(repo) as agent:
        made = await call(
            agent,
            "create_contract",
            goal="Keep the calculator correct.",
            out_of_scope=["other operations"],
            functional=[
                {
                    "criterion": "tests pass",
                    "verification_method": "test",
                    "check": {"kind": "tests", "argv": [line], "shell": True},
                }
            ],
        )
        result = await call(agent, "evaluate", contract_id=made["contract"]["id"])
    criterion: dict[str, object] = result["criteria"][0]
    return criterion


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
    async with agent_for(repo) as agent:
        made = await call(
            agent,
            "create_contract",
            goal="Keep the calculator correct.",
            out_of_scope=["other operations"],
            functional=[
                {
                    "criterion": "tests pass",
                    "verification_method": "test",
                    "check": {"kind": "tests", "argv": [sys.executable, "-m", "pytest", "-q"]},
                }
            ],
        )
        result = await call(agent, "evaluate", contract_id=made["contract"]["id"])
    criterion = result["criteria"][0]
    assert criterion["status"] == "unscored", criterion
    assert "fatal: the lock is held" in criterion["reason"], criterion
