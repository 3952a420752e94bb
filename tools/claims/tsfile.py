"""A file read with tree-sitter, shared by the JS/TS, Go, Rust and Java readers: claims keyed
by the construct's tokens (formatting and position left out), and string literals as values."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from dataclasses import dataclass

import tree_sitter as ts

from referee.tools.claims.model import Claim, Role, Scope
from referee.tools.tampering.syntax import descendants, line, parse, text

__all__ = ["TsFile", "open_file", "unquote"]


@dataclass
class TsFile:
    """One parsed file, where it is, and what the change's code under test is."""

    path: str
    root: ts.Node
    scope: Scope
    role: Role

    def claim(self, kind: str, node: ts.Node, message: str) -> Claim:
        at = line(node)
        return Claim(kind, at, f"{self.path}:{at} {message}", f"{kind}|{tokens(node)}")

    def nodes(self, *types: str) -> Iterator[ts.Node]:
        yield from descendants(self.root, frozenset(types) if types else None)


def open_file(language: str, path: str, source: str, scope: Scope, role: Role) -> TsFile | None:
    root = parse(language, source)
    return None if root is None else TsFile(path, root, scope, role)


def tokens(node: ts.Node) -> str:
    """The construct as its tokens: the same code reformatted or moved has the same key."""
    leaves = [text(n) for n in descendants(node) if not n.children and "comment" not in n.type]
    return " ".join(leaves) if node.children else text(node)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", "'": "'", '"': '"', "`": "`"}


def unquote(node: ts.Node) -> str | None:
    """The value of a plain string literal of any of the four grammars, escapes decoded; None
    for anything else (a template with substitutions, a number)."""
    raw = text(node)
    if node.type in ("raw_string_literal",) and raw.startswith("`"):
        return raw[1:-1]  # Go's raw string
    if node.type == "raw_string_literal":  # Rust r#"…"#
        body = raw.lstrip("br").strip("#")
        return body[1:-1] if len(body) >= 2 else None
    if raw[:1] in ("b",) and raw[1:2] in ('"', "'"):
        raw = raw[1:]
    if len(raw) < 2 or raw[0] not in "\"'`" or raw[-1] != raw[0]:
        return None
    return _decode(raw[1:-1])


def _decode(body: str) -> str:
    if "\\" not in body:
        return body
    out, i = [], 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
                i += 2
                continue
            if nxt in "xu":
                size = 2 if nxt == "x" else 4
                digits = body[i + 2 : i + 2 + size]
                try:
                    out.append(chr(int(digits, 16)))
                    i += 2 + size
                    continue
                except ValueError:
                    pass
        out.append(char)
        i += 1
    return "".join(out)


def decode_escapes(value: str) -> str:
    try:
        return codecs.decode(value, "unicode_escape")
    except UnicodeDecodeError:
        return value
