"""Playwright's messages: without the retry noise for reasons an agent acts on, verbatim for people.

A strict-mode violation lists the elements the selector resolved to; a click on a hidden button
says "element is not visible" in its call log; an assertion says what it expected and what it got.
Those lines are what tells an agent what to fix, so they are kept; the retry loop's repetitions
("retrying click action", "waiting 100ms", the same line 3 × over) are dropped.
"""

from __future__ import annotations

import re

MESSAGE_LIMIT = 2000
VERBATIM_LIMIT = 8000
_MAX_LINES = 24
_NOISE = re.compile(r"^-?\s*(?:retrying \w+ action|waiting \d+ms|Call log:)\s*$")
_REPEATS = re.compile(r"^(?:- )?\d+ × ")


def error_text(exc: BaseException) -> str:
    """The message of a Playwright error or assertion: every distinct line, retries dropped."""
    lines: list[str] = []
    for raw in str(exc).splitlines():
        line = _REPEATS.sub("- ", raw.strip())
        if line and not _NOISE.match(line) and line not in lines:
            lines.append(line)
    if not lines:
        return type(exc).__name__
    if len(lines) > _MAX_LINES:
        lines = [*lines[: _MAX_LINES - 1], f"… ({len(lines) - _MAX_LINES + 1} more lines)"]
    return clip("\n".join(lines), MESSAGE_LIMIT)


def verbatim_text(exc: BaseException) -> str:
    """Playwright's message exactly as it printed it (indentation, repeated retries and all), for
    the evidence and the report: a developer reads the call log's nesting to see which wait
    failed. Only its length is bounded."""
    text = "\n".join(line.rstrip() for line in str(exc).splitlines()).strip("\n")
    return clip(text, VERBATIM_LIMIT) if text else type(exc).__name__


def clip(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` characters, marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def is_timeout(exc: BaseException) -> bool:
    """Whether a Playwright error is a wait that ran out (not a page or protocol failure)."""
    name, message = getattr(exc, "name", ""), getattr(exc, "message", "")
    return name == "TimeoutError" or "Timeout" in str(message)
