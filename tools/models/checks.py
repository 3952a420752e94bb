"""How referee verifies a criterion mechanically: the check union on `kind`."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, get_args

from pydantic import BeforeValidator, Field

from referee.tools.models.browser import (
    AnyExpectation,
    BrowserCheck,
    BrowserStep,
    Expectation,
    GotoStep,
    Viewport,
)
from referee.tools.models.common import Model

__all__ = [
    "STATIC_RULES",
    "AnyExpectation",
    "BrowserCheck",
    "BrowserStep",
    "Check",
    "CommandCheck",
    "Expectation",
    "GotoStep",
    "Serve",
    "StaticCheck",
    "StaticRule",
    "TestsCheck",
    "Viewport",
    "normalize_rule",
]

StaticRule = Literal[
    "file_length",
    "function_length",
    "nesting_depth",
    "cognitive_complexity",
    "hardcoded_secrets",
    "near_duplicates",
    "test_existence",
    "todo_density",
]
STATIC_RULES: tuple[str, ...] = get_args(StaticRule)
_RULE_ALIASES = {
    "secrets": "hardcoded_secrets",
    "secret": "hardcoded_secrets",
    "duplicates": "near_duplicates",
    "near_duplicate_blocks": "near_duplicates",
    "duplicate_blocks": "near_duplicates",
    "duplication": "near_duplicates",
    "tests_exist": "test_existence",
    "missing_tests": "test_existence",
    "todo_fixme_density": "todo_density",
    "todo": "todo_density",
    "todos": "todo_density",
    "fixme": "todo_density",
    "nesting": "nesting_depth",
    "complexity": "cognitive_complexity",
}


def normalize_rule(value: Any) -> Any:
    """Accept 'near-duplicate blocks', 'TODO/FIXME density' and other spellings of a rule name."""
    if not isinstance(value, str):
        return value
    key = re.sub(r"[^a-z0-9]+", "_", value.strip().lower()).strip("_")
    return _RULE_ALIASES.get(key, key)


def _lower(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


Argv = Annotated[
    list[str],
    Field(min_length=1, description="Program and arguments, no shell unless `shell: true`"),
]
Env = Annotated[
    dict[str, str], Field(default_factory=dict, description="Extra environment variables")
]
MemoryMb = Annotated[
    int | None,
    Field(
        default=None,
        ge=16,
        le=1024 * 1024,
        description=(
            "The most memory (MiB) the command's processes may hold together, its /tmp included;"
            " above it they are killed (`memory_limit`). Omitted: the server's limit (2048 MiB"
            " unless started with --memory-mb)"
        ),
    ),
]


class _ProcessCheck(Model):
    argv: Argv
    cwd: str | None = Field(
        default=None, description="Working directory, relative to the repository root"
    )
    timeout_s: float = Field(
        default=600, gt=0, le=86400, description="Seconds before the whole process group is killed"
    )
    env: Env
    shell: bool = Field(default=False, description="Run argv joined as one shell command line")
    network: bool = Field(
        default=False, description="Let the command reach the network (the sandbox denies it)"
    )
    memory_mb: MemoryMb = None


class TestsCheck(_ProcessCheck):
    """Run a test suite and read its per-test report."""

    kind: Literal["tests"]
    junit: str | None = Field(
        default=None,
        description=(
            "Path of the report the command writes (JUnit XML, or jest's JSON), relative to `cwd`"
            " and inside it; omitted: referee asks the runner for one (pytest, unittest, node"
            " --test, vitest, jest, mocha, npm/pnpm/yarn scripts, go test, cargo test, cargo"
            " nextest, Maven, Gradle, PHPUnit)"
        ),
    )
    must_fail_at_base: bool = Field(
        default=False,
        description="Also run at the base commit; passes only if it failed there and passes now",
    )
    coverage: bool = Field(
        default=True,
        description=(
            "Task scope: measure which changed lines the tests execute (Python: coverage.py) in"
            " the criterion's own run"
        ),
    )
    min_diff_coverage: float | None = Field(
        default=None,
        ge=0,
        le=100,
        description=(
            "Percent of the changed statements the tests must execute; below it the criterion"
            " fails, naming the uncovered lines"
        ),
    )
    mutation: bool = Field(
        default=False,
        description=(
            "Run mutants of the changed lines against these tests (always at depth `deep`)"
        ),
    )
    max_mutants: int = Field(
        default=20, ge=1, le=200, description="At most this many mutants, spread over the lines"
    )
    min_mutation_score: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description=(
            "Killed share of the changed lines' mutants the tests must reach (implies mutation);"
            " below it the criterion fails, naming each surviving mutant at file:line"
        ),
    )
    repeat: int = Field(
        default=1,
        ge=1,
        le=20,
        description=(
            "Run the suite this many times; a test that both passes and fails makes the"
            " criterion unscored (flaky), never a pass"
        ),
    )
    expected_changes: list[str] = Field(
        default_factory=list,
        description=(
            "Test ids or globs whose base form may fail after the change (the contract changes"
            " what they check); every other test that passed at base must pass in its base form"
        ),
    )


class CommandCheck(_ProcessCheck):
    """Run a command; passes on the expected exit code."""

    kind: Literal["command"]
    expect_exit: int = Field(default=0, description="Exit code that means the criterion holds")


class StaticCheck(Model):
    """One rule of the static pipeline over the scope's files."""

    kind: Literal["static"]
    rule: Annotated[StaticRule, BeforeValidator(normalize_rule)]
    max: int | None = Field(default=None, ge=0, description="Findings allowed (default 0)")
    paths: list[str] = Field(
        default_factory=list,
        description=(
            "Glob patterns limiting the files checked; a pattern starting with `!` excludes"
            " (`['src/**', '!src/vendored/**']`)"
        ),
    )
    baseline: Literal["exclude", "include"] = Field(
        default="exclude",
        description=(
            "Task scope: `exclude` judges only the change's own findings (in its lines, or absent"
            " at base); `include` counts the findings that were there at base too"
        ),
    )


Check = Annotated[
    TestsCheck | CommandCheck | BrowserCheck | StaticCheck, Field(discriminator="kind")
]


class Serve(Model):
    """The command that starts the application under test for browser checks."""

    argv: Argv
    url: str = Field(description="Loopback URL polled until it answers")
    ready_timeout_s: float = Field(default=30, gt=0, le=600)
    cwd: str | None = None
    env: Env
    shell: bool = False
    memory_mb: MemoryMb = None
