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
from referee.tools.models.locator import Target

DEFAULT_EXPECT_TIMEOUT_S = 5.0
Impact = Literal["minor", "moderate", "serious", "critical"]
Selector = Target


def _compiles(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"{pattern!r} is not a valid regular expression: {exc}") from exc
    return pattern


Pattern = Annotated[str, AfterValidator(_compiles)]


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


class ElementStep(_Step):
    selector: Selector


class GotoStep(_Step):
    action: Literal["goto"]
    url: str = Field(description="Absolute loopback URL, or a path joined to serve.url")


class ClickStep(ElementStep):
    action: Literal["click"]


class DblclickStep(ElementStep):
    action: Literal["dblclick"]


class HoverStep(ElementStep):
    action: Literal["hover"]


class CheckStep(ElementStep):
    """Check a checkbox or radio button (a no-op when it is already checked)."""

    action: Literal["check"]


class UncheckStep(ElementStep):
    action: Literal["uncheck"]


class FillStep(ElementStep):
    action: Literal["fill"]
    value: str


class PressStep(ElementStep):
    action: Literal["press"]
    key: str = Field(min_length=1, description="A key name as Playwright spells it: Enter, a …")


class SelectStep(ElementStep):
    action: Literal["select"]
    value: str


class WaitForStep(ElementStep):
    action: Literal["wait_for"]
    state: Literal["attached", "detached", "visible", "hidden"] = "visible"


class PressSequentiallyStep(ElementStep):
    """Type text key by key (Playwright's pressSequentially, formerly `type`), for inputs that
    react to each key."""

    action: Literal["press_sequentially"]
    value: str
    delay_s: float | None = Field(default=None, ge=0, le=10, description="Pause between keys")


class DragToStep(ElementStep):
    action: Literal["drag_to"]
    target: Selector = Field(description="Where to drop: a selector or locator, as `selector`")


class FocusStep(ElementStep):
    action: Literal["focus"]


class ReloadStep(_Step):
    action: Literal["reload"]


class GoBackStep(_Step):
    action: Literal["go_back"]


class GoForwardStep(_Step):
    action: Literal["go_forward"]


class WaitForUrlStep(_Step):
    """Wait until the page's URL is `url` (a glob, or a path joined to serve.url) or `matches`."""

    action: Literal["wait_for_url"]
    url: str | None = Field(default=None, description="A URL or glob (`**/done`)")
    matches: Pattern | None = Field(default=None, description="Regular expression searched in it")

    @model_validator(mode="after")
    def _one_of(self) -> WaitForUrlStep:
        if (self.url is None) == (self.matches is None):
            raise ValueError("give exactly one of `url` or `matches`")
        return self


class SetInputFilesStep(ElementStep):
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
    | PressSequentiallyStep
    | DragToStep
    | FocusStep
    | ReloadStep
    | GoBackStep
    | GoForwardStep
    | WaitForUrlStep
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
    selector: Selector | None = None
    exact: bool = Field(default=False, description="With `text`: whole and case-sensitive")

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


def _exactly_one(equals: object, matches: object) -> None:
    if (equals is None) == (matches is None):
        raise ValueError("give exactly one of `equals` or `matches`")


class _EqualsOrMatches(_Waiting):
    equals: str | None = None
    matches: Pattern | None = Field(default=None, description="Regular expression searched in it")

    @model_validator(mode="after")
    def _one_of(self) -> _EqualsOrMatches:
        _exactly_one(self.equals, self.matches)
        return self


class _IgnoreCase(_EqualsOrMatches):
    ignore_case: bool | None = Field(default=None, description="Compare case-insensitively")


class TextExpect(_Waiting):
    """The text of one element, or of every element in order when given a list: `equals`
    (`toHaveText`), `contains` (`toContainText`) or `matches`."""

    type: Literal["text"]
    selector: Selector
    equals: str | list[str] | None = Field(
        default=None, description="The whole text (a list: one per matching element, in order)"
    )
    contains: str | list[str] | None = Field(
        default=None, description="A substring of the text (a list: in order)"
    )
    matches: Pattern | list[Pattern] | None = Field(
        default=None, description="Regular expression(s) searched in the text (a list: in order)"
    )
    ignore_case: bool | None = Field(default=None, description="Compare case-insensitively")
    use_inner_text: bool | None = Field(
        default=None, description="Read innerText (as rendered) instead of textContent"
    )

    @model_validator(mode="after")
    def _one_of(self) -> TextExpect:
        if sum(v is not None for v in (self.equals, self.contains, self.matches)) != 1:
            raise ValueError("give exactly one of `equals`, `contains` or `matches`")
        return self


class TitleExpect(_EqualsOrMatches):
    """The page's title (`toHaveTitle`)."""

    type: Literal["title"]


class UrlExpect(_IgnoreCase):
    """The page's URL (`toHaveURL`); `equals` is absolute, or a path joined to serve.url."""

    type: Literal["url"]


class CssExpect(_EqualsOrMatches):
    """A computed CSS property (`toHaveCSS`)."""

    type: Literal["css"]
    selector: Selector
    name: str = Field(min_length=1, description="The property, as CSS spells it: color, display")


