"""Whether a Rust `cfg` predicate holds in the test build `cargo test` makes on this machine.

Read for `#[cfg(…)]` and `#[cfg_attr(…)]` on a test, a module or a statement, and for the
`cfg!(…)` macro in a condition: code under a predicate that does not hold is not compiled (or,
under `cfg!`, is a branch never taken).
"""

from __future__ import annotations

import re
import sys

__all__ = ["holds"]

# What `cargo test` compiles with on this kind of machine: a gate on these keeps nothing out.
_HOLDS = frozenset({"test", "debug_assertions", "unix", 'target_family="unix"', 'panic="unwind"'})
_CFG_TOKEN = re.compile(r'\s*(all|any|not|\(|\)|,|[A-Za-z_][A-Za-z0-9_]*(?:\s*=\s*"[^"]*")?)')


def holds(raw: str) -> bool:
    """Whether a `#[cfg(…)]` (or `#![cfg(…)]`) predicate holds in a test build here: `test`,
    `debug_assertions`, `unix`, combined by `all`, `any` and `not` (anything else, a feature or
    another system, counts as unset)."""
    inner = raw[raw.find("cfg(") + 4 : raw.rfind(")")]
    tokens: list[str] = []
    at = 0
    while at < len(inner):
        match = _CFG_TOKEN.match(inner, at)
        if match is None:
            return inner.strip() == ""
        tokens.append(match.group(1).replace(" ", ""))
        at = match.end()
    try:
        value, end = _cfg(tokens, 0)
    except IndexError:
        return False
    return value and end == len(tokens)


def _cfg(tokens: list[str], at: int) -> tuple[bool, int]:
    head = tokens[at]
    if head in ("all", "any", "not"):
        if tokens[at + 1] != "(":
            raise IndexError(at)
        values, at = [], at + 2
        while tokens[at] != ")":
            value, at = _cfg(tokens, at)
            values.append(value)
            if tokens[at] == ",":
                at += 1
        result = all(values) if head == "all" else any(values) if head == "any" else not values[0]
        return result, at + 1
    if head in ("(", ")", ","):
        raise IndexError(at)
    return head in _HOLDS or head == f'target_os="{_OS}"', at + 1


_OS = sys.platform.rstrip("0123456789")
