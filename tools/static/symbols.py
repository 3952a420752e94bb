"""The symbol (function or class, qualified) enclosing a line, so that a finding can be matched
with the same finding at base when only line numbers moved."""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter as ts

from referee.tools.static.langs import SPECS, parser
from referee.tools.static.paths import parsed_language
from referee.tools.static.structure import function_name

_CLASSES = frozenset(
    {
        "class_definition",
        "class_declaration",
        "class",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
        "impl_item",
        "trait_item",
        "struct_item",
        "mod_item",
    }
)


@dataclass(frozen=True)
class _Span:
    first: int
    last: int
    name: str


class Symbols:
    """The enclosing symbols of one file's lines (an empty map for unparsed languages)."""

    def __init__(self, path: str, data: bytes | None) -> None:
        language = parsed_language(path)
        self._spans: list[_Span] = []
        if data is not None and language in SPECS:
            self._spans = _spans(parser(language).parse(data).root_node, SPECS[language].functions)

    def at(self, line: int) -> str:
        """`Outer.inner` for the innermost function or class holding the 1-based line ('' for
        module-level code)."""
        holding = [s for s in self._spans if s.first <= line <= s.last]
        return holding[-1].name if holding else ""


def _spans(root: ts.Node, functions: frozenset[str]) -> list[_Span]:
    """Every function and class with its qualified name, outer ones first."""
    found: list[_Span] = []
    stack: list[tuple[ts.Node, str]] = [(root, "")]
    while stack:
        node, prefix = stack.pop()
        name = prefix
        if node.type in functions or node.type in _CLASSES:
            own = function_name(node)
            name = f"{prefix}.{own}" if prefix else own
            found.append(_Span(node.start_point[0] + 1, node.end_point[0] + 1, name))
        stack.extend((child, name) for child in reversed(node.children))
    found.sort(key=lambda s: (s.first, -s.last))
    return found
