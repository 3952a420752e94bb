"""Mutants of JS/TS (TSX), Go, Rust, Java and PHP files, found with tree-sitter.

The same operator families as Python's: comparison and boundary flips, arithmetic swaps (and
their `+=` forms), `&&` ↔ `||`, `!` removed, a returned value replaced by the declared type's
zero, a call statement removed, and the string and constant operators of `literals`. Each edit is
one token or expression on one line, spliced into the original bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import tree_sitter as ts

from referee.tools.adequacy.mutants.grammars import Grammar
from referee.tools.adequacy.mutants.literals import flip_boolean, number_mutants, string_mutants
from referee.tools.adequacy.mutants.spec import Lines, MutantSpec, in_order
from referee.tools.static.langs import parser

__all__ = ["generate_syntax"]

_MAX_SOURCE = 2 * 1024 * 1024  # larger files are generated code, not a change to pin

_COMPARE = {
    "<": ("<=", "boundary"),
    "<=": ("<", "boundary"),
    ">": (">=", "boundary"),
    ">=": (">", "boundary"),
    "==": ("!=", "comparison"),
    "!=": ("==", "comparison"),
    "===": ("!==", "comparison"),
    "!==": ("===", "comparison"),
    "<>": ("==", "comparison"),
}
_ARITHMETIC = {
    "+": "-",
    "-": "+",
    "*": "/",
    "/": "*",
    "%": "*",
    "**": "*",
    "&": "|",
    "|": "&",
    "^": "&",
    "<<": ">>",
    ">>": "<<",
    ">>>": ">>",
}
_LOGICAL = {"&&": "||", "||": "&&", "and": "or", "or": "and"}


class _Walk:
    """One file being walked: its grammar, bytes and wanted lines."""

    def __init__(self, grammar: Grammar, path: str, source: bytes, lines: Lines) -> None:
        self.grammar, self.path, self.source, self.lines = grammar, path, source, lines

    def edit(
        self, node: ts.Node, new: str, operator: str, end: int | None = None
    ) -> MutantSpec | None:
        """Bytes of `node` (up to `end`) become `new`; None off the wanted lines. One line
        only: a mutant reported at file:line is then exactly that line."""
        stop = node.end_byte if end is None else end
        span = self.source[node.start_byte : stop]
        line = node.start_point[0] + 1
        if b"\n" in span or line not in self.lines or node.has_error:
            return None
        original = span.decode("utf-8", "replace")
        return MutantSpec(self.path, line, node.start_byte, stop, original, new, operator)


def generate_syntax(grammar: Grammar, path: str, source: bytes, lines: Lines) -> list[MutantSpec]:
    """Every mutation of the wanted lines of one file, in source order."""
    if len(source) > _MAX_SOURCE:
        return []
    root = parser(grammar.language).parse(source).root_node
    walk = _Walk(grammar, path, source, lines)
    found: list[MutantSpec] = []
    stack = [root]
    while stack:
        node = stack.pop()
        first, last = node.start_point[0] + 1, node.end_point[0] + 1
        if _skipped(grammar, node) or not lines.meets(first, last):
            continue
        found.extend(m for m in _mutations(walk, node) if m is not None)
        stack.extend(reversed(node.children))
    return in_order(found)


def _skipped(grammar: Grammar, node: ts.Node) -> bool:
    return (
        node.type in grammar.skipped
        or node.type.endswith("_type")
        or node.type == "ERROR"
        or grammar.hidden(node)
    )


_Found = Iterator[MutantSpec | None]


def _mutations(w: _Walk, node: ts.Node) -> _Found:
    g, kind = w.grammar, node.type
    if kind in g.binary:
        yield _binary(w, node)
    elif kind in g.augmented:
        yield _augmented(w, node)
    elif kind in g.unary:
        yield _negation(w, node)
    elif kind in g.strings:
        yield from _string(w, node)
    elif kind in g.numbers:
        yield from _number(w, node)
    elif kind in g.booleans:
        flipped = flip_boolean(_text(node))
        yield w.edit(node, flipped, "constant") if flipped is not None else None
    elif kind in g.returns:
        yield _returned(w, node)
    elif kind == "expression_statement":
        yield _removed_call(w, node)
    elif g.tail_values and kind == "function_item":
        yield _tail(w, node)


def _text(node: ts.Node | None) -> str:
    return "" if node is None or node.text is None else node.text.decode("utf-8", "replace")


def _operator(node: ts.Node) -> ts.Node | None:
    """The operator token between a binary node's operands."""
    return next((c for c in node.children[1:-1] if not c.is_named), None)


def _binary(w: _Walk, node: ts.Node) -> MutantSpec | None:
    op = _operator(node)
    token = _text(op)
    if op is None:
        return None
    if token in _COMPARE:
        return w.edit(op, *_COMPARE[token])
    if token in _LOGICAL:
        return w.edit(op, _LOGICAL[token], "boolean")
    if token in _ARITHMETIC and not (token in "+-" and _stringy(w.grammar, node)):
        return w.edit(op, _ARITHMETIC[token], "arithmetic")
    return None


def _stringy(g: Grammar, node: ts.Node) -> bool:
    """A `+` joining strings (`n + " items"`): its `-` would not compile, or make NaN at once."""
    if node.type in g.strings:
        return True
    if node.type not in g.binary or _text(_operator(node)) != "+":
        return False
    return any(_stringy(g, c) for c in node.named_children)