class ClassExpect(_EqualsOrMatches):
    """The class attribute (`toHaveClass`): `equals` the whole of it, or `matches`; a list: one
    per matching element, in order."""

    type: Literal["class"]
    selector: Selector
    equals: str | list[str] | None = None  # type: ignore[assignment]
    matches: Pattern | list[Pattern] | None = Field(  # type: ignore[assignment]
        default=None, description="Regular expression(s) searched in it"
    )


class AccessibleNameExpect(_IgnoreCase):
    """The accessible name (`toHaveAccessibleName`)."""

    type: Literal["accessible_name"]
    selector: Selector


class AccessibleDescriptionExpect(_IgnoreCase):
    """The accessible description (`toHaveAccessibleDescription`)."""

    type: Literal["accessible_description"]
    selector: Selector


class FocusedExpect(_Waiting):
    type: Literal["focused"]
    selector: Selector


class EditableExpect(_Waiting):
    """An input can be typed into (`toBeEditable`); `editable: false`: it cannot."""

    type: Literal["editable"]
    selector: Selector
    editable: bool = True


class AriaSnapshotExpect(_Waiting):
    """The element's accessibility tree matches a snapshot (`toMatchAriaSnapshot`): Playwright's
    YAML template, where a name may be a `/regex/` and unlisted children are allowed."""

    type: Literal["aria_snapshot"]
    selector: Selector = "body"
    snapshot: str = Field(min_length=1, description='The template: - heading "todos" [level=1]')


_ShotName = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,59}$")]


class ScreenshotExpect(_Waiting):
    """The page, or one element, looks as its baseline does (`toHaveScreenshot`): at most
    `max_diff_pixels` pixels (and at most `max_diff_pixel_ratio` of them) differ by more than
    `threshold`. The baseline lives in referee's store, never in the tree: the delivered
    iteration's image, or one accepted by hand (`referee baseline accept`); until there is one,
    the check is unscored and the judge reads this run's image."""

    type: Literal["screenshot"]
    name: _ShotName = Field(description="The baseline's name within the criterion: home, cart")
    selector: Selector | None = Field(default=None, description="One element; default the page")
    full_page: bool = False
    mask: list[Selector] = Field(
        default_factory=list, max_length=20, description="Painted over in both images (a clock)"
    )
    threshold: float = Field(
        default=0.2,
        ge=0,
        le=1,
        description="How far a pixel's colour may move (0-1 of the widest channel) and match",
    )
    max_diff_pixels: int = Field(default=0, ge=0)
    max_diff_pixel_ratio: float | None = Field(default=None, ge=0, le=1)


class ValueExpect(_EqualsOrMatches):
    """The value of an input, textarea or select (`toHaveValue`): `equals` or `matches`."""

    type: Literal["value"]
    selector: Selector


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


_Selectors = Annotated[list[Annotated[str, Field(min_length=1)]], Field(max_length=50)]
_RuleIds = Annotated[list[Annotated[str, Field(pattern=r"^[a-z0-9-]+$")]], Field(max_length=100)]


class A11yExpect(Model):
    """axe-core finds at most `max_violations` rules (or `max_nodes` elements) violated at or
    above `min_impact`, in the part of the page and with the rules given; with `new_only`, only
    those the base commit's app did not have count."""

    type: Literal["a11y"]
    max_violations: int = Field(default=0, ge=0, description="Rules violated, at most")
    max_nodes: int | None = Field(
        default=None,
        ge=0,
        description="Offending elements, at most (summed over rules); alone, it replaces"
        " max_violations",
    )
    min_impact: Impact = "serious"
    include: _Selectors = Field(default_factory=list, description="CSS selectors: check only these")
    exclude: _Selectors = Field(default_factory=list, description="CSS selectors: leave these out")
    rules: _RuleIds = Field(default_factory=list, description="axe rule ids: run only these")
    disable_rules: _RuleIds = Field(default_factory=list, description="axe rule ids: skip these")
    new_only: bool = Field(
        default=False,
        description="Count only violations the base did not have: the check also runs, with the"
        " same url and steps, on the base commit's app (served at the same URL), and a node"
        " violating a rule there too is left out of max_violations and max_nodes. Unscored when"
        " the base cannot be run; needs `serve` (every page of the check on its origin)",
    )

    @property
    def bounds_rules(self) -> bool:
        """Whether `max_violations` applies: given, or no `max_nodes` to replace it."""
        return self.max_nodes is None or "max_violations" in self.model_fields_set


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
    | TitleExpect
    | UrlExpect
    | CssExpect
    | ClassExpect
    | AccessibleNameExpect
    | AccessibleDescriptionExpect
    | FocusedExpect
    | EditableExpect
    | AriaSnapshotExpect
    | ScreenshotExpect
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
        description="How long each action may wait, unless it sets its own timeout_s (a"
        " navigation waits for what is left of timeout_s, as under Playwright's actionTimeout)",
    )
    expect_timeout_s: float = Field(
        default=DEFAULT_EXPECT_TIMEOUT_S,
        gt=0,
        le=600,
        description="How long each expectation may wait to hold, unless it sets its own timeout_s",
    )

    @model_validator(mode="after")
    def _one_baseline_per_name(self) -> BrowserCheck:
        # A name is the baseline's key within the criterion: two images under one name would
        # each be held to the other's baseline.
        names = [e.name for e in self.expect if isinstance(e, ScreenshotExpect)]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"screenshot names must differ within a check: {', '.join(twice)}")
        return self
