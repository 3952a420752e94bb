"""Assertions that cannot fail on the code, in any tree-sitter language the readers know.

Two shapes, read from the assertion's compared operands (an `expect(a).toBe(b)` chain's subject
and expected value, an `assertEquals(a, b)` call's first two arguments, an `assert_eq!`'s first
two token groups):
- an equality whose two sides are the same expression (`expect(add(1, 2)).toBe(add(1, 2))`,
  `assert.Equal(t, x, x)`): whatever the code does, both sides agree;
- an assertion that reads nothing but literals and holds on them (`expect(true).toBe(true)`,
  `assertEquals(0, 0)`, `assert!(true)`, `expect(null).toBeNull()`). Two different literals may
  fail (`expect(2).to.be.at.most(1)`, an assertion library's own tests): those count.
A message argument is no operand: `assert_eq!(3, 3, "{}", add(1, 2))` still compares 3 with 3.
"""

from __future__ import annotations

import re

import tree_sitter as ts

from referee.tools.static.langs import parser
from referee.tools.tampering import literals
from referee.tools.tampering.literals import UNKNOWN, value
from referee.tools.tampering.syntax import text

__all__ = ["NEVER_FAILS", "arguments", "calls", "name_of", "never_fails"]

NEVER_FAILS = "it cannot fail: it compares an expression with itself or reads only literals"

_CALLS = frozenset(
    {"call_expression", "method_invocation", "member_call_expression", "scoped_call_expression"}
    | {"function_call_expression", "macro_invocation"}
)
_ACCESS = frozenset({"member_expression", "selector_expression", "field_access"})
# Leaves that read nothing: literals, a matcher's or method's name, comments, empty brackets.
_QUIET = frozenset(
    {"property_identifier", "field_identifier", "comment", "line_comment", "block_comment"}
    | {
        "escape_sequence",
        "string_fragment",
        "string_content",
        "interpreted_string_literal_content",
        "string_value",
    }
    | {"true", "false", "null", "undefined", "nil", "null_literal", "boolean", "boolean_literal"}
    | {"number", "integer", "float", "int_literal", "integer_literal", "float_literal"}
    | {"decimal_integer_literal", "decimal_floating_point_literal", "string", "string_literal"}
    | {"interpreted_string_literal", "raw_string_literal", "char_literal", "character_literal"}
    | {"encapsed_string", "hex_integer_literal"}
)
# Brackets that read nothing when empty (`toBeTruthy()`, `[]`, `{}`); their contents are read.
_CONTAINERS = frozenset(
    {"arguments", "argument_list", "token_tree", "array", "object", "literal_value"}
    | {"array_creation_expression", "array_expression", "parenthesized_expression"}
)
# An equality by its name's end (`toBe`, `toEqual`, `assertSame`, `assert_eq`, `Equal`), not a
# negated one (`assertNotEqual` of an expression with itself always fails: no tautology).
_EQUALITY = re.compile(r"(?i)(be|equals?|eql|same|eq|is|equalvalues)$")
_NOT = re.compile(r"(?i)not|_ne$|Ne$")
# Assertions of one condition (`assert!`, `assertTrue`, `assert.ok`, `assert`): what follows it
# is a message.
_ONE = re.compile(r"(?i)^(assert|ok|asserttrue|assertfalse|assert_true|assert_false|true|false)$")
_NEGATIVE = re.compile(r"(?i)(null|nil|none|false|falsy|undefined|empty|not|isnt|zero)")


def never_fails(node: ts.Node, heads: frozenset[str]) -> bool:
    """Whether the assertion `node` (its whole chain) holds whatever the code does."""
    chain = calls(node)
    if not chain:
        return False
    name = name_of(chain[0])
    operands = _operands(chain, heads, name)
    if _EQUALITY.search(name) and not _NOT.search(name) and _same_sides(operands):
        return True
    negative = any(_NEGATIVE.search(name_of(c)) for c in chain)
    if len(operands) == 1 and (known := value(operands[0])) is not UNKNOWN:
        # One condition whose value is known even if it reads names: `true || add(1, 2) == 3`.
        return (not known) if negative else bool(known)
    if not all(_reads_nothing(o, heads | {name}) for o in operands):
        return False
    values = [value(o) for o in operands]
    if not values or UNKNOWN in values:
        texts = [" ".join(text(o).split()) for o in operands]
        return len(texts) >= 2 and len(set(texts)) == 1
    if len(values) >= 2:
        return all(v == values[0] and type(v) is type(values[0]) for v in values)
    return (not values[0]) if negative else bool(values[0])


