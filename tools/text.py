"""Text for people: counts that read as what they are, and terminal colour and cursor codes taken
out of what programs print.

A project's own `--color=yes` (pytest's `addopts`, jest's `--colors`, cargo's `CARGO_TERM_COLOR`)
wins over any environment referee sets, so the codes are removed where output becomes evidence.
Removed before redaction, too: a secret split by a colour code (`AKIA\\x1b[0m…`) is whole again
when the scanner reads it.
"""

from __future__ import annotations

import re

__all__ = ["agrees", "counted", "strip_ansi"]

# CSI sequences (colours, cursor moves, erase), OSC sequences (titles, hyperlinks) and the
# two-character escapes; what `sed 's/\x1b\[[0-9;]*m//g'` misses as well.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


def strip_ansi(text: str) -> str:
    """`text` without its escape sequences (fast path: no ESC, nothing to do)."""
    return _ANSI.sub("", text) if "\x1b" in text else text


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and its noun in the number it takes: "1 finding", "2 findings", "0 files"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def agrees(n: int, one: str, many: str) -> str:
    """The verb form that goes with `n` things ("1 test fails", "2 tests fail")."""
    return one if n == 1 else many
