"""Edits a hostile change makes to a small project, and the loop that judges it.

Shared by the tests that attack referee as a cheating generator would: each writes a project,
makes one change (`Edit`), and runs the agent's loop (contract, change, evaluate, a judge that
completes referee's draft as it stands, validate, aggregate) through the MCP server.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gitrepo import make_repo
from mcp import Client
from mcp_calls import call
from runs import judged

from referee.server.app import build_server
from referee.tools.settings import Settings

Edit = Callable[[Path], None]

PY_HEADER = "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))\n"
PY_CALC = "def add(a, b):\n    return a + b\n"
PY_TESTS = (
    PY_HEADER + "import pytest\nfrom calc import add\n\n\n"
    "def test_add():\n    assert add(1, 2) == 3\n\n\n"
    "def test_zero():\n    assert add(0, 0) == 0\n"
)


def replaced(path: str, old: str, new: str) -> Edit:
    def edit(repo: Path) -> None:
        target = repo / path
        text = target.read_text(encoding="utf-8")
        assert old in text, (path, old)
        target.write_text(text.replace(old, new), encoding="utf-8")

    return edit


def written(path: str, data: str | bytes) -> Edit:
    def edit(repo: Path) -> None:
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            target.write_bytes(data)
        else:
            target.write_text(data, encoding="utf-8")

    return edit


def appended(path: str, text: str) -> Edit:
    def edit(repo: Path) -> None:
        with (repo / path).open("a", encoding="utf-8") as out:
            out.write(text)

    return edit


def both(*edits: Edit) -> Edit:
    def edit(repo: Path) -> None:
        for one in edits:
            one(repo)

    return edit


def deleted(path: str) -> Edit:
    return lambda repo: (repo / path).unlink()


BREAK = replaced("calc.py", "a + b", "a - b")


def python_project(tmp: Path, tests: dict[str, str] | None = None) -> Path:
    files = {
        "calc.py": PY_CALC,
        "tests/__init__.py": "",
        **(tests or {"tests/test_calc.py": PY_TESTS}),
    }
    return make_repo(tmp / "py", {**files, ".gitignore": "__pycache__/\n"})


def py_check() -> dict[str, Any]:
    return {"kind": "tests", "argv": [sys.executable, "-m", "pytest", "-q", "tests"]}


def agent_for(repo: Path) -> Client:
    return Client(build_server(Settings.build([repo], env=dict(os.environ))))


async def judged_loop(
    repo: Path, change: Edit, check: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Contract, the change, evaluate, a judge that completes the draft, validate, aggregate."""
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, check)
        change(repo)
        result = await call(agent, "evaluate", contract_id=cid)
        await call(agent, "validate_scorecard", scorecard=judged(result["draft_scorecard"]))
        return result, await call(agent, "aggregate", contract_id=cid)


async def calc_contract(agent: Client, check: dict[str, Any]) -> str:
    """A contract with the one criterion that `check` passes; returns its id."""
    made = await call(
        agent,
        "create_contract",
        goal="Keep the calculator correct.",
        out_of_scope=["other operations"],
        functional=[{"criterion": "tests pass", "verification_method": "test", "check": check}],
    )
    return str(made["contract"]["id"])


async def bugfix_contract(agent: Client, functional: list[dict[str, Any]], **fields: Any) -> str:
    """A contract for projects.bugfix_repo's fix (adding a negative number); returns its id."""
    made = await call(
        agent,
        "create_contract",
        goal="Fix adding a negative number.",
        task_type="bug",
        out_of_scope=["other operations"],
        functional=functional,
        **fields,
    )
    return str(made["contract"]["id"])


def not_delivered(result: dict[str, Any], decision: dict[str, Any]) -> None:
    """The single criterion failed and the loop did not deliver."""
    assert result["criteria"][0]["status"] == "fail", result["criteria"]
    assert decision["decision"] != "DELIVER", decision