def calls(node: ts.Node) -> list[ts.Node]:
    """The calls of an assertion's chain, outermost first (`expect(a).not.toBe(b)`: toBe's
    call, then expect's)."""
    found: list[ts.Node] = []
    current: ts.Node | None = node
    while current is not None:
        if current.type in _CALLS:
            found.append(current)
            current = current.child_by_field_name("function") or current.child_by_field_name(
                "object"
            )
        elif current.type in _ACCESS:
            current = current.child_by_field_name("object") or current.child_by_field_name(
                "operand"
            )
        else:
            break
    return found


def name_of(call: ts.Node) -> str:
    named = call.child_by_field_name("name") or call.child_by_field_name("macro")
    if named is not None:
        return text(named)
    function = call.child_by_field_name("function")
    if function is not None and function.type in _ACCESS:
        function = function.child_by_field_name("property") or function.child_by_field_name("field")
    return text(function)


def arguments(call: ts.Node) -> list[ts.Node]:
    if call.type == "macro_invocation":
        tree = next((c for c in call.named_children if c.type == "token_tree"), None)
        return _token_groups(tree) if tree is not None else []
    args = call.child_by_field_name("arguments")
    if args is None:
        return []
    return [
        a.named_children[0] if a.type == "argument" and a.named_children else a
        for a in args.named_children
        if "comment" not in a.type
    ]


def _token_groups(tree: ts.Node) -> list[ts.Node]:
    """A macro's arguments: its tokens split at top-level commas. A group of one token is that
    token (`3`, `true`, read for its value); a longer one (`add(1, 2)`, `!false`) has no node of
    its own in the token tree, so it is parsed again as a Rust expression (or, if that fails,
    stands as its spelling, `_Spelled`: two groups spelled alike are the same expression)."""
    groups: list[list[ts.Node]] = [[]]
    for child in tree.children[1:-1]:
        if child.type == ",":
            groups.append([])
        else:
            groups[-1].append(child)
    return [g[0] if len(g) == 1 else _expression(g) for g in groups if g]


def _expression(tokens: list[ts.Node]) -> ts.Node:
    spelled = b" ".join(t.text or b"" for t in tokens)
    root = parser("rust").parse(b"fn f() {\n" + spelled + b"\n}").root_node
    body = root.named_children[0].child_by_field_name("body") if root.named_children else None
    statements = body.named_children if body is not None and not root.has_error else []
    if len(statements) == 1:
        found = statements[0]
        return found.named_children[0] if found.type == "expression_statement" else found
    return _Spelled(tokens)  # type: ignore[return-value]


class _Spelled:
    """Several tokens read as one operand: only their text is compared."""

    def __init__(self, tokens: list[ts.Node]) -> None:
        self.type = "tokens"
        self.text = b" ".join(t.text or b"" for t in tokens)
        self.named_children: list[ts.Node] = []
        self.children: list[ts.Node] = []

    def child_by_field_name(self, _name: str) -> None:
        return None


def _operands(calls: list[ts.Node], heads: frozenset[str], name: str) -> list[ts.Node]:
    """The compared expressions, without a message: a chain's subject (its head's first
    argument: `expect(x, "message")`) and expected value; a call's arguments without the test
    handle (`t`), its two sides if it is an equality, its condition if it takes one."""
    if len(calls) >= 2:
        return [*arguments(calls[-1])[:1], *arguments(calls[0])]
    args = [a for a in arguments(calls[0]) if text(a) not in heads]
    if len(args) >= 2 and args[0].type in ("string_literal", "string"):
        if len(args) == 3 and text(args[1]) == text(args[2]):
            return args[1:]  # JUnit 4: the message comes first
        if len(args) == 2 and _ONE.search(name):
            return args[1:]  # JUnit 4's `assertTrue("message", condition)`
    if _EQUALITY.search(name):
        return args[:2]
    return args[:1] if _ONE.search(name) else args


def _same_sides(operands: list[ts.Node]) -> bool:
    if len(operands) < 2:
        return False
    first, second = (" ".join(text(o).split()) for o in operands[:2])
    return bool(first) and first == second


def _reads_nothing(node: ts.Node, heads: frozenset[str]) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in _QUIET:
            continue
        if current.type in _CONTAINERS:
            stack.extend(current.named_children)
            continue
        if not current.named_children:
            spelled = text(current)
            # A name the file binds once to a literal (`const x = 3`) reads that literal.
            if spelled not in heads and current.type not in ("this", "self"):
                if not literals.constant(spelled):
                    return False
            continue
        stack.extend(current.named_children)
    return True
