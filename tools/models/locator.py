"""Where a browser step or expectation looks: a Playwright selector string, a locator object, or a
chain of them.

A locator object is Playwright's `getBy…` family as data (`{role: button, name: Save}` is
`getByRole('button', { name: 'Save' })`), narrowed as Playwright narrows a locator: `has_text`
and `has` (its `filter`), then `nth`, `first` or `last`. A list chains its parts, each searched
inside the previous one (`page.locator('.todo-list').getByRole('listitem')`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from referee.tools.models.common import Model

# WAI-ARIA roles as Playwright's getByRole takes them (a closed set: a typo is an input error,
# not a check that can never find its element).
AriaRole = Literal[
    "alert", "alertdialog", "application", "article", "banner", "blockquote", "button",
    "caption", "cell", "checkbox", "code", "columnheader", "combobox", "complementary",
    "contentinfo", "definition", "deletion", "dialog", "directory", "document", "emphasis",
    "feed", "figure", "form", "generic", "grid", "gridcell", "group", "heading", "img",
    "insertion", "link", "list", "listbox", "listitem", "log", "main", "marquee", "math", "menu",
    "menubar", "menuitem", "menuitemcheckbox", "menuitemradio", "meter", "navigation", "none",
    "note", "option", "paragraph", "presentation", "progressbar", "radio", "radiogroup", "region",
    "row", "rowgroup", "rowheader", "scrollbar", "search", "searchbox", "separator", "slider",
    "spinbutton", "status", "strong", "subscript", "superscript", "switch", "tab", "table",
    "tablist", "tabpanel", "term", "textbox", "time", "timer", "toolbar", "tooltip", "tree",
    "treegrid", "treeitem",
]  # fmt: skip

# The ways of finding elements, each one of Playwright's locators; a locator object has one.
STRATEGIES = ("role", "label", "placeholder", "text", "test_id", "alt", "title", "css")
# Those that match a text, where `exact` (case-sensitive, whole string) has a meaning.
_TEXTUAL = frozenset(STRATEGIES) - {"test_id", "css"}


class Locator(Model):
    """A Playwright locator: exactly one of `role`, `label`, `placeholder`, `text`, `test_id`,
    `alt`, `title`, `css`; then optionally narrowed."""

    role: AriaRole | None = Field(default=None, description="getByRole, with `name`")
    name: str | None = Field(default=None, description="With `role`: the accessible name")
    label: str | None = None
    placeholder: str | None = None
    text: str | None = None
    test_id: str | None = Field(default=None, description="getByTestId (data-testid)")
    alt: str | None = None
    title: str | None = None
    css: str | None = Field(default=None, description="A Playwright selector")
    exact: bool | None = Field(
        default=None, description="Match the text or name whole and case-sensitively"
    )
    has_text: str | None = Field(default=None, description="Keep elements containing this text")
    has: Target | None = Field(default=None, description="Keep elements containing a match")
    nth: int | None = Field(default=None, description="The n-th match, from 0; -1 is the last")
    first: bool = False
    last: bool = False

    @model_validator(mode="after")
    def _one_strategy(self) -> Locator:
        given = [s for s in STRATEGIES if getattr(self, s) is not None]
        if len(given) != 1:
            raise ValueError(
                f"give exactly one of {', '.join(STRATEGIES)} (given: {', '.join(given) or 'none'})"
            )
        if self.name is not None and self.role is None:
            raise ValueError("`name` goes with `role` (getByRole's accessible name)")
        if self.exact is not None and given[0] not in _TEXTUAL:
            raise ValueError(f"`exact` has no meaning for `{given[0]}`")
        if sum((self.nth is not None, self.first, self.last)) > 1:
            raise ValueError("give at most one of `nth`, `first`, `last`")
        return self

    @property
    def strategy(self) -> str:
        """Which of `STRATEGIES` this locator uses."""
        return next(s for s in STRATEGIES if getattr(self, s) is not None)


_Part = Annotated[str, Field(min_length=1)] | Locator
Target = Annotated[
    _Part | Annotated[list[_Part], Field(min_length=1)],
    Field(
        description="A Playwright selector, a locator object ({role, name}, {label}, {text}, …),"
        " or a list of them, each searched inside the previous"
    ),
]
Locator.model_rebuild()
