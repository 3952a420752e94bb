"""Scorecard JSON read strictly: what two parsers could read differently is refused, not guessed.

A scorecard's author may be the generator. Python's `json` reads `NaN`, `Infinity` and `1e999`
(numbers that compare false with every bound, so a range check lets them through), keeps the last
of two equal keys where other parsers keep the first, recurses once per nesting level (a deep
enough card ends in RecursionError) and raises ValueError on a 5,000-digit integer. So referee
bounds the size before parsing and the depth while and after parsing, and reports each of these
as a validation problem with a JSON pointer, never as an exception.

`parse_json` reads text (the CLI's files and standard input, the gate's committed cards);
`object_problems` checks an object some other parser made (MCP arguments, parsed by the SDK, where
duplicate keys can no longer be seen).
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.tools.errors import Problem, pointer

__all__ = ["MAX_CARD_BYTES", "MAX_DEPTH", "Parsed", "object_problems", "parse_json", "read_json"]

# A scorecard is a few KiB and a few levels deep (criteria → item → evidence_ids → id is four).
MAX_CARD_BYTES = 2 * 1024 * 1024
MAX_DEPTH = 64

_BOM = b"\xef\xbb\xbf"
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Parsed:
    """The value read, or the problems that make it unusable (then `value` is None)."""

    value: Any
    problems: list[Problem] = field(default_factory=list)


def read_json(path: Path, limit: int = MAX_CARD_BYTES) -> Parsed:
    """Read and parse one JSON file, reading no more than `limit` + 1 bytes of it.

    Raises:
        OSError: the file cannot be opened or read.
    """
    with path.open("rb") as stream:
        return parse_json(stream.read(limit + 1), limit)


def parse_json(raw: bytes, limit: int = MAX_CARD_BYTES) -> Parsed:
    """Parse JSON text strictly (RFC 8259: UTF-8, finite numbers, unique keys), size and depth
    bounded.

    A leading UTF-8 byte order mark is ignored, as RFC 8259 allows.

    Returns:
        The value with no problems, or None with problems coded too_large, json_invalid, too_deep,
        duplicate_key or non_finite_number.
    """
    if len(raw) > limit:
        return _refused(
            "", "too_large", f"the text is larger than {limit} bytes; a scorecard is a few KiB"
        )
    try:
        text = raw.removeprefix(_BOM).decode("utf-8")
    except UnicodeDecodeError as exc:
        return _refused(
            "", "json_invalid", f"the text is not UTF-8 (byte {exc.start}); save it as UTF-8"
        )
    duplicates = _Duplicates()
    try:
        value = json.loads(text, object_pairs_hook=duplicates.hook)
    except json.JSONDecodeError as exc:
        return _refused(
            "", "json_invalid", f"not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        )
    except ValueError:
        # int() refuses more than 4,300 digits (CVE-2020-10735), the only other ValueError.
        return _refused(
            "", "json_invalid", "a number has more digits than can be read; write a finite number"
        )
    except RecursionError:
        # The C parser counts its nesting against the interpreter's recursion limit (1,000) and
        # stops there; shallower nesting past MAX_DEPTH is found in the parsed value below.
        return _refused("", "too_deep", _too_deep("the text nests too deep"))
    problems = [*duplicates.problems(value), *object_problems(value)]
    return Parsed(None if problems else value, problems)


def object_problems(value: Any) -> list[Problem]:
    """Non-finite numbers, unpaired surrogates and nesting past MAX_DEPTH in a parsed value.

    Iterative, so no depth of input can exhaust the interpreter's stack.
    """
    return _located(value) if _suspect(value) else []


def _suspect(value: Any) -> bool:
    """Whether anything is wrong, found level by level without building pointers (the common
    answer is no, and a 2 MiB card may hold a million values)."""
    level: list[Any] = [value]
    for _ in range(MAX_DEPTH + 1):
        below: list[Any] = []
        for item in level:
            if isinstance(item, dict):
                below += item
                below += item.values()
            elif isinstance(item, list):
                below += item
            elif _unusable(item):
                return True
        if not below:
            return False
        level = below
    return True


def _unusable(item: Any) -> bool:
    if isinstance(item, str):
        return not item.isascii() and _SURROGATE.search(item) is not None
    return _non_finite_number(item)


def _located(value: Any) -> list[Problem]:
    problems: list[Problem] = []
    for where, item, depth in _walk(value):
        if depth > MAX_DEPTH:
            problems.append(
                Problem(
                    path=pointer(*where),
                    code="too_deep",
                    message=_too_deep("the scorecard nests too deep"),
                )
            )
            break
        if _non_finite_number(item):
            problems.append(_non_finite(where, item))
        elif isinstance(item, str) and _unusable(item):
            problems.append(
                Problem(
                    path=pointer(*where),
                    code="json_invalid",
                    message=(
                        "a string holds an unpaired UTF-16 surrogate (\\ud800–\\udfff), which is"
                        " not text; remove it"
                    ),
                )
            )
    return problems


def _non_finite_number(item: Any) -> bool:
    if isinstance(item, float):
        return not math.isfinite(item)
    # An integer beyond a double's range makes float() raise where scores are computed.
    return isinstance(item, int) and not isinstance(item, bool) and abs(item) > sys.float_info.max


def _walk(value: Any) -> Iterator[tuple[tuple[Any, ...], Any, int]]:
    """(pointer parts, value, depth) of every value and every key, parents first."""
    stack: list[tuple[tuple[Any, ...], Any, int]] = [((), value, 0)]
    while stack:
        where, item, depth = stack.pop()
        yield where, item, depth
        if isinstance(item, dict):
            for key, child in reversed(item.items()):
                yield (*where, key), key, depth + 1
                stack.append(((*where, key), child, depth + 1))
        elif isinstance(item, list):
            stack.extend(
                ((*where, i), child, depth + 1) for i, child in reversed(list(enumerate(item)))
            )


class _Duplicates:
    """Collects the objects that name a key twice, to point at them once parsing is done."""

    def __init__(self) -> None:
        # The objects themselves are kept, so that no id() is reused while they are looked up.
        self.found: list[tuple[dict[str, Any], str]] = []

    def hook(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        made = dict(pairs)  # the last value of a key wins, as json.loads does
        if len(made) < len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    self.found.append((made, key))
                seen.add(key)
        return made

    def problems(self, value: Any) -> list[Problem]:
        if not self.found:
            return []
        places = {id(item): where for where, item, _ in _walk(value) if isinstance(item, dict)}
        # An object inside a value that a later duplicate replaced is unreachable: its parent's
        # duplicate is reported, at the parent's pointer.
        return [
            Problem(
                path=pointer(*places[id(made)], key),
                code="duplicate_key",
                message=(
                    f"the key {key!r} appears more than once in this object; parsers disagree on"
                    " which value counts, so keep exactly one"
                ),
            )
            for made, key in self.found
            if id(made) in places
        ]


def _non_finite(where: tuple[Any, ...], number: float | int) -> Problem:
    shown = (
        json.dumps(number) if isinstance(number, float) else "an integer beyond a double's range"
    )
    return Problem(
        path=pointer(*where),
        code="non_finite_number",
        message=(
            f"{shown} is not a usable number (NaN, Infinity and numbers beyond a double's range,"
            " such as 1e999, compare false with every bound); write a finite number"
        ),
    )


def _too_deep(what: str) -> str:
    return f"{what}: more than {MAX_DEPTH} levels are refused; a scorecard needs a handful"


def _refused(at: str, code: str, message: str) -> Parsed:
    return Parsed(None, [Problem(path=at, code=code, message=message)])
