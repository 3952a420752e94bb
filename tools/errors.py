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
        loc = tuple(part for part in err["loc"] if not _is_union_branch(part))
        code = _PYDANTIC_CODES.get(err["type"], err["type"])
        found.append(Problem(path=pointer(*base, *loc), code=code, message=_readable(err)))
    return _dedupe(found)


def _is_union_branch(part: Any) -> bool:
    # pydantic inserts the tag or model name of a union
    # branch into `loc`; a pointer has no such step.
    if not isinstance(part, str):
        return False
    return part in _UNION_TAGS or part in _model_names() or "[" in part


def _model_names() -> set[str]:
    names: set[str] = set()
    stack: list[type[BaseModel]] = [BaseModel]
    while stack:
        for sub in stack.pop().__subclasses__():
            names.add(sub.__name__)
            stack.append(sub)
    return names


_UNION_TAGS = {
    "tests",
    "command",
    "browser",
    "static",
    "goto",
    "click",
    "fill",
    "press",
    "select",
    "wait_for",
    "visible",
    "hidden",
    "title_contains",
    "url_matches",
    "no_console_errors",
    "no_failed_requests",
    "a11y",
    "function-after",
    "function-before",
    "function-plain",
}


def _readable(err: Any) -> str:
    msg = str(err["msg"])
    if err["type"] == "missing":
        return "this field is required"
    if err["type"] == "extra_forbidden":
        return "this field is not part of the format; remove it or check its spelling"
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
