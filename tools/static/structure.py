"""Function length, nesting depth and cognitive complexity from one tree-sitter walk.

The walk is iterative (deep trees would overflow recursion). Each function, nested ones and
lambdas included, is measured on its own; code outside any function counts for nesting only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import tree_sitter as ts

from referee.tools.static.langs import SPECS, LangSpec, parser
from referee.tools.static.model import Item, StaticConfig

_NAME_TYPES = {
    "identifier",
    "field_identifier",
    "qualified_identifier",
    "destructor_name",
    "operator_name",
    "property_identifier",
    "type_identifier",
}
_BINDINGS = {"variable_declarator", "pair", "assignment_expression"}
_NAME_MAX = 80


@dataclass(slots=True)
class FunctionMetrics:
    """Measures of one function (or of the top-level code when `node` is the root)."""

    node: ts.Node
    lines: int
    depth: int = 0
    depth_line: int = 0
    cognitive: int = 0
    top_level: bool = False


@dataclass
class _Walk:
    spec: LangSpec
    functions: list[FunctionMetrics] = field(default_factory=list)
    else_ifs: set[int] = field(default_factory=set)


def measure(root: ts.Node, spec: LangSpec) -> list[FunctionMetrics]:
    """Walk a syntax tree and measure every function in it."""
    walk = _Walk(spec)
    top = FunctionMetrics(root, 0, top_level=True)
    walk.functions.append(top)
    descend, roles = spec.descend, spec.roles
    stack: list[tuple[ts.Node, FunctionMetrics, int, int, str | None]] = [(root, top, 0, 0, None)]
    while stack:
        node, fn, depth, nest, op = stack.pop()
        kind = node.type
        # Most nodes play no role: only those are looked at closely (this loop is the hot path).
        if kind in roles:
            fn, depth, nest, op = _visit(walk, node, kind, fn, depth, nest, op)
        else:
            op = None
        children = (
            node.children if descend is None else [c for c in node.children if c.type in descend]
        )
        stack.extend([(child, fn, depth, nest, op) for child in reversed(children)])
    return walk.functions


def _visit(
    walk: _Walk,
    node: ts.Node,
    kind: str,
    fn: FunctionMetrics,
    depth: int,
    nest: int,
    parent_op: str | None,
) -> tuple[FunctionMetrics, int, int, str | None]:
    """Account for one node; returns the function, levels and operator its children see."""
    if kind in walk.spec.functions:
        return _new_function(walk, node), 0, 0, None
    if kind in walk.spec.ifs and node.id in walk.else_ifs:
        fn.cognitive += 1  # `else if` continues a chain: +1 and no extra level
        _mark_alternative(walk, node, fn)
        return fn, depth, nest, None
    depth, nest = _enter(walk, node, kind, fn, depth, nest)
    op = _logical_run(node, walk.spec, fn, parent_op) if kind == walk.spec.binary else None
    return fn, depth, nest, op


def _new_function(walk: _Walk, node: ts.Node) -> FunctionMetrics:
    first, (last, column) = node.start_point[0], node.end_point
    if column == 0 and last > first:
        last -= 1  # the node ends at the start of the next line
    fn = FunctionMetrics(node, last - first + 1 - _docstring_lines(node))
    walk.functions.append(fn)
    return fn


def _docstring_lines(node: ts.Node) -> int:
    """The lines of a Python function's docstring: documentation, not code (an example added to
    it makes no function longer)."""
    body = node.child_by_field_name("body")
    first = body.named_children[0] if body is not None and body.named_children else None
    if first is None or first.type != "expression_statement" or not first.named_children:
        return 0
    if first.named_children[0].type != "string":
        return 0
    return first.end_point[0] - first.start_point[0] + 1


def _enter(
    walk: _Walk, node: ts.Node, kind: str, fn: FunctionMetrics, depth: int, nest: int
) -> tuple[int, int]:
    """Account for a node that may open a nesting level; returns the level its children see."""
    if kind in walk.spec.depth:
        depth += 1
        if depth > fn.depth:
            fn.depth, fn.depth_line = depth, node.start_point.row + 1
    if kind in walk.spec.cognitive:
        fn.cognitive += 1 + nest
        nest += 1
    if kind in walk.spec.ifs:
        _mark_alternative(walk, node, fn)
    return depth, nest


def _mark_alternative(walk: _Walk, node: ts.Node, fn: FunctionMetrics) -> None:
    """Record an `else if` for later, or count a plain `else`."""
    alternative = node.child_by_field_name("alternative")
    if alternative is None:
        return
    target = alternative
    if alternative.type == "else_clause" and alternative.named_child_count == 1:
        target = alternative.named_children[0]
    if target.type in walk.spec.ifs:
        walk.else_ifs.add(target.id)
    else:
        fn.cognitive += 1


def _logical_run(
    node: ts.Node, spec: LangSpec, fn: FunctionMetrics, parent_op: str | None
) -> str | None:
    """+1 for each run of one boolean operator (`a && b && c` is one run, `a && b || c` two)."""
    operator = node.child_by_field_name("operator")
    op = operator.type if operator is not None else None
    if op in spec.logical and op != parent_op:
        fn.cognitive += 1
    return op


def function_name(node: ts.Node) -> str:
    """A readable name for a function node (`<anonymous>` for lambdas without a binding)."""
    named = node.child_by_field_name("name")
    current: ts.Node | None = node
    while named is None and current is not None:
        current = current.child_by_field_name("declarator")
        if current is not None and current.type in _NAME_TYPES:
            named = current  # C/C++: the name sits inside nested declarators
    if named is None:
        named = _binding(node)
    if named is None or named.text is None:
        return "<anonymous>"
    return named.text.decode("utf-8", "replace")[:_NAME_MAX]


def _binding(node: ts.Node) -> ts.Node | None:
    """The name a lambda is bound to: `const f = () => ...`, `{f: function () ...}`, `f = ...`."""
    parent = node.parent
    if parent is None or parent.type not in _BINDINGS:
        return None
    return (
        parent.child_by_field_name("name")
        or parent.child_by_field_name("key")
        or parent.child_by_field_name("left")
    )


# Test frameworks' block functions (jest, vitest, mocha, jasmine, node:test, ava, tap, bun):
# a callback passed to one of these is a test or a group of tests, judged as tests are (by their
# assertions and by tampering checks), never as a function to split.
_TEST_CALLS = frozenset(
    {
        "describe",
        "context",
        "suite",
        "it",
        "test",
        "specify",
        "xdescribe",
        "fdescribe",
        "xit",
        "fit",
        "xtest",
        "beforeEach",
        "afterEach",
        "beforeAll",
        "afterAll",
        "before",
        "after",
        "setup",
        "teardown",
        "suiteSetup",
        "suiteTeardown",
        "bench",
    }
)
_PARAMETRIZE = b"parametrize"


def is_test_block(node: ts.Node) -> bool:
    """A test-framework callback (`describe('x', () => …)`, `it.each(t)('y', fn)`), or a Python
    test function (`def test_…`, or one decorated with a `parametrize` table)."""
    if node.type == "function_definition":
        return _python_test(node)
    parent = node.parent
    if parent is None or parent.type != "arguments" or parent.parent is None:
        return False
    call = parent.parent
    return call.type == "call_expression" and _callee(call) in _TEST_CALLS


def _callee(call: ts.Node) -> str | None:
    """The framework name a call starts from: `it`, `describe.each([...])`, `test.skip`."""
    current: ts.Node | None = call.child_by_field_name("function")
    while current is not None:
        if current.type == "identifier":
            return current.text.decode("utf-8", "replace") if current.text else None
        if current.type == "call_expression":
            current = current.child_by_field_name("function")
        elif current.type == "member_expression":
            current = current.child_by_field_name("object")
        else:
            return None
    return None


def _python_test(node: ts.Node) -> bool:
    name = node.child_by_field_name("name")
    if name is not None and name.text is not None and name.text.startswith(b"test"):
        return True
    decorated = node.parent
    if decorated is None or decorated.type != "decorated_definition":
        return False
    return any(
        c.type == "decorator" and c.text is not None and _PARAMETRIZE in c.text
        for c in decorated.children
    )


def structure_items(
    data: bytes, language: str, config: StaticConfig, cognitive: bool
) -> tuple[list[Item], bool]:
    """Findings for function length, nesting and (unless `cognitive` is False) cognitive complexity.

    Returns:
        The items, and whether the parse hit syntax errors (results may then be partial).
    """
    tree = parser(language).parse(data)
    items: list[Item] = []
    for fn in measure(tree.root_node, SPECS[language]):
        items.extend(_function_items(fn, config, cognitive))
    return items, tree.root_node.has_error


def _function_items(fn: FunctionMetrics, config: StaticConfig, cognitive: bool) -> list[Item]:
    line = fn.node.start_point.row + 1
    found: list[tuple[str, int, str, int]] = []
    long = not fn.top_level and fn.lines > config.max_function_lines
    if long and not is_test_block(fn.node):
        found.append(
            (
                "function_length",
                line,
                f"has {fn.lines} lines (limit {config.max_function_lines})",
                fn.lines,
            )
        )
    if fn.depth > config.max_nesting:
        found.append(
            (
                "nesting_depth",
                fn.depth_line,
                f"nests {fn.depth} levels deep (limit {config.max_nesting})",
                fn.depth,
            )
        )
    if cognitive and not fn.top_level and fn.cognitive > config.max_cognitive:
        found.append(
            (
                "cognitive_complexity",
                line,
                f"has cognitive complexity {fn.cognitive} (limit {config.max_cognitive})",
                fn.cognitive,
            )
        )
    if not found:
        return []
    label = "top-level code" if fn.top_level else f"function {function_name(fn.node)}"
    return [Item(rule, at, f"{label} {text}", value) for rule, at, text, value in found]
