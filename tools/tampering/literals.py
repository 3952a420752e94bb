"""The value of an expression built of literals, in any tree-sitter language the readers know.

A condition or an assertion's operand counts as constant only when it is made of literals and
operators on them (`false`, `0`, `null`, `''`, `void 0`, `!true`, `1 > 2`, `'a' === 'b'`,
`x && false`, `false ? a : b`, a TS cast of one): anything that reads a name may go either way,
and is taken to. Truthiness is the JS/PHP/Python one; Go, Rust and Java only compile booleans
there, so the rule is the same for them.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import tree_sitter as ts

from referee.tools.tampering.rustcfg import holds
from referee.tools.tampering.syntax import text

__all__ = ["UNKNOWN", "bound", "constant", "constants", "truth", "value"]


class _Unknown:
    """What an expression that reads anything but literals evaluates to here."""


UNKNOWN: Any = _Unknown()

# Wrappers whose value is their one operand: parentheses, TS casts, a Go condition clause.
_GROUPS = frozenset(
    {"parenthesized_expression", "condition_clause", "as_expression", "satisfies_expression"}
    | {"non_null_expression", "type_assertion", "parenthesized_type"}
)
_TRUE, _FALSE = frozenset({"true", "True", "TRUE"}), frozenset({"false", "False", "FALSE"})
_BOOLEANS = frozenset({"true", "false", "boolean_literal", "boolean"})
_NONE = frozenset({"null", "undefined", "nil", "none", "null_literal", "None"})
_NUMBERS = frozenset(
    {"number", "integer", "float", "int_literal", "integer_literal", "float_literal"}
    | {"decimal_integer_literal", "hex_integer_literal", "octal_integer_literal"}
    | {"binary_integer_literal", "decimal_floating_point_literal"}
)
_STRINGS = frozenset(
    {"string", "string_literal", "interpreted_string_literal", "raw_string_literal"}
    | {"encapsed_string", "template_string", "char_literal", "character_literal"}
)
# Java's boxed constants.
_BOXED = {"Boolean.FALSE": False, "Boolean.TRUE": True}
# Names bound to literal values where an expression is read (the file's constants, a loop's
# initial values): a name is read as its value only inside `bound(…)`.
_BOUND: ContextVar[dict[str, Any]] = ContextVar("bound", default={})  # noqa: B039
_NAMES = frozenset({"identifier", "field_identifier"})
_DECLARES = {
    "variable_declarator": ("name", "value"),
    "const_spec": ("name", "value"),
    "var_spec": ("name", "value"),
    "const_item": ("name", "value"),
    "static_item": ("name", "value"),
    "short_var_declaration": ("left", "right"),
}
# What changes a bound name (`a = 1`, `a += 1`, `a++`): a name changed anywhere is no constant.
_ASSIGNS = frozenset(
    {"assignment_expression", "assignment_statement", "augmented_assignment_expression"}
    | {"compound_assignment_expr", "update_expression", "inc_statement", "dec_statement"}
)
_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq,
    "===": operator.eq,
    "!=": operator.ne,
    "!==": operator.ne,
    "<>": operator.ne,
    "<": operator.lt,
    ">": operator.gt,
    "<=": operator.le,
    ">=": operator.ge,
}


@contextmanager
def bound(names: dict[str, Any]) -> Iterator[None]:
    """Read names as these values (on top of those already bound) inside the block."""
    token = _BOUND.set({**_BOUND.get(), **names})
    try:
        yield
    finally:
        _BOUND.reset(token)


def constant(name: str) -> bool:
    """Whether `name` is read as a bound value here."""
    return name in _BOUND.get()


def constants(root: ts.Node) -> dict[str, Any]:
    """Names a tree binds once, to a literal, and never assigns again: `const DEBUG = false`,
    `const debug = false`, `const SKIP: bool = true;`, `static final boolean SKIP = true;`,
    PHP's `const SKIP = true` (read as `self::SKIP` too)."""
    values: dict[str, Any] = {}
    counts: Counter[str] = Counter()
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type in _ASSIGNS:
            changed = node.child_by_field_name("left") or node.child_by_field_name("argument")
            changed = changed or (node.named_children[0] if node.named_children else None)
            counts[text(changed).strip()] += 2
        fields = _DECLARES.get(node.type)
        name_node: ts.Node | None
        value_node: ts.Node | None
        if fields is None and node.type == "const_element" and len(node.named_children) == 2:
            name_node, value_node = node.named_children
        elif fields is not None:
            name_node, value_node = (node.child_by_field_name(f) for f in fields)
        else:
            continue
        if name_node is None or value_node is None:
            continue
        if value_node.type == "expression_list" and len(value_node.named_children) == 1:
            value_node = value_node.named_children[0]
        if name_node.type == "expression_list" and len(name_node.named_children) == 1:
            name_node = name_node.named_children[0]
        name = text(name_node).strip()
        counts[name] += 1
        found = value(value_node)
        if found is not UNKNOWN:
            values[name] = found
    return {name: v for name, v in values.items() if counts[name] == 1}


