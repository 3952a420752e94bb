"""Checks that need no parser: file length and TODO/FIXME density."""

from __future__ import annotations

import re

from referee.tools.static.model import Item, StaticConfig

_KEYWORDS = (b"TODO", b"FIXME", b"XXX", b"HACK")
_MARKER = re.compile(rb"\b(?:TODO|FIXME|XXX|HACK)\b")


def _openers(pattern: bytes) -> re.Pattern[bytes]:
    # MULTILINE: the search starts just after a newline, where `^` must match.
    return re.compile(pattern, re.MULTILINE)


_HASH = _openers(rb"#")
_SLASH = _openers(rb"//|/\*|^\s*\*")
_ANY = _openers(rb"#|//|/\*|^\s*\*|--|<!--|^\s*;")
# Comment openers that may precede a marker on its line, per language; unknown code tries them all.
_OPENERS = {
    "python": _HASH,
    "ruby": _HASH,
    "shell": _HASH,
    "perl": _HASH,
    "r": _HASH,
    "elixir": _HASH,
    "javascript": _SLASH,
    "typescript": _SLASH,
    "tsx": _SLASH,
    "go": _SLASH,
    "java": _SLASH,
    "rust": _SLASH,
    "c": _SLASH,
    "cpp": _SLASH,
    "kotlin": _SLASH,
    "swift": _SLASH,
    "csharp": _SLASH,
    "scala": _SLASH,
    "dart": _SLASH,
    "objc": _SLASH,
    "php": _openers(rb"#|//|/\*|^\s*\*"),
    "sql": _openers(rb"--|/\*|^\s*\*"),
    "lua": _openers(rb"--"),
    "vue": _openers(rb"//|/\*|^\s*\*|<!--"),
    "svelte": _openers(rb"//|/\*|^\s*\*|<!--"),
}


def line_count(data: bytes) -> int:
    """Lines in a file; a last line without a newline still counts."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def file_length_items(data: bytes, config: StaticConfig) -> list[Item]:
    """One finding, at line 1, when the file is longer than the limit."""
    lines = line_count(data)
    if lines <= config.max_file_lines:
        return []
    return [
        Item("file_length", 1, f"file has {lines} lines (limit {config.max_file_lines})", lines)
    ]


def todo_lines(data: bytes, language: str | None) -> list[int]:
    """1-based lines holding a TODO/FIXME/XXX/HACK marker inside a comment."""
    if not any(keyword in data for keyword in _KEYWORDS):
        return []  # a substring test is much faster than the regex, and most files have none
    opener = _OPENERS.get(language or "", _ANY)
    lines: list[int] = []
    counted, line = 0, 1
    for match in _MARKER.finditer(data):
        start = data.rfind(b"\n", 0, match.start()) + 1
        if opener.search(data, start, match.start()):
            line += data.count(b"\n", counted, start)  # counted incrementally: files can be large
            counted = start
            lines.append(line)
    return lines


def todo_items(data: bytes, language: str | None, config: StaticConfig) -> list[Item]:
    """One finding, at the first marker, when a file has more markers than the limit."""
    lines = todo_lines(data, language)
    if len(lines) <= config.max_todos:
        return []
    message = f"{len(lines)} TODO/FIXME/XXX/HACK comments (limit {config.max_todos})"
    return [Item("todo_density", lines[0], message, len(lines))]
