"""Whether an assertion still counts: it can run, and what it checks can differ from run to run.

An assertion that stays written but can never run (after an unconditional `return`, in the branch
of a constant condition, behind `false &&`) or never fail on the code (it reads nothing: `expect(
true).toBe(true)`, `assert_eq!(3, 3)`) checks nothing, as if it were deleted. Reading this takes
the syntax alone, as one class for every tree-sitter language the readers know (JS/TS, Go, Rust,
Java, PHP): the block and branch kinds differ in name only. A condition counts as constant only
when it is built of literals (`false`, `0`, `!true`, `x && false`, `testing.Short() || true`):
anything that reads a name may go either way, and is taken to.
"""

from __future__ import annotations

from collections.abc import Iterable

import tree_sitter as ts

from referee.tools.tampering.syntax import line, text

__all__ = [
    "DEAD_BRANCH",
    "FALSY",
    "NEVER_FAILS",
    "NO_ROWS",
    "UNREACHABLE",
    "inert",
    "sort",
    "truth",
]

Counted = list[tuple[int, str]]
Inert = list[tuple[int, str, str]]

UNREACHABLE = "it follows an unconditional exit"
DEAD_BRANCH = "it sits on a branch whose condition is constant"
NEVER_FAILS = "it reads nothing but literals"
NO_ROWS = "its loop walks an empty table"

# Go holds a block's statements in a `statement_list`.
_BLOCKS = frozenset({"statement_block", "block", "compound_statement", "statement_list"})
_IFS = frozenset({"if_statement", "if_expression"})
_WHILES = frozenset({"while_statement", "while_expression", "for_statement"})
_EXITS = frozenset(
    {"return_statement", "throw_statement", "return_expression", "throw_expression"}
    | {"break_statement", "continue_statement", "break_expression", "continue_expression"}
)
_TRUE, _FALSE = frozenset({"true", "True", "TRUE"}), frozenset({"false", "False", "FALSE"})
_LITERAL_TYPES = frozenset({"true", "false", "boolean_literal", "boolean"})
_NUMBERS = frozenset({"number", "integer", "float"})  # JS and PHP conditions take numbers
_GROUPS = frozenset({"parenthesized_expression", "condition_clause", "else_clause"})
# Leaves that are literals (a string's text is a leaf of its own in most grammars); any other
# leaf (a name, a type, `this`, a variable) reads something of the run. Unknown kinds read.
_LITERALS = frozenset(
    {"number", "string", "string_fragment", "true", "false", "null", "undefined", "integer"}
    | {"float", "boolean", "boolean_literal", "integer_literal", "float_literal", "int_literal"}
    | {"string_literal", "string_content", "char_literal", "interpreted_string_literal"}
    | {"interpreted_string_literal_content", "raw_string_literal", "decimal_integer_literal"}
    | {"decimal_floating_point_literal", "character_literal", "escape_sequence", "encapsed_string"}
    | {"string_value"}
)
# Neither read nor literal: a matcher's name (`.toBe`), a comment.
_SILENT = frozenset({"property_identifier", "comment", "line_comment", "block_comment"})
FALSY = frozenset({"false", "False", "FALSE", "0", "null", "None", "nil", "undefined", "''", '""'})


def inert(node: ts.Node, top: ts.Node, heads: frozenset[str] = frozenset()) -> str | None:
    """Why the assertion at `node` (inside the test body `top`) checks nothing, or None.

    `heads` are the names the assertion itself is written with (`expect`, `assert_eq`, `$this`):
    an assertion that reads nothing else and repeats one literal that is not falsy (`expect(true)
    .toBe(true)`, `assert_eq!(3, 3)`) cannot fail. Two literals may differ (`expect(2).to.be.at.
    most(1)`, an assertion library's own tests): those count. Pass no heads for an assertion
    whose arguments say nothing of what it checks (`t.Errorf("bad")` in an `if`, `fail()`).
    """
    unreached = _unreached(node, top)
    if unreached is not None:
        return unreached
    if heads and _tautology(node, heads):
        return NEVER_FAILS
    return None


def sort(
    candidates: Iterable[tuple[ts.Node, frozenset[str]]], top: ts.Node
) -> tuple[Counted, Inert]:
    """The assertions (each with its heads) that count, and those that check nothing, with why."""
    counted: Counted = []
    dead: Inert = []
    for call, heads in candidates:
        node = _whole(call)
        entry = (line(call), " ".join(text(node).split()))
        why = inert(node, top, heads)
        if why is None:
            counted.append(entry)
        else:
            dead.append((*entry, why))
    return counted, dead


_CHAINS = frozenset(
    {"member_expression", "call_expression", "method_invocation", "field_access"}
    | {"member_call_expression", "selector_expression"}
)


def _whole(call: ts.Node) -> ts.Node:
    """The whole assertion a call begins (`assertWithMessage(m).that(x).isNull()`): what it
    checks may be written only in the calls chained on it."""
    while call.parent is not None and call.parent.type in _CHAINS:
        call = call.parent
    return call


