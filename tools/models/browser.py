"""The `browser` check: steps (Playwright actions), expectations (Playwright assertions), timeouts.

Timeouts, as in Playwright Test: the check's `timeout_s` bounds the whole check; a step may wait
for what is left of it (its own `timeout_s`, or the check's `action_timeout_s`, can shorten
that); each expectation waits on its own,
`expect_timeout_s` by default (Playwright's 5 s), so one expectation that fails never eats the
wait of the next.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from referee.tools.models.common import Model

DEFAULT_EXPECT_TIMEOUT_S = 5.0
Impact = Literal["minor", "moderate", "serious", "critical"]
Selector = Annotated[str, Field(min_length=1, description="A Playwright selector")]


class Viewport(Model):
    width: int = Field(default=1280, ge=100, le=8000)
    height: int = Field(default=800, ge=100, le=8000)


class _Step(Model):
    timeout_s: float | None = Field(
        default=None,
        gt=0,
        le=3600,
        description="Seconds this step may wait; default: what is left of the check's timeout_s",
    )


class _OnElement(_Step):
    selector: Selector


class GotoStep(_Step):
    action: Literal["goto"]
    url: str = Field(description="Absolute loopback URL, or a path joined to serve.url")


class ClickStep(_OnElement):
    action: Literal["click"]


class DblclickStep(_OnElement):
    action: Literal["dblclick"]


class HoverStep(_OnElement):
    action: Literal["hover"]


class CheckStep(_OnElement):
    """Check a checkbox or radio button (a no-op when it is already checked)."""

    action: Literal["check"]


class UncheckStep(_OnElement):
    action: Literal["uncheck"]


class FillStep(_OnElement):
    action: Literal["fill"]
    value: str


class PressStep(_OnElement):
    action: Literal["press"]
    key: str = Field(min_length=1, description="A key name as Playwright spells it: Enter, a …")


class SelectStep(_OnElement):
    action: Literal["select"]
    value: str


class WaitForStep(_OnElement):
    action: Literal["wait_for"]
    state: Literal["attached", "detached", "visible", "hidden"] = "visible"


class SetInputFilesStep(_OnElement):
    """Choose files in an `<input type=file>`; an empty list clears the choice."""

    action: Literal["set_input_files"]
    files: list[str] = Field(
        description="Paths relative to the repository root (nothing outside it can be chosen)"
    )

    @field_validator("files")
    @classmethod
    def _inside(cls, files: list[str]) -> list[str]:
        for name in files:
            parts = name.replace("\\", "/").split("/")
            if not name or name.startswith(("/", "~")) or ".." in parts or ":" in parts[0]:
                raise ValueError(
                    f"{name!r} must be a path relative to the repository root, without '..'"
                )
        return files


AnyStep = (
    GotoStep
    | ClickStep
    | DblclickStep
    | HoverStep
    | CheckStep
    | UncheckStep
    | FillStep
    | PressStep
    | SelectStep
    | WaitForStep
    | SetInputFilesStep
)
BrowserStep = Annotated[AnyStep, Field(discriminator="action")]


class _Waiting(Model):
    timeout_s: float | None = Field(
        default=None,
        gt=0,
        le=600,
        description="Seconds this expectation may wait to hold; default: the check's"
        " expect_timeout_s",
    )


class _TextOrSelector(_Waiting):
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


class TitleContainsExpect(_Waiting):
    type: Literal["title_contains"]
    value: str


class UrlMatchesExpect(_Waiting):
    type: Literal["url_matches"]
    value: str = Field(description="Regular expression searched in the page URL")


class CountExpect(_Waiting):
    """How many elements match (`toHaveCount`): exactly `equals`, or between `min` and `max`."""

    type: Literal["count"]
    selector: Selector
    equals: int | None = Field(default=None, ge=0)
    min: int | None = Field(default=None, ge=0)
    max: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _bounds(self) -> CountExpect:
        ranged = self.min is not None or self.max is not None
        if (self.equals is None) == (not ranged):
            raise ValueError("give `equals`, or `min` and/or `max`")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}")
        return self


def _compiles(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"{pattern!r} is not a valid regular expression: {exc}") from exc
    return pattern


Pattern = Annotated[str, AfterValidator(_compiles)]


def _exactly_one(equals: object, matches: object) -> None:
    if (equals is None) == (matches is None):
        raise ValueError("give exactly one of `equals` or `matches`")


class TextExpect(_Waiting):
    """The text of one element, or of every element in order when given a list (`toHaveText`)."""

    type: Literal["text"]
    selector: Selector
    equals: str | list[str] | None = Field(
        default=None, description="The whole text (a list: one per matching element, in order)"
    )
    matches: Pattern | list[Pattern] | None = Field(
        default=None, description="Regular expression(s) searched in the text (a list: in order)"
    )

    @model_validator(mode="after")
    def _one_of(self) -> TextExpect:
        _exactly_one(self.equals, self.matches)
        return self


class ValueExpect(_Waiting):
    """The value of an input, textarea or select (`toHaveValue`): `equals` or `matches`."""

    type: Literal["value"]
    selector: Selector
    equals: str | None = None
    matches: Pattern | None = Field(default=None, description="Regular expression searched in it")

    @model_validator(mode="after")
    def _one_of(self) -> ValueExpect:
        _exactly_one(self.equals, self.matches)
        return self


class AttributeExpect(_Waiting):
    """An attribute: present (neither `equals` nor `matches`), equal, or matching."""

    type: Literal["attribute"]
    selector: Selector
    name: str = Field(min_length=1)
    equals: str | None = None
    matches: Pattern | None = Field(default=None, description="Regular expression searched in it")

    @model_validator(mode="after")
    def _at_most_one(self) -> AttributeExpect:
        if self.equals is not None and self.matches is not None:
            raise ValueError("give at most one of `equals` or `matches`")
        return self


class CheckedExpect(_Waiting):
    """A checkbox or radio button is checked (or, with `checked: false`, not checked)."""

    type: Literal["checked"]
    selector: Selector
    checked: bool = True


class EnabledExpect(_Waiting):
    type: Literal["enabled"]
    selector: Selector


class DisabledExpect(_Waiting):
    type: Literal["disabled"]
    selector: Selector


class NoConsoleErrorsExpect(Model):
    type: Literal["no_console_errors"]


class NoFailedRequestsExpect(Model):
    type: Literal["no_failed_requests"]


class A11yExpect(Model):
    type: Literal["a11y"]
    max_violations: int = Field(default=0, ge=0)
    min_impact: Impact = "serious"


AnyExpectation = (
    VisibleExpect
    | HiddenExpect
    | TitleContainsExpect
    | UrlMatchesExpect
    | CountExpect
    | TextExpect
    | ValueExpect
    | AttributeExpect
    | CheckedExpect
    | EnabledExpect
    | DisabledExpect
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
    timeout_s: float = Field(
        default=60, gt=0, le=3600, description="Bound on the whole check, setup steps included"
    )
    action_timeout_s: float | None = Field(
        default=None,
        gt=0,
        le=3600,
        description="How long each step may wait, unless it sets its own timeout_s; default: what"
        " is left of timeout_s (Playwright's actionTimeout)",
    )
    expect_timeout_s: float = Field(
        default=DEFAULT_EXPECT_TIMEOUT_S,
        gt=0,
        le=600,
        description="How long each expectation may wait to hold, unless it sets its own timeout_s",
    )
