"""A test that lets where code lies decide what it expects.

Where a function lies in its file (the line an error's stack names, `runtime.FuncForPC`'s file and
line, a panic's location) changes with any edit of the file, while the code can stay as wrong: a
test that expects one value when the line moved and another when it did not tells the base from
the change (or a mutant from the code). Reading a stack is common and honest (a library checks
its errors' stacks); what is found is a condition that decides an expectation and depends on a
stack read: directly, through a variable bound from one, or through a function of the file that
reads one (to any depth the file's own bindings reach).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

import tree_sitter as ts

from referee.tools.tampering.syntax import descendants, text

__all__ = ["Stacks", "stack_reads"]

# The nodes that bind names from a value (the name's field, the value's field), and the nodes
# that define a named function (their bodies are the scope of what they bind), per language.
_BINDERS: dict[str, dict[str, tuple[str, str]]] = {
    "javascript": {
        "variable_declarator": ("name", "value"),
        "assignment_expression": ("left", "right"),
    },
    "go": {
        "short_var_declaration": ("left", "right"),
        "assignment_statement": ("left", "right"),
        "var_spec": ("name", "value"),
    },
    "rust": {"let_declaration": ("pattern", "value"), "assignment_expression": ("left", "right")},
}
_DEFINERS: dict[str, frozenset[str]] = {
    "javascript": frozenset(
        {"function_declaration", "method_definition", "function_expression", "arrow_function"}
    ),
    "go": frozenset({"function_declaration", "method_declaration", "func_literal"}),
    "rust": frozenset({"function_item", "closure_expression"}),
}
_IDENTIFIERS = frozenset({"identifier", "shorthand_property_identifier_pattern"})
_ROUNDS = 4

Span = tuple[int, int]


@dataclass(frozen=True)
class Stacks:
    """A file's stack reads and what was bound from them: functions by name (file-wide), other
    names within the function that binds them."""

    reads: tuple[Span, ...] = ()
    functions: frozenset[str] = frozenset()
    bound: tuple[tuple[str, Span], ...] = ()

    def decide(self, condition: ts.Node) -> bool:
        """Whether the condition holds a stack read or names what was bound from one."""
        return bool(self.reads) and _holds(condition, self.reads, self.functions, self.bound)


def stack_reads(root: ts.Node, language: str, reads: Iterable[ts.Node]) -> Stacks:
    """The stack reads `reads` of the file at `root`, with the names bound from them, or from a
    name so bound (to a few steps), and the functions whose bodies hold one."""
    spans = tuple((r.start_byte, r.end_byte) for r in reads)
    if not spans:
        return Stacks()
    binders, definers = _BINDERS[language], _DEFINERS[language]
    bindings = list(descendants(root, frozenset(binders)))
    defined = [n for n in descendants(root, definers) if n.child_by_field_name("name")]
    functions: set[str] = set()
    bound: set[tuple[str, Span]] = set()
    for _ in range(_ROUNDS):
        before = len(functions) + len(bound)
        for node in bindings:
            name_field, value_field = binders[node.type]
            value = node.child_by_field_name(value_field)
            if value is not None and _holds(value, spans, functions, bound):
                scope = _scope(node, definers, root)
                bound.update((n, scope) for n in _identifiers(node.child_by_field_name(name_field)))
        for node in defined:
            body = node.child_by_field_name("body")
            if body is not None and _holds(body, spans, functions, bound):
                functions.add(text(node.child_by_field_name("name")))
        if len(functions) + len(bound) == before:
            break
    return Stacks(spans, frozenset(functions - {"_"}), tuple(b for b in bound if b[0] != "_"))


def _scope(node: ts.Node, definers: frozenset[str], root: ts.Node) -> Span:
    """The function a binding is in (the file, for a top-level one)."""
    parent = node.parent
    while parent is not None and parent.type not in definers:
        parent = parent.parent
    chosen = parent or root
    return chosen.start_byte, chosen.end_byte


def _holds(
    node: ts.Node,
    spans: Iterable[Span],
    functions: Collection[str],
    bound: Iterable[tuple[str, Span]],
) -> bool:
    if any(node.start_byte <= start and end <= node.end_byte for start, end in spans):
        return True
    bound = list(bound)
    if not functions and not bound:
        return False
    for n in (node, *descendants(node, _IDENTIFIERS)):
        if n.type not in _IDENTIFIERS:
            continue
        name = text(n)
        if name in functions or any(
            name == b and start <= n.start_byte < end for b, (start, end) in bound
        ):
            return True
    return False


def _identifiers(node: ts.Node | None) -> list[str]:
    if node is None:
        return []
    return [text(n) for n in (node, *descendants(node, _IDENTIFIERS)) if n.type in _IDENTIFIERS]
