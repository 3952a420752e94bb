"""Whether an assertion still counts: it can run, it can fail, and its failure reaches the runner.

An assertion that stays written but can never run (after an unconditional `return`, `exit` or
`throw`, on the branch of a constant condition, behind `false &&`, in a loop over an empty
table), never fail on the code (`expect(true).toBe(true)`, `assert_eq!(3, 3)`,
`expect(add(1, 2)).toBe(add(1, 2))`) or whose failure is caught before the runner sees it (a
`try` whose `catch` takes an assertion error and says nothing) checks nothing, as if it were
deleted. Reading this takes the syntax alone, as one class for every tree-sitter language the
readers know (JS/TS, Go, Rust, Java, PHP): the block, branch and loop kinds differ in name only.
Constant conditions are those built of literals (tools/tampering/literals.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import tree_sitter as ts

from referee.tools.tampering import literals, tautology
from referee.tools.tampering.literals import truth
from referee.tools.tampering.rustcfg import holds
from referee.tools.tampering.syntax import descendants, line, same, text

__all__ = [
    "CAUGHT",
    "DEAD_BRANCH",
    "NEVER_FAILS",
    "NO_ROWS",
    "UNREACHABLE",
    "Tally",
    "cached",
    "inert",
    "sort",
    "truth",
    "unreached",
]

Counted = list[tuple[int, str]]
Inert = list[tuple[int, str, str]]

UNREACHABLE = "it follows an unconditional exit"
DEAD_BRANCH = "it sits on a branch whose condition is constant"
NEVER_FAILS = tautology.NEVER_FAILS
NO_ROWS = "its loop walks an empty table"
CAUGHT = "its failure is caught before the runner sees it"
INVERTED = "it passes only when an assertion fails"
NEVER_CALLED = "it sits in a function the test never calls"

# Go holds a block's statements in a `statement_list`.
_BLOCKS = frozenset({"statement_block", "block", "compound_statement", "statement_list"})
_IFS = frozenset({"if_statement", "if_expression"})
_LOOPS = frozenset(
    {"while_statement", "while_expression", "for_statement", "for_in_statement"}
    | {"for_expression", "foreach_statement", "enhanced_for_statement", "do_statement"}
)
_EXITS = frozenset(
    {"return_statement", "throw_statement", "return_expression", "throw_expression"}
    | {"break_statement", "continue_statement", "break_expression", "continue_expression"}
    | {"exit_statement", "goto_statement"}
)
# Calls after which nothing of the process runs: the test ends as a pass where the runner lets
# a clean exit be one.
_NEVER_RETURN = frozenset(
    {"process.exit", "process.reallyExit", "os._exit", "sys.exit", "os.Exit", "runtime.Goexit"}
    | {
        "std::process::exit",
        "process::exit",
        "exit",
        "die",
        "System.exit",
        "Runtime.getRuntime().halt",
    }
)
_CALLS = frozenset({"call_expression", "function_call_expression", "method_invocation"})
_EMPTY_TABLES = frozenset(
    {"array", "literal_value", "array_creation_expression", "array_expression", "list"}
)
# What a catch clause names when it takes an assertion's failure: the runners' errors and
# everything above them.
_CATCH_ALL = frozenset(
    {"AssertionError", "AssertionFailedError", "Throwable", "Error", "Exception"}
    | {"ExpectationFailedException", "JestAssertionError", "AssertionFailedException"}
)


@dataclass
class Tally:
    """A test's assertions as its scopes are read: its own body's, those a helper lends it,
    and those that check nothing."""

    asserts: Counted = field(default_factory=list)
    inert: Inert = field(default_factory=list)
    lent: Counted = field(default_factory=list)

    def add(
        self, candidates: Iterable[tuple[ts.Node, frozenset[str]]], scope: ts.Node, own: bool
    ) -> None:
        counted, dead = sort(candidates, scope)
        (self.asserts if own else self.lent).extend(counted)
        self.inert.extend(dead)


def sort(
    candidates: Iterable[tuple[ts.Node, frozenset[str]]], top: ts.Node
) -> tuple[Counted, Inert]:
    """The assertions (each with its heads) that count, and those that check nothing, with why."""
    counted: Counted = []
    dead: Inert = []
    for call, heads in candidates:
        node = whole(call)
        entry = (line(call), " ".join(text(node).split()))
        why = inert(node, top, heads)
        if why is None:
            counted.append(entry)
        else:
            dead.append((*entry, why))
    return counted, dead


def inert(node: ts.Node, top: ts.Node, heads: frozenset[str] = frozenset()) -> str | None:
    """Why the assertion at `node` (inside the test body `top`) checks nothing, or None.

    `heads` are the names the assertion itself is written with (`expect`, `assert_eq`, `$this`);
    pass none for an assertion whose arguments say nothing of what it checks (`t.Errorf("bad")`
    in an `if`, `fail()`): it is never read as a tautology.
    """
    unreached = _unreached(node, top)
    if unreached is not None:
        return unreached
    if _expects_a_failure(node):
        return INVERTED
    if heads and tautology.never_fails(node, heads):
        return NEVER_FAILS
    return None


# Matchers and assertions that pass when what they are given throws.
_THROWS = frozenset(
    {"toThrow", "toThrowError", "rejects", "throws", "assertThrows", "assertRaises"}
    | {"expectThrows", "toThrowErrorMatchingSnapshot", "assertThatThrownBy", "should_panic"}
)
_CLOSURES = frozenset(
    {"arrow_function", "function_expression", "function", "func_literal", "closure_expression"}
    | {"lambda_expression", "anonymous_function", "anonymous_function_creation_expression"}
)


def _expects_a_failure(node: ts.Node) -> bool:
    """`expect(() => expect(x).toBe(y)).toThrow()`, `assertThrows(AssertionError.class, () ->
    assertEquals(…))`: an assertion that passes exactly when the one it wraps fails."""
    names = {tautology.name_of(c) for c in tautology.calls(node)}
    if not names & _THROWS:
        return False
    args = [a for c in tautology.calls(node) for a in tautology.arguments(c)]
    return any("expect(" in text(a) or "assert" in text(a) for a in args)


_CHAINS = frozenset(
    {"member_expression", "call_expression", "method_invocation", "field_access"}
    | {"member_call_expression", "selector_expression"}
)


def whole(call: ts.Node) -> ts.Node:
    """The whole assertion a call begins (`assertWithMessage(m).that(x).isNull()`): what it
    checks may be written only in the calls chained on it."""
    while call.parent is not None and call.parent.type in _CHAINS:
        call = call.parent
    return call


def unreached(node: ts.Node, top: ts.Node) -> str | None:
    """Why `node` (inside `top`) never runs, or None: after an exit, on a dead branch."""
    return _unreached(node, top)


def _unreached(node: ts.Node, top: ts.Node) -> str | None:
    child, parent = node, node.parent
    while parent is not None and not same(child, top):
        if parent.type in _BLOCKS and _exits_before(parent, child):
            return UNREACHABLE
        if parent.type in _BLOCKS and _compiled_out(child):
            return DEAD_BRANCH
        never = _never_taken(parent, child)
        if never is not None:
            return never
        if parent.type in ("try_statement", "try_expression") and _swallowed(parent, child):
            return CAUGHT
        if parent.type in _CASES and _no_case_matches(parent):
            return DEAD_BRANCH
        if parent.type in ("arguments", "argument_list") and _swallowed_by_chain(parent):
            return CAUGHT
        if parent.type in _CLOSURES and not same(parent, top):
            never = _never_called(parent, top)
            if never is not None:
                return never
        call = parent.parent if parent.type in ("arguments", "argument_list") else None
        if call is not None and _expects_a_failure(whole(call)):
            return INVERTED
        child, parent = parent, parent.parent
    return None


def _compiled_out(statement: ts.Node) -> bool:
    """A Rust statement under a `#[cfg(…)]` that does not hold in a test build: it is not
    compiled (`#[cfg(any())] assert_eq!(…);`)."""
    above = statement.prev_named_sibling
    while above is not None and above.type == "attribute_item":
        spelled = "".join(text(above).split())
        if spelled.startswith("#[cfg(") and not holds(spelled):
            return True
        above = above.prev_named_sibling
    return False


_DEEPEST = 200  # blocks in blocks read for an exit; a deeper nest is read as running on
_CASES = frozenset(
    {"switch_case", "switch_block_statement_group", "case_statement", "expression_case"}
)
_DEFAULTS = frozenset({"switch_default", "default_statement", "default_case"})


def _no_case_matches(case: ts.Node) -> bool:
    """A case of a `switch` on a constant that no case label equals, with no default: no case
    of it runs (`switch (1) { case 2: … }`, Go's `switch { case false: … }`)."""
    switch = case.parent
    while switch is not None and switch.type in ("switch_body", "switch_block"):
        switch = switch.parent
    if switch is None:
        return False
    subject_node = switch.child_by_field_name("value") or switch.child_by_field_name("condition")
    subject = literals.value(subject_node) if subject_node is not None else True
    if subject is literals.UNKNOWN:
        return False
    body = switch.child_by_field_name("body") or switch
    labels = []
    for arm in body.named_children:
        if arm.type in _DEFAULTS or (arm.type in _CASES and "default" in text(arm).split(":")[0]):
            return False
        if arm.type in _CASES:
            labels += _case_values(arm)
    return all(v is not literals.UNKNOWN and v != subject for v in labels)


def _case_values(case: ts.Node) -> list[Any]:
    if case.type == "switch_block_statement_group":
        found = [c for c in case.named_children if c.type == "switch_label"]
        return [
            literals.value(c.named_children[0]) if c.named_children else literals.UNKNOWN
            for c in found
        ]
    value = case.child_by_field_name("value")
    if value is not None and value.type == "expression_list":
        return [literals.value(v) for v in value.named_children]
    return [literals.value(value)] if value is not None else [literals.UNKNOWN]


def _swallowed_by_chain(args: ts.Node) -> bool:
    """`p.then(() => expect(x).toBe(y)).catch(() => {})`: the callback's failure rejects the
    chain, and a silent `.catch` takes it; Rust's `let _ = catch_unwind(|| …)` alike."""
    call = args.parent
    if call is None:
        return False
    if tautology.name_of(call).endswith("catch_unwind"):
        holder = call.parent
        return holder is not None and (
            holder.type == "expression_statement" or text(holder).lstrip().startswith("let _")
        )
    if tautology.name_of(call) != "then":
        return False
    for step in tautology.calls(whole(call)):
        if tautology.name_of(step) == "catch":
            handlers = tautology.arguments(step)
            body = handlers[0].child_by_field_name("body") if handlers else None
            if body is not None and _silent(body):
                return True
    return False


def _never_called(closure: ts.Node, top: ts.Node) -> str | None:
    """A function the test binds to a name it never uses again, or hands to a loop over an
    empty array (`[].forEach(…)`): what it holds never runs."""
    holder = closure.parent
    if holder is not None and holder.type in ("arguments", "argument_list"):
        call = holder.parent
        callee = call.child_by_field_name("function") if call is not None else None
        owner = callee.child_by_field_name("object") if callee is not None else None
        if owner is not None and owner.type == "array" and not owner.named_children:
            return NO_ROWS
        return None
    while holder is not None and holder.type in ("expression_list", "parenthesized_expression"):
        holder = holder.parent
    if holder is None or holder.type not in _BINDS:
        return None
    target = holder.child_by_field_name("name") or holder.child_by_field_name("left")
    target = target or holder.child_by_field_name("pattern")
    name = text(target).strip()
    uses = [
        n for n in descendants(top, _NAMES) if text(n) == name.lstrip("$") and not _discarded(n)
    ]
    return NEVER_CALLED if name and len(uses) <= 1 else None


def _discarded(use: ts.Node) -> bool:
    """`_ = check`: a use that only quiets the compiler."""
    holder = use.parent
    while holder is not None and holder.type == "expression_list":
        holder = holder.parent
    left = holder.child_by_field_name("left") if holder is not None else None
    return left is not None and text(left).strip() == "_"


_NAMES = frozenset({"identifier", "name"})
_BINDS = frozenset(
    {"variable_declarator", "short_var_declaration", "let_declaration", "assignment_expression"}
)


def _exits_before(block: ts.Node, child: ts.Node) -> bool:
    exit_at = _first_exit(block)
    return exit_at is not None and exit_at < child.start_byte


def _first_exit(block: ts.Node) -> int | None:
    """Where the first statement of a block that always exits starts (read once per block of
    a file, inside `cached()`)."""
    cache = _EXITS_CACHE.get()
    key = (block.start_byte, block.end_byte, block.type)
    if cache is not None and key in cache:
        return cache[key]
    found = next((s.start_byte for s in block.named_children if _exits(s)), None)
    if cache is not None:
        cache[key] = found
    return found


_EXITS_CACHE: ContextVar[dict[tuple[int, int, str], int | None] | None] = ContextVar(
    "exits", default=None
)

_MENTIONS_CACHE: ContextVar[dict[str, dict[str, list[ts.Node]]] | None] = ContextVar(
    "mentions", default=None
)


@contextmanager
def cached() -> Iterator[None]:
    """Remember what each block's statements do while one file is read."""
    token = _EXITS_CACHE.set({})
    names = _MENTIONS_CACHE.set({})
    try:
        yield
    finally:
        _MENTIONS_CACHE.reset(names)
        _EXITS_CACHE.reset(token)


def _exits(statement: ts.Node, depth: int = 0) -> bool:
    """A statement after which nothing of its block runs: `return`, `throw`, `break`, a call
    that ends the process, a block that always exits, an `if` whose constant condition always
    takes a branch that does, a `try` whose body returns with no catch to resume."""
    kind = statement.type
    if kind in _EXITS:
        return True
    if depth > _DEEPEST:
        return False  # nested deeper than any test is written: read as running on
    if kind == "expression_statement" and statement.named_children:
        inner = statement.named_children[0]
        return (
            inner.type in _EXITS
            or _ends_process(inner)
            or (inner.type in _BLOCKS and _always_exits(inner, depth + 1))
            or (inner.type in _IFS and _exits(inner, depth + 1))
        )
    if kind in _BLOCKS or kind == "labeled_statement":
        return _always_exits(statement, depth + 1)
    if kind in _IFS:
        taken = truth(statement.child_by_field_name("condition"))
        branch = _branch(statement, "consequence" if taken else "alternative")
        return taken is not None and branch is not None and _always_exits(branch, depth + 1)
    if kind == "try_statement":
        body = statement.child_by_field_name("body")
        resumes = any(c.type == "catch_clause" for c in statement.named_children)
        return body is not None and not resumes and _always_exits(body, depth + 1)
    return False


def _ends_process(node: ts.Node) -> bool:
    if node.type not in _CALLS:
        return False
    callee = node.child_by_field_name("function") or node.child_by_field_name("name")
    spelled = "".join(text(callee).split())
    if node.type == "method_invocation":
        owner = node.child_by_field_name("object")
        spelled = f"{text(owner)}.{spelled}" if owner is not None else spelled
    return spelled in _NEVER_RETURN


def _always_exits(branch: ts.Node, depth: int = 0) -> bool:
    while branch.type == "else_clause" and branch.named_children:
        branch = branch.named_children[-1]
    if branch.type in _BLOCKS or branch.type == "labeled_statement":
        return any(_exits(s, depth + 1) for s in branch.named_children)
    return _exits(branch, depth + 1)


def _branch(statement: ts.Node, which: str) -> ts.Node | None:
    """An `if`'s branch: `consequence` is PHP's `body`."""
    found = statement.child_by_field_name(which)
    if found is None and which == "consequence":
        found = statement.child_by_field_name("body")
    if found is None and which == "alternative":
        found = next((c for c in statement.named_children if c.type == "else_clause"), None)
    return found


def _never_taken(parent: ts.Node, child: ts.Node) -> str | None:
    """Why the branch `child` of `parent` never runs, or None."""
    if parent.type in _IFS:
        value = truth(parent.child_by_field_name("condition"))
        consequence, alternative = _branch(parent, "consequence"), _branch(parent, "alternative")
        if value is False and consequence is not None and same(child, consequence):
            return DEAD_BRANCH
        taken = value is True and alternative is not None and same(child, alternative)
        return DEAD_BRANCH if taken else None
    if parent.type in _LOOPS:
        body = parent.child_by_field_name("body")
        if body is None or not same(child, body) or parent.type == "do_statement":
            return None
        if _no_rows(parent):
            return NO_ROWS
        with literals.bound(_initial(parent)):  # the first test: `for (a = 0; a < 0; a++)`
            return DEAD_BRANCH if truth(_condition(parent)) is False else None
    if parent.type in ("binary_expression", "boolean_operator"):
        right = parent.child_by_field_name("right")
        if right is None or not same(child, right):
            return None
        op = text(parent.child_by_field_name("operator")).strip()
        left = truth(parent.child_by_field_name("left"))
        short = (op in ("&&", "and") and left is False) or (op in ("||", "or") and left is True)
        return DEAD_BRANCH if short else None
    if parent.type == "ternary_expression":
        value = truth(parent.child_by_field_name("condition"))
        for field, dead_when in (("consequence", False), ("alternative", True)):
            branch = parent.child_by_field_name(field)
            if value is dead_when and branch is not None and same(child, branch):
                return DEAD_BRANCH
    return None


def _initial(loop: ts.Node) -> dict[str, Any]:
    """What a C-style loop binds before its first test (`let a = 0`, `a := 0`, `int a = 0`)."""
    clause = next((c for c in loop.named_children if c.type == "for_clause"), loop)
    start = clause.child_by_field_name("initializer") or clause.child_by_field_name("init")
    return literals.constants(start) if start is not None else {}


def _condition(loop: ts.Node) -> ts.Node | None:
    """A loop's condition: a field in most grammars, Go's `for cond {}` a bare child, in Go's
    `for init; cond; post {}` its clause's."""
    clause = next((c for c in loop.named_children if c.type == "for_clause"), None)
    if clause is not None:
        return clause.child_by_field_name("condition")
    found = loop.child_by_field_name("condition")
    if found is None and loop.type == "for_statement":
        first = loop.named_children[0] if loop.named_children else None
        if first is not None and first.type not in ("for_clause", "range_clause", "block"):
            return first
    return found


def _no_rows(loop: ts.Node) -> bool:
    """A loop over an empty literal table: `for (const c of [])`, `for _, c := range []int{}`,
    `for c in [x; 0]`, `for c in 0..0`, `foreach ([] as $c)`, `for (int c : new int[0])`."""
    clause = next((c for c in loop.named_children if c.type == "range_clause"), loop)
    table = clause.child_by_field_name("right") or clause.child_by_field_name("value")
    if table is None and loop.type == "foreach_statement" and loop.named_children:
        table = loop.named_children[0]
    if table is not None and table.type in ("identifier", "variable_name"):
        table = _bound_once(table)
    if table is not None and table.type == "composite_literal":
        table = table.child_by_field_name("body")
    if table is None:
        return False
    if table.type == "range_expression" and len(table.named_children) == 2:
        low, high = (text(n) for n in table.named_children)
        return low == high and "=" not in text(table)  # `0..0`, never `0..=0`
    if table.type == "array_expression" and "; 0]" in " ".join(text(table).split()):
        return True  # `[x; 0]`
    if table.type == "array_creation_expression" and table.child_by_field_name("dimensions"):
        return _empty_java_array(table)  # `new int[0]`, `new int[0][]`, `new int[]{}`
    return table.type in _EMPTY_TABLES and not [
        c for c in table.named_children if "comment" not in c.type and c.type != "dimensions"
    ]


_DECLARATORS = frozenset(
    {"variable_declarator", "short_var_declaration", "var_spec", "let_declaration"}
    | {"assignment_expression"}
)


def _bound_once(name: ts.Node) -> ts.Node | None:
    """The table a loop walks by name (`rows := []row{}; for _, r := range rows`): the value
    the name is declared with, if the file names it nowhere else (nothing appends to it)."""
    root = name
    while root.parent is not None:
        root = root.parent
    uses = _mentions(root, name.type).get(text(name), [])
    if len(uses) != 2 or not same(uses[1], name):
        return None
    holder = uses[0].parent
    while holder is not None and holder.type == "expression_list":
        holder = holder.parent
    if holder is None or holder.type not in _DECLARATORS:
        return None
    value = holder.child_by_field_name("value") or holder.child_by_field_name("right")
    if value is not None and value.type == "expression_list" and len(value.named_children) == 1:
        value = value.named_children[0]
    return value


def _mentions(root: ts.Node, kind: str) -> dict[str, list[ts.Node]]:
    """Every node of a kind (`identifier`) in a file, by spelling (read once per file inside
    `cached()`)."""
    cache = _MENTIONS_CACHE.get()
    if cache is not None and kind in cache:
        return cache[kind]
    found: dict[str, list[ts.Node]] = {}
    for node in descendants(root, frozenset({kind})):
        found.setdefault(text(node), []).append(node)
    if cache is not None:
        cache[kind] = found
    return found


def _empty_java_array(table: ts.Node) -> bool:
    first = next((c for c in table.named_children if c.type == "dimensions_expr"), None)
    if first is not None:
        return bool(literals.value(first.named_children[0] if first.named_children else None) == 0)
    given = table.child_by_field_name("value")
    return given is not None and not [c for c in given.named_children if "comment" not in c.type]


def _swallowed(statement: ts.Node, child: ts.Node) -> bool:
    """The assertion sits in a `try` body whose catch clause takes an assertion's failure (any
    error in JS, `Throwable`, `AssertionError`, PHPUnit's `ExpectationFailedException`, …) and
    neither rethrows nor asserts: the failure never reaches the runner."""
    body = statement.child_by_field_name("body")
    if body is None or not same(child, body):
        return False
    for clause in (c for c in statement.named_children if c.type == "catch_clause"):
        handler = clause.child_by_field_name("body")
        if handler is not None and _takes_failures(clause) and _silent(handler):
            return True
    return False


def _takes_failures(clause: ts.Node) -> bool:
    """JS's `catch`/`catch (e)` takes every error; Java's and PHP's name their types."""
    java = next((c for c in clause.named_children if c.type == "catch_formal_parameter"), None)
    typed = java or clause.child_by_field_name("type")
    if typed is None or typed.type == "type_annotation":
        return True
    names: set[str] = set()
    stack = [typed]
    while stack:
        node = stack.pop()
        if node.type in ("type_identifier", "name") and node.parent is not None:
            if node.parent.type != "variable_name":
                names.add(text(node))
        stack.extend(c for c in node.named_children if c.type != "identifier")
    return bool(names & _CATCH_ALL)


def _silent(handler: ts.Node) -> bool:
    """A catch body that neither rethrows nor fails nor asserts."""
    spelled = text(handler)
    return not any(word in spelled for word in ("throw", "fail", "assert", "expect", "raise"))
