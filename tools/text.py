"""Text for people: counts that read as what they are, terminal colour and cursor codes taken
out of what programs print, and file names shown as text whatever bytes they hold.

A project's own `--color=yes` (pytest's `addopts`, jest's `--colors`, cargo's `CARGO_TERM_COLOR`)
wins over any environment referee sets, so the codes are removed where output becomes evidence.
Removed before redaction, too: a secret split by a colour code (`AKIA\\x1b[0m…`) is whole again
when the scanner reads it.
"""

from __future__ import annotations

import re

__all__ = ["agrees", "counted", "encodable", "shown", "strip_ansi", "unshown"]

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


_NAMED = {"\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
_UNNAMED = {v: k for k, v in _NAMED.items()}
_ESCAPE = re.compile(r"\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|[\\ntr])")
_SURROGATE = re.compile("[\ud800-\udfff]")


def shown(name: str) -> str:
    """A file name (or any text from the evaluated tree) as one line of valid UTF-8 text.

    A name is the player's bytes (tools/repo/names.py): a byte that is not UTF-8 would make the
    result impossible to encode (a lone surrogate), a line break would start a line of its own in
    a report or a brief, and a bidirectional or zero-width control would show another name than
    the file's. Each is escaped as Python writes it (`\\xff`, `\\n`, `\\u202e`), and so is a
    backslash: no two names are shown alike, and `unshown` reads the name back. `\\x80` to
    `\\xff` always stand for a byte that is not UTF-8 (a C1 control is `\\u0085`).
    """
    if name.isascii() and name.isprintable() and "\\" not in name:
        return name  # the common case: nothing to escape
    return "".join(_escaped(ch) for ch in name)


def unshown(text: str) -> str:
    """The name `shown` made `text` from (a name shown in a stored result, opened again)."""
    return _ESCAPE.sub(_unescaped, text) if "\\" in text else text


def encodable(text: str) -> str:
    """`text` with every lone surrogate written as `shown` writes it: text that can always be
    encoded as UTF-8, so stored and returned. The last line behind `shown` for text that
    carries a name or a program's undecodable output somewhere `shown` was not applied."""
    if text.isascii():
        return text
    return _SURROGATE.sub(lambda m: _escaped(m.group()), text)


def _escaped(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's stand-in for an undecodable byte
        return f"\\x{code - 0xDC00:02x}"
    if ch.isprintable():
        return ch
    if code < 0x80:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _unescaped(match: re.Match[str]) -> str:
    found = match.group()
    if found in _UNNAMED:
        return _UNNAMED[found]
    code = int(found[2:], 16)
    return chr(0xDC00 + code if found[1] == "x" and code >= 0x80 else code)
