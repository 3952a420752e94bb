"""Modules of values over MCP: one that only the tests read is the tests' (an honest fix that adds
its case there is proven at base, where the new case meets the base's code); one the code reads
is the code's (a fix to a table is the fix, never laid into the base run)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from gitrepo import make_repo
from mcp import Client
from mcp_calls import judged_criterion

pytestmark = pytest.mark.anyio

# The code reads a table of its own: SIGN['neg'] = -1 is the bug.
TABLE = "SIGN = {'neg': -1, 'pos': 1}\n"
BUGGY = (
    "from calc_table import SIGN\n\n\n"
    "def add(a, b):\n    return a + SIGN['neg'] * b if b < 0 else a + SIGN['pos'] * b\n"
)
FIXED = "def add(a, b):\n    return a + b\n"
CASES = "CASES = [(1, 2, 3), (0, 0, 0)]\n"
TEST = (
    "import sys\nfrom pathlib import Path\n\nsys.path.insert(0, str(Path(__file__).parents[1]))\n"
    "from calc import add\nfrom calc_cases import CASES\n\n\n"
    "def test_cases():\n    for a, b, total in CASES:\n        assert add(a, b) == total\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "calc",
        {
            "calc.py": BUGGY,
            "calc_table.py": TABLE,
            "calc_cases.py": CASES,
            "tests/test_calc.py": TEST,
            ".gitignore": "__pycache__/\n",
        },
    )


async def judged(agent: Client, project: Path, files: dict[str, str]) -> dict[str, Any]:
    for path, text in files.items():
        (project / path).write_text(text, encoding="utf-8")
    check = {
        "kind": "tests",
        "argv": [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        "must_fail_at_base": True,
    }
    return await judged_criterion(
        agent, check, "Adding a negative number adds it.", task_type="bug"
    )


async def test_a_fix_proven_by_a_case_added_to_the_tests_module_of_values(
    agent: Client, project: Path
) -> None:
    cases = CASES.replace("(0, 0, 0)]", "(0, 0, 0), (2, -1, 1)]")
    criterion = await judged(agent, project, {"calc.py": FIXED, "calc_cases.py": cases})
    assert criterion["status"] == "pass", criterion["reason"]
    assert "fails at base and passes now: tests/test_calc.py::test_cases" in criterion["reason"]


async def test_a_fix_to_a_table_the_code_reads_is_the_fix(agent: Client, project: Path) -> None:
    """calc.py reads SIGN: the table is code, so the base run keeps the base's table and the new
    test fails there (were it taken for the tests' data, the fix would pass at base too)."""
    test = TEST + "\n\ndef test_negative():\n    assert add(2, -1) == 1\n"
    fixed = {"calc_table.py": TABLE.replace("-1", "1"), "tests/test_calc.py": test}
    criterion = await judged(agent, project, fixed)
    assert criterion["status"] == "pass", criterion["reason"]
    assert "fails at base and passes now: tests/test_calc.py::test_negative" in criterion["reason"]
