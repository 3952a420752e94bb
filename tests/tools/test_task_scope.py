"""Task scope judges the change, not the project's history: findings that predate it are the
baseline (shown, never counted), and grades follow the per-test evidence."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo import make_repo
from projects import BUG_HEADER, commit_all, contract_for, evaluated, pytest_check

from referee.tools.store import Store

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

HEADER = BUG_HEADER  # the tests import src/ without an install
LONG_BODY = "\n".join(f"    total += {i}" for i in range(60))
OLD_DEBT = f"def old_long():\n    total = 0\n{LONG_BODY}\n    return total\n"
BUGGY = "def clamp(x):\n    return max(0, min(x, 9))\n"  # the bug: the upper bound is 10
FIXED = "def clamp(x):\n    return max(0, min(x, 10))\n"
TESTS = HEADER + "from lib import clamp\n\ndef test_clamp():\n    assert clamp(10) == 10\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "repo",
        {
            "src/lib.py": BUGGY + "\n\n" + OLD_DEBT,
            "tests/test_lib.py": TESTS.replace("== 10", "== 9").replace("(10)", "(9)"),
            ".gitignore": "__pycache__/\n",
        },
    )


@pytest.fixture
def store(project: Path) -> Store:
    return Store(project / ".referee")


async def run(store: Store, project: Path, *criteria: dict[str, object]):
    contract = contract_for(store, project, *criteria, task_type="bug")
    return await evaluated(store, project, contract.id)


def clamp_tests() -> dict[str, object]:
    return {"criterion": "clamp", "verification_method": "test", "check": pytest_check("tests")}


def short_functions(**check: object) -> dict[str, object]:
    return {
        "criterion": "no long functions",
        "verification_method": "static",
        "check": {"kind": "static", "rule": "function_length", **check},
    }


def fix_next_to_old_debt(project: Path) -> None:
    # The fix, plus a comment above the old long function: its line number moves.
    (project / "src" / "lib.py").write_text(
        FIXED + "\n\n# the total of the first sixty numbers\n" + OLD_DEBT, encoding="utf-8"
    )
    (project / "tests" / "test_lib.py").write_text(TESTS, encoding="utf-8")


async def test_old_debt_next_to_a_correct_fix_is_baseline_only(store: Store, project: Path) -> None:
    fix_next_to_old_debt(project)
    result = await run(store, project, clamp_tests(), short_functions())

    assert [c.status for c in result.criteria] == ["pass", "pass"]
    assert "1 more predate the change" in result.criteria[1].reason
    assert result.findings == []
    assert result.baseline_findings is not None
    assert result.baseline_findings.by_rule == {"function_length": 1}
    assert result.baseline_findings.top[0].location == "src/lib.py:6"
    assert result.dimensions["craft"].score == 3
    assert result.issues == [] and result.draft_scorecard.issues == []
    assert result.draft_scorecard.guidance == ""
    static = next(e for e in result.evidence if e.tool == "static")
    assert "1 baseline finding that predates the change" in static.summary


async def test_baseline_include_counts_what_predates_the_change(
    store: Store, project: Path
) -> None:
    fix_next_to_old_debt(project)
    result = await run(store, project, clamp_tests(), short_functions(baseline="include"))

    assert result.criteria[1].status == "fail"
    assert "src/lib.py:6" in result.criteria[1].reason
    assert result.dimensions["craft"].score == 3  # the dimension still judges the change


async def test_debt_the_change_adds_counts(store: Store, project: Path) -> None:
    fix_next_to_old_debt(project)
    with (project / "src" / "lib.py").open("a", encoding="utf-8") as lib:
        lib.write("\n\n" + OLD_DEBT.replace("old_long", "new_long"))
    result = await run(store, project, clamp_tests(), short_functions())

    assert result.criteria[1].status == "fail"
    assert sorted((f.rule, f.location) for f in result.findings) == [
        ("function_length", "src/lib.py:71"),
        ("near_duplicates", "src/lib.py:6"),  # the old function, now copied at line 71
    ]
    assert result.baseline_findings is not None
    assert result.baseline_findings.by_rule == {"function_length": 1}
    assert result.dimensions["craft"].score == 2
    assert any("new_long" in i.description for i in result.issues)


async def test_a_secret_added_where_an_old_one_was_counts(store: Store, project: Path) -> None:
    old_secret = 'PASSWORD = "s3cr3t-P4ssw0rd!x"\n'
    (project / "src" / "settings.py").write_text(old_secret, encoding="utf-8")
    commit_all(project, "an old secret")
    (project / "src" / "settings.py").write_text(
        old_secret + 'TOKEN = "ghp_' + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + '"\n',
        encoding="utf-8",
    )
    result = await run(store, project, clamp_tests())

    assert [f.location for f in result.findings if f.rule == "hardcoded_secrets"] == [
        "src/settings.py:2"
    ]
    assert result.baseline_findings is not None
    assert result.baseline_findings.by_rule == {"hardcoded_secrets": 1}
    secrets = [i.location for i in result.issues if "hardcoded_secrets" in i.description]
    assert secrets == ["src/settings.py:2"]


async def test_one_failing_test_among_many_asks_for_a_revision_not_a_block(
    store: Store, project: Path
) -> None:
    many = "\n".join(
        f"def test_clamp_{i}():\n    assert clamp({i % 10}) == {i % 10}\n" for i in range(40)
    )
    (project / "tests" / "test_many.py").write_text(
        HEADER + "from lib import clamp\n\n" + many, encoding="utf-8"
    )
    (project / "src" / "lib.py").write_text(FIXED + "\n\n" + OLD_DEBT, encoding="utf-8")
    (project / "tests" / "test_lib.py").write_text(
        TESTS.replace("== 10", "== 11"), encoding="utf-8"
    )  # the one test that fails
    result = await run(store, project, clamp_tests())

    crit = result.criteria[0]
    assert crit.status == "fail" and crit.tests is not None
    assert (crit.tests.passed, crit.tests.failed) == (40, 1)
    for key in ("correctness", "functionality"):
        assert result.dimensions[key].score == 1, result.dimensions[key]
    assert "AC-F-001 (40/41 of its tests pass)" in result.dimensions["correctness"].evidence


async def test_nothing_passing_is_the_bottom(store: Store, project: Path) -> None:
    (project / "tests" / "test_lib.py").write_text(TESTS, encoding="utf-8")  # fails on the bug
    result = await run(store, project, clamp_tests())

    assert result.criteria[0].tests is not None and result.criteria[0].tests.passed == 0
    assert result.dimensions["correctness"].score == 0