def truth(node: ts.Node | None) -> bool | None:
    """Whether a condition built of literals holds; None when it reads anything else."""
    found = value(node)
    return None if found is UNKNOWN else bool(found)


def value(node: ts.Node | None, depth: int = 0) -> Any:
    """The value of an expression built of literals, or UNKNOWN."""
    while node is not None and node.type in _GROUPS and node.named_children:
        node = node.named_children[0]
    if node is None or depth > 64:
        return UNKNOWN
    kind, spelled = node.type, text(node).strip()
    if kind in _NAMES or kind in ("class_constant_access_expression", "scoped_identifier"):
        names = _BOUND.get()
        last = node.named_children[-1] if kind != "identifier" and node.named_children else node
        return names.get(text(last).strip(), UNKNOWN) if names else UNKNOWN
    if kind in _BOOLEANS:
        return True if spelled in _TRUE else False if spelled in _FALSE else UNKNOWN
    if kind in _NONE:
        return None
    if kind == "field_access" and spelled.replace(" ", "") in _BOXED:
        return _BOXED[spelled.replace(" ", "")]
    if kind in _NUMBERS:
        return _number(spelled)
    if kind in _STRINGS:
        return _string(node, spelled)
    if kind in ("unary_expression", "unary_op_expression"):
        return _unary(node, depth)
    if kind == "binary_expression":
        return _binary(node, depth)
    if kind == "let_condition":
        return _let_matches(node)
    if kind == "macro_invocation" and text(node.child_by_field_name("macro")) == "cfg":
        tree = node.named_children[-1] if node.named_children else None
        return holds(f"cfg{text(tree)}")  # `cfg!(test)`, `cfg!(any())`: known at build time
    if kind == "ternary_expression":
        chosen = truth(node.child_by_field_name("condition"))
        if chosen is None:
            return UNKNOWN
        return value(
            node.child_by_field_name("consequence" if chosen else "alternative"), depth + 1
        )
    return UNKNOWN


def _let_matches(node: ts.Node) -> Any:
    """`if let Some(a) = None` never matches: a variant pattern against a literal `None`."""
    pattern, given = node.child_by_field_name("pattern"), node.child_by_field_name("value")
    spelled = "".join(text(given).split())
    is_none = spelled == "None" or (spelled.startswith("None::<") and spelled.endswith(">"))
    variant = pattern is not None and pattern.type in ("tuple_struct_pattern", "struct_pattern")
    return False if is_none and variant else UNKNOWN


def _number(spelled: str) -> Any:
    digits = spelled.replace("_", "").rstrip("nLlUuFfDd").lower()
    for parse in (lambda s: int(s, 0), float):
        try:
            return parse(digits)
        except ValueError:
            continue
    return UNKNOWN


def _string(node: ts.Node, spelled: str) -> Any:
    if "${" in spelled or (node.type == "encapsed_string" and "$" in spelled[1:-1]):
        return UNKNOWN  # a template or an interpolating string reads what it fills in
    return spelled[1:-1] if len(spelled) >= 2 else UNKNOWN


def _unary(node: ts.Node, depth: int) -> Any:
    op = text(node.child_by_field_name("operator") or node.children[0]).strip()
    inner = value(node.named_children[-1] if node.named_children else None, depth + 1)
    if op == "void":
        return None  # `void 0` is undefined, whatever it voids
    if inner is UNKNOWN:
        return UNKNOWN
    if op in ("!", "not"):
        return not inner
    if op == "-" and isinstance(inner, int | float) and not isinstance(inner, bool):
        return -inner
    return inner if op == "+" else UNKNOWN


def _binary(node: ts.Node, depth: int) -> Any:
    operator_node = node.child_by_field_name("operator")
    op = text(operator_node if operator_node is not None else node.children[1]).strip()
    left = value(node.child_by_field_name("left"), depth + 1)
    right = value(node.child_by_field_name("right"), depth + 1)
    if op in ("&&", "and"):
        # `x && false` is false whatever x is; `false && x` never reads x.
        if (left is not UNKNOWN and not left) or (right is not UNKNOWN and not right):
            return False
        return right if left is not UNKNOWN and right is not UNKNOWN else UNKNOWN
    if op in ("||", "or"):
        if left is not UNKNOWN and left:
            return left
        if right is not UNKNOWN and right:
            return True
        return right if left is not UNKNOWN and right is not UNKNOWN else UNKNOWN
    compare = _COMPARE.get(op)
    if compare is None or left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    try:
        return bool(compare(left, right))
    except TypeError:
        return UNKNOWN