def truth(node: ts.Node | None) -> bool | None:
    """The value of a condition built of literals, or None when it reads anything else."""
    while node is not None and node.type in _GROUPS:
        node = node.named_children[0] if node.named_children else None
    if node is None:
        return None
    kind, spelled = node.type, text(node).strip()
    if kind in _LITERAL_TYPES:
        return True if spelled in _TRUE else False if spelled in _FALSE else None
    if kind in _NUMBERS:
        try:
            return float(spelled) != 0
        except ValueError:
            return None
    if kind == "unary_expression" and node.children and text(node.children[0]) in ("!", "not"):
        inner = truth(node.named_children[-1]) if node.named_children else None
        return None if inner is None else not inner
    if kind == "binary_expression":
        return _binary(node)
    return None


def _binary(node: ts.Node) -> bool | None:
    operator = node.child_by_field_name("operator")
    op = text(operator) if operator is not None else text(node.children[1])
    left = truth(node.child_by_field_name("left"))
    right = truth(node.child_by_field_name("right"))
    if op in ("&&", "and"):
        # `x && false` is false whatever x is; `false && x` never reads x.
        return False if False in (left, right) else True if left is right is True else None
    if op in ("||", "or"):
        return True if True in (left, right) else False if left is right is False else None
    return None


def _unreached(node: ts.Node, top: ts.Node) -> str | None:
    child, parent = node, node.parent
    while parent is not None and not _same(child, top):
        if parent.type in _BLOCKS and _exits_before(parent, child):
            return UNREACHABLE
        never = _never_taken(parent, child)
        if never is not None:
            return never
        child, parent = parent, parent.parent
    return None


def _same(a: ts.Node, b: ts.Node) -> bool:
    return (a.start_byte, a.end_byte, a.type) == (b.start_byte, b.end_byte, b.type)


def _exits_before(block: ts.Node, child: ts.Node) -> bool:
    for statement in block.named_children:
        if _same(statement, child):
            return False
        if _exits(statement):
            return True
    return False


def _exits(statement: ts.Node) -> bool:
    """A statement after which nothing of its block runs: `return`, `throw`, `break`, or an
    `if` whose constant condition always takes a branch that does."""
    if statement.type in _EXITS:
        return True
    if statement.type == "expression_statement" and statement.named_children:
        return statement.named_children[0].type in _EXITS
    if statement.type in _IFS:
        taken = truth(statement.child_by_field_name("condition"))
        branch = statement.child_by_field_name("consequence" if taken else "alternative")
        return taken is not None and branch is not None and _always_exits(branch)
    return False


def _always_exits(branch: ts.Node) -> bool:
    while branch.type in _GROUPS and branch.named_children:
        branch = branch.named_children[-1]
    if branch.type in _BLOCKS:
        return any(
            _exits(s) or (s.type in _BLOCKS and _always_exits(s)) for s in branch.named_children
        )
    return _exits(branch)


def _never_taken(parent: ts.Node, child: ts.Node) -> str | None:
    """Why the branch `child` of `parent` never runs, or None."""
    if parent.type in _IFS:
        value = truth(parent.child_by_field_name("condition"))
        consequence = parent.child_by_field_name("consequence")
        alternative = parent.child_by_field_name("alternative")
        if value is False and consequence is not None and _same(child, consequence):
            return DEAD_BRANCH
        taken = value is True and alternative is not None and _same(child, alternative)
        return DEAD_BRANCH if taken else None
    if parent.type in _WHILES or parent.type == "for_in_statement":
        body = parent.child_by_field_name("body")
        if body is None or not _same(child, body):
            return None
        if _no_rows(parent):
            return NO_ROWS
        return DEAD_BRANCH if truth(parent.child_by_field_name("condition")) is False else None
    if parent.type == "binary_expression":
        right = parent.child_by_field_name("right")
        if right is None or not _same(child, right):
            return None
        op, left = (
            text(parent.child_by_field_name("operator")),
            truth(parent.child_by_field_name("left")),
        )
        short = (op == "&&" and left is False) or (op == "||" and left is True)
        return DEAD_BRANCH if short else None
    return None


def _tautology(node: ts.Node, heads: frozenset[str]) -> bool:
    literals: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in _LITERALS:
            literals.add(text(current))
        elif current.type in _SILENT:
            continue
        elif not current.named_children:
            if text(current) not in heads:
                return False  # it reads a name, a type, a variable: it can fail
        else:
            stack.extend(current.named_children)
    return len(literals) == 1 and not literals & FALSY


def _no_rows(loop: ts.Node) -> bool:
    """A loop over an empty literal table: `for (const c of [])`, `for _, c := range []int{}`."""
    clause = next((c for c in loop.named_children if c.type == "range_clause"), loop)
    table = clause.child_by_field_name("right")
    if table is not None and table.type == "composite_literal":
        table = table.child_by_field_name("body")
    return (
        table is not None and table.type in ("array", "literal_value") and not table.named_children
    )