def _augmented(w: _Walk, node: ts.Node) -> MutantSpec | None:
    op = _operator(node)
    token = _text(op)
    if op is None or not token.endswith("=") or token[:-1] not in _ARITHMETIC:
        return None
    if token == "+=" and any(_stringy(w.grammar, c) for c in node.named_children):
        return None
    return w.edit(op, _ARITHMETIC[token[:-1]] + "=", "arithmetic")


def _negation(w: _Walk, node: ts.Node) -> MutantSpec | None:
    if len(node.children) != 2 or node.children[0].type != "!":
        return None
    return w.edit(node.children[0], "", "negation", end=node.children[1].start_byte)


_PLAIN = frozenset(
    {
        "string_content",
        "string_fragment",
        "escape_sequence",
        "interpreted_string_literal_content",
        "raw_string_literal_content",
    }
)


def _string(w: _Walk, node: ts.Node) -> _Found:
    if any(c.is_named and c.type not in _PLAIN for c in node.children):
        return  # a template or an interpolated string: its values are other nodes' mutants
    parent = node.parent
    if parent is not None and (
        parent.type in ("expression_statement", "export_statement")  # `'use strict'`, re-exports
        or _module_path(parent)
    ):
        return
    text = _text(node)
    empty = not (w.grammar.format_strings and "%" in text)
    for new in string_mutants(text, empty=empty):
        yield w.edit(node, new, "string")


def _module_path(arguments: ts.Node) -> bool:
    """The argument of `require('x')` or `import('x')`."""
    call = arguments.parent
    if arguments.type != "arguments" or call is None or call.type != "call_expression":
        return False
    return _text(call.child_by_field_name("function")) in ("require", "import")


def _number(w: _Walk, node: ts.Node) -> _Found:
    parent = node.parent
    if parent is not None and parent.child_by_field_name("field") == node:
        return  # Rust's tuple index `t.0`: another field, not another number
    for new in number_mutants(_text(node)):
        yield w.edit(node, new, "constant")


def _returned(w: _Walk, node: ts.Node) -> MutantSpec | None:
    value = next((c for c in node.named_children if "comment" not in c.type), None)
    function = _enclosing_function(w.grammar, node)
    if value is None or function is None:
        return None
    declared = function.child_by_field_name(w.grammar.type_field)
    if value.type == "expression_list":  # Go: one value per declared result
        return _go_results(w, value, declared)
    return _replaced(w, value, w.grammar.zero(_text(declared)))


def _enclosing_function(g: Grammar, node: ts.Node) -> ts.Node | None:
    current = node.parent
    while current is not None and current.type not in g.functions:
        current = current.parent
    return current


def _replaced(w: _Walk, value: ts.Node, zero: str | None) -> MutantSpec | None:
    if zero is None or _text(value) == zero:
        return None
    return w.edit(value, zero, "return value")


def _go_results(w: _Walk, values: ts.Node, declared: ts.Node | None) -> MutantSpec | None:
    """The first of `return a, b` whose declared type has a zero value it does not hold yet."""
    types = _go_types(declared)
    exprs = [c for c in values.named_children if "comment" not in c.type]
    if len(types) != len(exprs):
        return None  # `return f()` of a multi-valued f, or a type referee cannot read
    for expr, kind in zip(exprs, types, strict=True):
        zero = w.grammar.zero(kind)
        if zero is not None and _text(expr) != zero:
            return w.edit(expr, zero, "return value")
    return None


def _go_types(declared: ts.Node | None) -> list[str]:
    """`(int, error)` → [int, error]; `(a, b int)` → [int, int]; `int` → [int]."""
    if declared is None:
        return []
    if declared.type != "parameter_list":
        return [_text(declared)]
    types = []
    for param in declared.named_children:
        kind = param.child_by_field_name("type")
        names = param.children_by_field_name("name")
        types += [_text(kind)] * max(1, len(names))
    return types


def _removed_call(w: _Walk, node: ts.Node) -> MutantSpec | None:
    call = node.named_children[0] if node.named_children else None
    if call is None or call.type not in w.grammar.calls or not _removable(w, call):
        return None
    closed = node.children[-1].type == ";"
    return w.edit(call, "" if closed else w.grammar.removed_call, "removed call")


_GO_PACKAGE_USE = r"(?<![\w.]){}\."


def _removable(w: _Walk, call: ts.Node) -> bool:
    """Not a constructor's chaining call (`super()`, `parent::__construct()`); in Go, not the
    last use of an imported package (the import left unused would not compile)."""
    function = call.child_by_field_name("function")
    if _text(function) == "super" or b"__construct" in (call.text or b""):
        return False
    if w.grammar.language != "go" or function is None or function.type != "selector_expression":
        return True
    operand = function.child_by_field_name("operand")
    if operand is None or operand.type != "identifier":
        return True
    package = _GO_PACKAGE_USE.format(re.escape(_text(operand)))
    return len(re.findall(package.encode(), w.source)) > 1


def _tail(w: _Walk, function: ts.Node) -> MutantSpec | None:
    """Rust: a function body's last expression, its value."""
    body = function.child_by_field_name("body")
    last = body.named_children[-1] if body is not None and body.named_children else None
    if last is None or last.type.endswith(("_statement", "_declaration", "_item", "comment")):
        return None
    declared = function.child_by_field_name(w.grammar.type_field)
    return _replaced(w, last, w.grammar.zero(_text(declared)))
