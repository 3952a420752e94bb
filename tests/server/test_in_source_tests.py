"""Fail-before/pass-after for tests that live in source files, on a real Rust crate over MCP: the
base run gets the base's code with the change's `#[cfg(test)]` module spliced in, so an honest
fix with its new assertion in the in-file module is proven, the fix without it passes at base
too, and the assertion without the fix fails now."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from gitrepo import make_repo
from mcp import Client
from mcp_calls import judged_criterion
from projects import SAMPLE_ENV, commit_all
from runner_projects import tool_path

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("cargo", path=tool_path()) is None, reason="needs cargo"),
]

CARGO = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'
DOC = "/// Adds two numbers.\n///\n/// ```\n/// assert_eq!(calc::add(2, 3), 5);\n/// ```\n"
BUGGY = DOC + "pub fn add(a: i32, b: i32) -> i32 {\n    if b < 0 { a - b } else { a + b }\n}\n"
FIXED = (
    "// Negative numbers used to be subtracted.\n"
    + DOC
    + "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
)
OLD_TESTS = (
    "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
    "    #[test]\n    fn adds() {\n        assert_eq!(add(1, 2), 3);\n    }\n}\n"
)
NEW_TESTS = OLD_TESTS.replace(
    "\n}\n",
    "\n\n    #[test]\n    fn adds_negative() {\n        assert_eq!(add(1, -1), 0);\n    }\n}\n",
)
NEGATE = "\npub fn negate(a: i32) -> i32 {\n    -a\n}\n"
NEGATE_TESTS = NEW_TESTS.replace(
    "\n}\n", "\n\n    #[test]\n    fn negates() {\n        assert_eq!(negate(2), -2);\n    }\n}\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The bug at base, with its in-file test module and a doc test; target/ is ignored."""
    return make_repo(
        tmp_path / "calc",
        {"Cargo.toml": CARGO, "src/lib.rs": BUGGY + OLD_TESTS, ".gitignore": "/target\n"},
    )


@pytest.fixture
def checks_env() -> dict[str, str]:
    """The checks find cargo where it installs."""
    return {**SAMPLE_ENV, "PATH": tool_path()}


async def judged(agent: Client, project: Path, lib: str) -> dict[str, Any]:
    """The must_fail_at_base criterion's result once src/lib.rs holds `lib` (uncommitted)."""
    (project / "src" / "lib.rs").write_text(lib, encoding="utf-8")
    check = {"kind": "tests", "argv": ["cargo", "test"], "must_fail_at_base": True}
    goal = "Adding a negative number adds it."
    return await judged_criterion(agent, check, goal, task_type="bug")


async def test_a_fix_with_its_assertion_in_the_in_file_module_fails_at_base(
    agent: Client, project: Path
) -> None:
    criterion = await judged(agent, project, FIXED + NEW_TESTS)
    assert criterion["status"] == "pass", criterion["reason"]
    assert "fails at base and passes now: src/lib.rs::tests::adds_negative" in criterion["reason"]
    # The doc test moved down a line: still the same test, at base and now.
    assert "not compared" not in criterion["reason"], criterion["reason"]


async def test_the_fix_without_the_assertion_passes_at_base_too(
    agent: Client, project: Path
) -> None:
    criterion = await judged(agent, project, FIXED + OLD_TESTS)
    assert (criterion["status"], criterion["reason_code"]) == ("fail", "passes_at_base"), criterion


async def test_the_assertion_without_the_fix_fails_now(agent: Client, project: Path) -> None:
    criterion = await judged(agent, project, BUGGY + NEW_TESTS)
    assert (criterion["status"], criterion["reason_code"]) == ("fail", "fails_now"), criterion
    assert "src/lib.rs::tests::adds_negative" in criterion["reason"]


async def test_a_new_function_whose_test_does_not_compile_at_base_fails_there(
    agent: Client, project: Path
) -> None:
    """The new test calls what the change adds: at base its module does not build, and the new
    tests count as failing there; the unchanged `adds` is not claimed as a proof."""
    criterion = await judged(agent, project, FIXED + NEGATE + NEGATE_TESTS)
    assert criterion["status"] == "pass", criterion["reason"]
    reason = criterion["reason"]
    assert "src/lib.rs::tests::negates" in reason and "src/lib.rs::tests::adds_negative" in reason
    assert "src/lib.rs::tests::adds," not in reason, reason


PATH_DECLARATION = '\n#[cfg(test)]\n#[path = "checks.rs"]\nmod tests;\n'
CHECKS = "use super::*;\n\n#[test]\nfn adds() {\n    assert_eq!(add(1, 2), 3);\n}\n"
NEW_CHECKS = CHECKS + "\n#[test]\nfn adds_negative() {\n    assert_eq!(add(1, -1), 0);\n}\n"


@pytest.mark.parametrize("at_base", [True, False], ids=["declared-at-base", "declared-now"])
async def test_a_fix_with_its_assertion_in_a_path_test_module_fails_at_base(
    agent: Client, project: Path, at_base: bool
) -> None:
    """`#[cfg(test)] #[path = "checks.rs"] mod tests;`: src/checks.rs is test code whatever its
    name, so the base run compiles the change's version of it (and the declaration, when the
    change adds it) with the base's code."""
    if at_base:
        (project / "src" / "lib.rs").write_text(BUGGY + PATH_DECLARATION, encoding="utf-8")
        (project / "src" / "checks.rs").write_text(CHECKS, encoding="utf-8")
        commit_all(project, "tests in a file of their own")
    (project / "src" / "checks.rs").write_text(NEW_CHECKS, encoding="utf-8")
    criterion = await judged(agent, project, FIXED + PATH_DECLARATION)
    assert criterion["status"] == "pass", criterion["reason"]
    assert "fails at base and passes now: src/lib.rs::tests::adds_negative" in criterion["reason"]


async def test_a_new_function_whose_test_in_a_path_module_does_not_build_at_base(
    agent: Client, project: Path
) -> None:
    """The new test in src/checks.rs calls what the change adds: at base the crate's test build
    fails in that file, and its tests count as failing there (the file's every test: which of
    them the change touched is read for in-file modules only)."""
    (project / "src" / "lib.rs").write_text(BUGGY + PATH_DECLARATION, encoding="utf-8")
    (project / "src" / "checks.rs").write_text(CHECKS, encoding="utf-8")
    commit_all(project, "tests in a file of their own")
    negates = "\n#[test]\nfn negates() {\n    assert_eq!(negate(2), -2);\n}\n"
    (project / "src" / "checks.rs").write_text(CHECKS + negates, encoding="utf-8")
    criterion = await judged(agent, project, BUGGY + NEGATE + PATH_DECLARATION)
    assert criterion["status"] == "pass", criterion["reason"]
    assert "src/lib.rs::tests::negates" in criterion["reason"]
