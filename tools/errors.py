"""Errors referee reports as data.

    RefereeError                 base of everything referee raises on purpose
    ├── InvalidInput             input the caller can fix; carries every Problem at once
    └── NotFound                 an id (contract, run, scorecard, evidence) that is not stored

A *verdict* (failing tests, an invalid scorecard) is never an exception: it is a result.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class Problem(BaseModel):
    """One thing wrong with an input: where, what kind, and how to fix it."""

    model_config = ConfigDict(frozen=True)

    path: str = Field(description="JSON pointer (RFC 6901) into the input, '' for the whole input")
    code: str = Field(description="Stable identifier of the rule that failed")
    message: str = Field(description="What is wrong and what to do about it")

    @property
    def pointer(self) -> str:
        return self.path


class RefereeError(Exception):
    """Base class of the errors referee raises deliberately."""


class InvalidInput(RefereeError):
    """The caller's input has one or more problems; all of them are listed."""

    def __init__(self, problems: Sequence[Problem], summary: str | None = None) -> None:
        self.problems = list(problems)
        self.summary = summary or _summary(self.problems)
        super().__init__(self.summary)


class NotFound(RefereeError):
    """A referenced object does not exist in the store."""

    def __init__(self, what: str, ident: str, path: str = "", hint: str = "") -> None:
        self.what, self.ident, self.path = what, ident, path
        message = f"no {what} {ident!r} is stored"
        super().__init__(f"{message}; {hint}" if hint else message)

    def as_problem(self) -> Problem:
        return Problem(
            path=self.path, code=f"unknown_{self.what.replace(' ', '_')}", message=str(self)
        )


def _summary(problems: Sequence[Problem]) -> str:
    count = len(problems)
    return f"invalid input: {count} problem{'s' if count != 1 else ''}"


def escape_token(token: Any) -> str:
    """Escape one JSON pointer reference token (RFC 6901)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer(*parts: Any) -> str:
    """Build a JSON pointer from path parts: pointer('functional', 0, 'check') ->
    '/functional/0/check'."""
    return "".join("/" + escape_token(p) for p in parts)


_PYDANTIC_CODES = {
    "missing": "required",
    "extra_forbidden": "unknown_field",
    "literal_error": "not_allowed",
    "enum": "not_allowed",
    "union_tag_invalid": "unknown_kind",
    "union_tag_not_found": "missing_kind",
}


def problems_from_validation(exc: ValidationError, prefix: Iterable[Any] = ()) -> list[Problem]:
    """Turn every error of a pydantic ValidationError into a Problem with a JSON pointer."""
    base = tuple(prefix)
    found: list[Problem] = []
    for err in exc.errors(include_url=False):
        loc = _pointer_parts(err["loc"])
        code = _PYDANTIC_CODES.get(err["type"], err["type"])
        found.append(Problem(path=pointer(*base, *loc), code=code, message=_readable(err)))
    return _dedupe(_without_other_branches(found))


def _without_other_branches(problems: list[Problem]) -> list[Problem]:
    """At a pointer where a union's branches all failed (`str | list[str]` given a bad regex, a
    selector string or locator object given a bad object), keep what the value's own validators
    said, there or inside it; "should be a valid list" only adds noise."""
    said = [p.path for p in problems if not p.code.endswith("_type")]

    def explained(path: str) -> bool:
        return any(s == path or s.startswith(path + "/") for s in said)

    return [p for p in problems if not (p.code.endswith("_type") and explained(p.path))]


def _pointer_parts(loc: Sequence[Any]) -> tuple[Any, ...]:
    """The parts of a pydantic location that are steps of a JSON pointer.

    pydantic inserts the tag or model name of a union branch into `loc` right after the union's
    own position (the `check` field, or an index into `steps`, `expect`, `browser_setup`); a
    pointer has no such step. Only there is a tag a tag: `text` or `check` elsewhere are fields.
    """
    parts = list(loc)
    return tuple(
        part
        for i, part in enumerate(parts)
        if not _is_union_branch(part, parts[i - 1] if i else None, parts[i - 2] if i > 1 else None)
    )


def _is_union_branch(part: Any, previous: Any, before: Any) -> bool:
    if not isinstance(part, str):
        return False
    if part in _model_names() or part in _SCALAR_BRANCHES or "[" in part:
        return True
    if part.startswith(("function-", "constrained-")):
        return True
    at_union = previous in _UNION_FIELDS or (isinstance(previous, int) and before in _UNION_LISTS)
    return at_union and part in _UNION_TAGS


def _model_names() -> set[str]:
    names: set[str] = set()
    stack: list[type[BaseModel]] = [BaseModel]
    while stack:
        for sub in stack.pop().__subclasses__():
            names.add(sub.__name__)
            stack.append(sub)
    return names


# A scalar branch of an untagged union (a selector is a string, a locator object or a list).
_SCALAR_BRANCHES = {"str", "int", "float", "bool"}
# Fields holding a tagged union, and lists of tagged-union items.
_UNION_FIELDS = {"check"}
_UNION_LISTS = {"steps", "expect", "browser_setup"}
# Every tag of referee's unions: check kinds, browser step actions, expectation types
# (tests/test_errors pins this set against the models).
_UNION_TAGS = {
    "tests",
    "command",
    "browser",
    "static",
    "goto",
    "click",
    "dblclick",
    "hover",
    "check",
    "uncheck",
    "fill",
    "press",
    "select",
    "wait_for",
    "set_input_files",
    "press_sequentially",
    "drag_to",
    "focus",
    "reload",
    "go_back",
    "go_forward",
    "wait_for_url",
    "visible",
    "hidden",
    "title_contains",
    "url_matches",
    "count",
    "text",
    "value",
    "attribute",
    "checked",
    "enabled",
    "disabled",
    "no_console_errors",
    "no_failed_requests",
    "a11y",
    "title",
    "url",
    "css",
    "class",
    "accessible_name",
    "accessible_description",
    "focused",
    "editable",
    "aria_snapshot",
    "screenshot",
}


def _readable(err: Any) -> str:
    msg = str(err["msg"])
    if err["type"] == "missing":
        return "this field is required"
    if err["type"] == "extra_forbidden":
        return "this field is not part of the format; remove it or check its spelling"
    if err["type"] == "value_error":
        return msg.removeprefix("Value error, ")
    return msg


def _dedupe(problems: list[Problem]) -> list[Problem]:
    seen: set[tuple[str, str, str]] = set()
    out = []
    for p in problems:
        key = (p.path, p.code, p.message)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out
