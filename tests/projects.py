"""Small real projects for evaluation tests: passing, failing, hanging, tampered …"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gitrepo import git, make_repo

from referee.tools.create_contract.entry import create_contract
from referee.tools.repo import describe_repo
from referee.tools.rubrics import load_rubrics
from referee.tools.store import Store

PY = sys.executable

CALC = "def add(a, b):\n    return a + b\n"
CALC_TESTS = (
    "import os, sys\n"
    "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'src'))\n"
    "from calc import add\n\n"
    "def test_add():\n    assert add(1, 2) == 3\n\n"
    "def test_add_negative():\n    assert add(-1, -2) == -3\n"
)


def calc_repo(path: Path, extra: dict[str, str] | None = None) -> Path:
    return make_repo(
        path,
        {
            "src/calc.py": CALC,
            "tests/test_calc.py": CALC_TESTS,
            ".gitignore": "__pycache__/\n",
            **(extra or {}),
        },
    )


def pytest_check(*paths: str, **kw: Any) -> dict[str, Any]:
    return {"kind": "tests", "argv": [PY, "-m", "pytest", "-q", *paths], **kw}


def command_check(code: str, **kw: Any) -> dict[str, Any]:
    return {"kind": "command", "argv": [PY, "-c", code], **kw}


def contract_for(store: Store, repo: Path, *criteria: dict[str, Any], **fields: Any):
    args = {
        "goal": "Evaluate the sample project.",
        "out_of_scope": ["nothing else"],
        "functional": list(criteria),
        **fields,
    }
    return create_contract(
        args,
        store=store,
        rubrics=load_rubrics(repo),
        repo=describe_repo(repo),
        now=lambda: datetime.now(UTC),
    ).contract


def commit_all(repo: Path, message: str = "change") -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")
