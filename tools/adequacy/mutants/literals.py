"""The string and constant operators every language shares, on a literal's own text.

A string is emptied (`'NFKD'` → `''`) or altered (`'XXNFKDXX'`, mutmut's mark, so the judge sees
at once what changed), its prefix and quotes kept. A number becomes itself + 1, − 1 and 0, in its
own radix and with its own suffix (`0xFFu32` → `0x100u32`), never negative: `0u32 - 1` and a
negative `usize` do not compile, and the sign of a literal is its own operator (`-1` is `-` and
`1`). `true` ↔ `false`, in the literal's own case (PHP's `TRUE`).
"""

from __future__ import annotations

import re

__all__ = ["flip_boolean", "number_mutants", "string_mutants"]

_STRING = re.compile(
    r"(?P<prefix>[A-Za-z]*)(?P<open>#*(?:\"\"\"|'''|[\"'`]))(?P<body>.*)(?P<close>(?:\"\"\"|'''|[\"'`])#*)",
    re.DOTALL,
)
_MARK = "XX"


def string_mutants(text: str, *, empty: bool = True) -> list[str]:
    """`'abc'` → `''` (unless `empty` is False) and `'XXabcXX'`; `''` → `'XX'`."""
    found = _STRING.fullmatch(text)
    if found is None or found["close"] != found["open"][::-1]:
        return []
    prefix, opened, body, closed = found["prefix"], found["open"], found["body"], found["close"]
    if not body:
        return [f"{prefix}{opened}{_MARK}{closed}"]
    altered = f"{prefix}{opened}{_MARK}{body}{_MARK}{closed}"
    return [f"{prefix}{opened}{closed}", altered] if empty else [altered]


_RADIX = {"x": 16, "o": 8, "b": 2}
# Type suffixes a number may carry: Rust's `u8`…`usize`, `f32`/`f64`; Java's `L`, `f`, `d`; JS's
# BigInt `n`. Hex digits include `f` and `d`, so a radix literal drops only integer suffixes.
_INT_SUFFIX = re.compile(r"(?:[iu](?:8|16|32|64|128|size)|[lLnN])$")
_ANY_SUFFIX = re.compile(r"(?:[iu](?:8|16|32|64|128|size)|f32|f64|[lLnNfFdD])$")
_DECIMAL = re.compile(r"[0-9][0-9_]*")
_FLOAT = re.compile(r"(?:[0-9][0-9_]*)?\.?[0-9_]*(?:[eE][+-]?[0-9_]+)?")


def number_mutants(text: str) -> list[str]:
    """`10` → `11`, `9`, `0`; `0` → `1`; `1.5` → `2.5`, `0.5`, `0.0`; [] for what is not a plain
    number (an imaginary part, a legacy octal `017`)."""
    radix = _RADIX.get(text[1:2].lower(), 0) if text[:1] == "0" and len(text) > 2 else 0
    suffix = (_INT_SUFFIX if radix else _ANY_SUFFIX).search(text)
    tail = suffix.group() if suffix else ""
    body = text[: len(text) - len(tail)]
    if radix:
        return _integers(body[:2], body[2:], radix, tail)
    if _DECIMAL.fullmatch(body):
        if len(body) > 1 and body[0] == "0":
            return []  # `017` is octal in Go, Java, PHP and old JS: not what it looks like
        return _integers("", body, 10, tail)
    if any(c.isdigit() for c in body) and _FLOAT.fullmatch(body):
        return _floats(body, tail)
    return []


def _integers(prefix: str, digits: str, radix: int, suffix: str) -> list[str]:
    try:
        value = int(digits.replace("_", ""), radix)
    except ValueError:
        return []
    wanted = [value + 1] + ([value - 1] if value >= 1 else []) + ([0] if value >= 2 else [])
    upper = any(c in "ABCDEF" for c in digits)
    return [prefix + _digits(n, radix, upper) + suffix for n in wanted]


def _digits(value: int, radix: int, upper: bool) -> str:
    spelled = {16: format(value, "X" if upper else "x"), 8: format(value, "o")}
    return spelled.get(radix) or (format(value, "b") if radix == 2 else str(value))


def _floats(body: str, suffix: str) -> list[str]:
    try:
        value = float(body.replace("_", ""))
    except ValueError:
        return []
    wanted = [value + 1] + ([value - 1] if value >= 1 else [])
    wanted += [0.0] if value not in (0.0, 1.0) else []
    return [repr(v) + suffix for v in wanted]


def flip_boolean(text: str) -> str | None:
    """`true` → `false`, `TRUE` → `FALSE`, `True` → `False` (None: not a boolean)."""
    flipped = {"true": "false", "false": "true"}.get(text.lower())
    if flipped is None:
        return None
    if text.isupper():
        return flipped.upper()
    return flipped.capitalize() if text[0].isupper() else flipped
