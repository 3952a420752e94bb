"""Python doctests are tests that live in the source, over MCP: the base run gets the base's code
with the change's docstrings, so a fix proven by a new example fails at base; the base-tests run
gets the change's code with the base's docstrings, so an example rewritten with the code is still
checked as it was; a docstring whose prose alone changed is no test edit."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from gitrepo import make_repo
from mcp import Client
from mcp_calls import judged_criterion

pytestmark = pytest.mark.anyio

DOC = '    """The sum of two numbers.\n\n    >>> add(1, 2)\n    3\n    """\n'
BUGGY = "def add(a, b):\n" + DOC + "    return a - b if b < 0 else a + b\n"
FIXED = "def add(a, b):\n" + DOC + "    return a + b\n"
NEW_EXAMPLE = "    >>> add(2, -1)\n    1\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "calc", {"calc.py": BUGGY, ".gitignore": "__pycache__/\n"})


async def judged(agent: Client, project: Path, text: str, **check: Any) -> dict[str, Any]:
    """The criterion's result once calc.py holds `text` (uncommitted)."""
    (project / "calc.py").write_text(text, encoding="utf-8")
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--doctest-modules"]
    goal = "Adding a negative number adds it."
    return await judged_criterion(agent, {"kind": "tests", "argv": argv, **check}, goal)


async def test_a_fix_proven_by_a_new_example_fails_at_base(agent: Client, project: Path) -> None:
    text = FIXED.replace('    """\n    return', NEW_EXAMPLE + '    """\n    return')
    criterion = await judged(agent, project, text, must_fail_at_base=True)
    assert criterion["status"] == "pass", criterion["reason"]
    assert "fails at base and passes now: calc.py::calc.add" in criterion["reason"]


async def test_the_fix_without_an_example_passes_at_base_too(agent: Client, project: Path) -> None:
    criterion = await judged(agent, project, FIXED, must_fail_at_base=True)
    assert (criterion["status"], criterion["reason_code"]) == ("fail", "passes_at_base"), criterion


async def test_an_example_rewritten_with_the_code_is_checked_as_it_was(
    agent: Client, project: Path
) -> None:
    broken = BUGGY.replace("a + b\n", "a * b\n").replace("    3\n", "    2\n")
    criterion = await judged(agent, project, broken)
    assert (criterion["status"], criterion["reason_code"]) == ("fail", "base_test_failed"), (
        criterion
    )
    assert "calc.py::calc.add: expected 3, got 2" in criterion["reason"], criterion["reason"]


async def test_prose_edited_beside_an_example_is_no_test_edit(agent: Client, project: Path) -> None:
    text = FIXED.replace("The sum of two numbers.", "Adds two numbers, negative ones too.")
    criterion = await judged(agent, project, text)
    assert criterion["status"] == "pass", criterion["reason"]
