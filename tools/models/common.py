"""Shared bases and closed vocabularies of referee's models."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from referee.tools.text import encodable

Severity = Literal["CRITICAL", "HIGH", "MEDIUM", "LOW"]
SEVERITY_ORDER: dict[str, int] = {"CRITICAL": 0, "HIGH": 1, "MEDIUM": 2, "LOW": 3}

Verdict = Literal["ACCEPT", "REVISE", "BLOCK"]
ACCEPT: Verdict = "ACCEPT"
REVISE: Verdict = "REVISE"
BLOCK: Verdict = "BLOCK"

Decision = Literal["DELIVER", "REVISE", "ESCALATE", "PENDING"]
HealthBand = Literal["STRONG", "ADEQUATE", "NEEDS_WORK", "CRITICAL"]

TaskType = Literal["feature", "bug", "security", "other"]
VerificationMethod = Literal["test", "e2e", "static", "manual"]
ContextStrategy = Literal["reset", "continuous", "hybrid"]
Scope = Literal["task", "project", "strategic"]
CheckedScope = Literal["task", "project"]
Depth = Literal["quick", "standard", "deep"]
Isolation = Literal["sandbox", "inplace", "worktree"]
SandboxKind = Literal["bubblewrap", "none"]
ScorecardFormat = Literal["referee", "tenpoint"]
CheckKind = Literal["tests", "command", "browser", "static"]
CriterionStatus = Literal["pass", "fail", "unscored"]


class ReasonCode(StrEnum):
    """Why a criterion ended as it did, for code to act on (the reason text is for people)."""

    PASSED = "passed"
    TESTS_FAILED = "tests_failed"
    NO_TESTS = "no_tests"
    EXIT_CODE = "exit_code"
    FINDINGS = "findings"
    EXPECTATION_FAILED = "expectation_failed"
    PASSES_AT_BASE = "passes_at_base"
    FAILS_NOW = "fails_now"
    COULD_NOT_START = "could_not_start"
    TIMED_OUT = "timed_out"
    NO_REPORT = "no_report"
    RUNNER_UNKNOWN = "runner_unknown"
    REPORT_TOO_LARGE = "report_too_large"
    REPORT_OUTSIDE = "report_outside"
    CWD_OUTSIDE = "cwd_outside"
    SERVE_FAILED = "serve_failed"
    PORT_IN_USE = "port_in_use"
    SERVE_EXITED = "serve_exited"
    BROWSER_FAILED = "browser_failed"
    NO_BASELINE = "no_baseline"
    NO_BASE = "no_base"
    BASE_NOT_RUN = "base_not_run"
    NOT_RUN_AT_BASE = "not_run_at_base"
    NEW_TESTS_SKIPPED = "new_tests_skipped"
    PIPELINE_FAILED = "pipeline_failed"
    MANUAL = "manual"
    HARNESS_FLIP = "harness_flip"
    HARNESS_UNVERIFIED = "harness_unverified"
    FLAKY = "flaky"
    DIFF_COVERAGE_LOW = "diff_coverage_low"
    MUTATION_SCORE_LOW = "mutation_score_low"
    BASE_TEST_FAILED = "base_test_failed"
    BASE_TESTS_NOT_RUN = "base_tests_not_run"
    A11Y_BASE_NOT_RUN = "a11y_base_not_run"
    RUNNER_BYPASSED = "runner_bypassed"
    IMPORTED_ELSEWHERE = "imported_elsewhere"
    MEMORY_LIMIT = "memory_limit"
    SANDBOX_STOPPED = "sandbox_stopped"


class Model(BaseModel):
    """Base of every referee model: strict about unknown fields, JSON names by alias.

    Descriptions are written with `Field(description=…)`. Validators are built on first use
    (`defer_build`), and attribute docstrings are not read (that parses every class's source):
    a command that uses a few models does not pay for all of them at import.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        serialize_by_alias=True,
        defer_build=True,
    )

    @model_validator(mode="before")
    @classmethod
    def _encodable(cls, data: Any) -> Any:
        """Text that cannot be encoded is escaped, never refused: a file name or a program's
        output with bytes that are not UTF-8 (a lone surrogate, tools/text.py) would make a
        constrained field refuse a whole result (evaluate answering `invalid_input` for the
        player's file name) and any field fail to serialize. Each field's strings, and strings
        one level inside its list or mapping; deeper ones are a nested model's own."""
        if not isinstance(data, dict) or all(map(_plain, data.values())):
            return data  # the common case, checked without building anything
        return {key: _encodable_value(value) for key, value in data.items()}


def _plain(value: Any) -> bool:
    """Nothing to escape: not text, or ASCII text (lists and mappings looked into)."""
    if isinstance(value, str):
        return value.isascii()
    if isinstance(value, list):
        return all(not isinstance(item, str) or item.isascii() for item in value)
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items() if isinstance(v, str))
    return True


def _encodable_value(value: Any) -> Any:
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, list):
        return [encodable(item) if isinstance(item, str) else item for item in value]
    if isinstance(value, dict):
        return {
            encodable(k) if isinstance(k, str) else k: encodable(v) if isinstance(v, str) else v
            for k, v in value.items()
        }
    return value
