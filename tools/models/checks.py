"""How referee verifies a criterion mechanically: the check union on `kind`."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, model_validator

from referee.tools.models.common import Model

STATIC_RULES = (
    "file_length",
    "function_length",
    "nesting_depth",
    "cognitive_complexity",
    "hardcoded_secrets",
    "near_duplicates",
    "test_existence",
    "todo_density",
)
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


class CommandCheck(_ProcessCheck):
    """Run a command; passes on the expected exit code."""

    kind: Literal["command"]
    expect_exit: int = Field(default=0, description="Exit code that means the criterion holds")


class Viewport(Model):
    width: int = Field(default=1280, ge=100, le=8000)
    height: int = Field(default=800, ge=100, le=8000)


class GotoStep(Model):
    action: Literal["goto"]
    url: str


class ClickStep(Model):
    action: Literal["click"]
    selector: str = Field(min_length=1)


class FillStep(Model):
    action: Literal["fill"]
    selector: str = Field(min_length=1)
    value: str


class PressStep(Model):
    action: Literal["press"]
    selector: str = Field(min_length=1)
    key: str = Field(min_length=1)


class SelectStep(Model):
    action: Literal["select"]
    selector: str = Field(min_length=1)
    value: str


class WaitForStep(Model):
    action: Literal["wait_for"]
    selector: str = Field(min_length=1)
    state: Literal["attached", "detached", "visible", "hidden"] = "visible"


BrowserStep = Annotated[
    GotoStep | ClickStep | FillStep | PressStep | SelectStep | WaitForStep,
    Field(discriminator="action"),
]


class _TextOrSelector(Model):
    text: str | None = None
    selector: str | None = None

    @model_validator(mode="after")
    def _one_target(self) -> _TextOrSelector:
        if (self.text is None) == (self.selector is None):
            raise ValueError("give exactly one of `text` or `selector`")
        return self


class VisibleExpect(_TextOrSelector):
    type: Literal["visible"]


class HiddenExpect(_TextOrSelector):
    type: Literal["hidden"]


class TitleContainsExpect(Model):
    type: Literal["title_contains"]
    value: str


class UrlMatchesExpect(Model):
    type: Literal["url_matches"]
    value: str = Field(description="Regular expression searched in the page URL")


class NoConsoleErrorsExpect(Model):
    type: Literal["no_console_errors"]


class NoFailedRequestsExpect(Model):
    type: Literal["no_failed_requests"]


class A11yExpect(Model):
    type: Literal["a11y"]
    max_violations: int = Field(default=0, ge=0)
    min_impact: Literal["minor", "moderate", "serious", "critical"] = "serious"


AnyExpectation = (
    VisibleExpect
    | HiddenExpect
    | TitleContainsExpect
    | UrlMatchesExpect
    | NoConsoleErrorsExpect
    | NoFailedRequestsExpect
    | A11yExpect
)
Expectation = Annotated[AnyExpectation, Field(discriminator="type")]


class BrowserCheck(Model):
    """Drive a page in a real Chromium, then check expectations."""

    kind: Literal["browser"]
    url: str = Field(
        description="Absolute loopback URL, or a path joined to the contract's serve.url"
    )
    steps: list[BrowserStep] = Field(default_factory=list)
    expect: list[Expectation] = Field(default_factory=list)
    viewport: Viewport | None = None
    timeout_s: float = Field(default=60, gt=0, le=3600)


class StaticCheck(Model):
    """One rule of the static pipeline over the scope's files."""

    kind: Literal["static"]
    rule: Annotated[StaticRule, BeforeValidator(normalize_rule)]
    max: int | None = Field(default=None, ge=0, description="Findings allowed (default 0)")
    paths: list[str] = Field(
        default_factory=list, description="Glob patterns limiting the files checked"
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
