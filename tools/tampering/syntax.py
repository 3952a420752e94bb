"""tree-sitter helpers shared by the readers of JS/TS, Go, Rust and Java test files."""

from __future__ import annotations

from collections.abc import Iterator

import tree_sitter as ts

from referee.tools.static.langs import parser

__all__ = [
    "MAX_SOURCE",
    "descendants",
    "empty_block",
    "line",
    "parse",
    "same",
    "script_language",
    "text",
]

MAX_SOURCE = 2 * 1024 * 1024  # a code file larger than this (in UTF-8 bytes) is not read


def parse(language: str, source: str) -> ts.Node | None:
    """The syntax tree's root, or None for a file too large (or too broken) to read."""
    data = source.encode("utf-8", errors="replace")
    if len(data) > MAX_SOURCE:
        return None
    root = parser(language).parse(data).root_node
    return None if root.has_error and not root.named_children else root


def descendants(node: ts.Node, types: frozenset[str] | None = None) -> Iterator[ts.Node]:
    """Every node under `node` (pre-order, iteratively: deep trees overflow recursion)."""
    stack = list(reversed(node.children))
    while stack:
        current = stack.pop()
        if types is None or current.type in types:
            yield current
        stack.extend(reversed(current.children))


def text(node: ts.Node | None) -> str:
    return "" if node is None or node.text is None else node.text.decode("utf-8", "replace")


def empty_block(block: ts.Node | None) -> bool:
    """A body that holds nothing but comments (`{}`, `{ // todo }`)."""
    return block is not None and not [c for c in block.named_children if "comment" not in c.type]


def line(node: ts.Node) -> int:
    return node.start_point[0] + 1


def same(a: ts.Node, b: ts.Node) -> bool:
    """The same node of one tree (tree-sitter hands out a new object at each access)."""
    return (a.start_byte, a.end_byte, a.type) == (b.start_byte, b.end_byte, b.type)


def script_language(path: str) -> str:
    """The tree-sitter grammar for a JS/TS file."""
    return "tsx" if path.endswith("x") else "typescript" if ".ts" in path[-4:] else "javascript"
