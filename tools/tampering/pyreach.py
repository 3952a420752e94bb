"""Which assertions of a Python test count: tools/tampering/reach.py's class, read with `ast`.

An assertion counts when it can run, can fail, and its failure reaches the runner. Not after a
`return`, `raise`, `break`, `continue` or a call that ends the process (`sys.exit`, `os._exit`);
not on a branch a constant condition never takes (`if False:`, `if []:`, `if 1 > 2:`, `while
0:`, a module-level `SKIP = True` bound once); not in a loop over an empty table (`[]`, `()`,
`range(0)`, a module-level name bound once to one); not in a function the test defines and never
calls; not one that cannot fail (`assert True`, `assert 3 == 3`, `assert x == x`, `assert (x,
"message")`, `self.assertEqual(y, y)`); not one whose failure is caught (`try`/`except
AssertionError` or `Exception` or bare, with nothing raised or asserted in the handler,
`contextlib.suppress(AssertionError)`, `pytest.raises(AssertionError)`). A loop over a literal
table counts its assertions once per row, and a helper of the module the test calls lends the
test its assertions (moving an assertion into a helper loses none).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from referee.tools.tampering import reach

__all__ = ["Context", "asserts", "context_of", "exits", "rows", "truth"]

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_ASSERT_CALLS = re.compile(r"(self\.assert|self\.fail|pytest\.raises|pytest\.approx|pytest\.fail)")
_NEVER_RETURN = frozenset({"sys.exit", "os._exit", "exit", "quit", "os.abort"})
_CATCH_ALL = frozenset({"AssertionError", "Exception", "BaseException", "failureException"})
_EQUALITY = re.compile(
    r"^self\.assert(Equal|Equals|Is|ListEqual|DictEqual|TupleEqual|SetEqual|"
    r"CountEqual|SequenceEqual|MultiLineEqual|AlmostEqual)$"
)
_NEGATIVE = re.compile(r"(False|IsNone|Not)")
NEVER_CALLED = "it sits in a function the test never calls"
_LOANS = 64

Counted = list[tuple[int, str]]
Inert = list[tuple[int, str, str]]


@dataclass(frozen=True)
class Context:
    """What a module tells about its tests' assertions: tables and constants bound once at its
    top level, and its helper functions (by name; methods by `self.name`)."""

    tables: dict[str, int] = field(default_factory=dict)
    consts: dict[str, Any] = field(default_factory=dict)
    helpers: dict[str, _FunctionNode] = field(default_factory=dict)


def context_of(tree: ast.Module) -> Context:
    tables: dict[str, int] = {}
    consts: dict[str, Any] = {}
    bound: Counter[str] = Counter()
    for node in tree.body:
        targets: list[ast.expr] = list(node.targets) if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        for target in targets:
            if not isinstance(target, ast.Name):
                continue
            bound[target.id] += 1
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            counted = rows(value, Context()) if value is not None else None
            if counted is not None:
                tables[target.id] = counted
            if isinstance(value, ast.Constant):
                consts[target.id] = value.value
    helpers: dict[str, _FunctionNode] = {}
    for found in ast.walk(tree):
        if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef):
            if not found.name.startswith("test"):
                helpers.setdefault(found.name, found)
    once = {name for name, count in bound.items() if count == 1}
    return Context(
        {k: v for k, v in tables.items() if k in once},
        {k: v for k, v in consts.items() if k in once},
        helpers,
    )


def asserts(node: _FunctionNode, context: Context) -> tuple[Counted, Inert, Counted]:
    """The test's assertions that count (each as often as it runs), those still written that
    check nothing (with why), and those its helpers lend it."""
    counted: Counted = []
    inert: Inert = []
    lent: Counted = []
    called = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
    }
    # Names the test binds once to a literal read as it (`x = 3; assert x == 3` reads nothing).
    context = replace(context, consts={**context.consts, **_locals(node)})
    walker = _Walker(context, called)
    for sub, times, why in walker.walk(node.body, 1, None):
        if _is_assertion(sub):
            entry = (getattr(sub, "lineno", 0), ast.unparse(sub).splitlines()[0])
            why = why or (reach.INVERTED if _expects_a_failure(sub) else None)
            why = why or (reach.NEVER_FAILS if _never_fails(sub, context) else None)
            if why is not None:
                inert.append((*entry, why))
            else:
                (lent if id(sub) in walker.borrowed else counted).extend([entry] * times)
    return counted, inert, lent


def _expects_a_failure(sub: ast.AST) -> bool:
    """`pytest.raises(AssertionError)`, `self.assertRaises(AssertionError, …)`: it passes only
    when an assertion fails."""
    if not isinstance(sub, ast.Call) or not ast.unparse(sub.func).endswith(("raises", "Raises")):
        return False
    named = {getattr(n, "id", getattr(n, "attr", "")) for a in sub.args[:1] for n in ast.walk(a)}
    return bool(named & {"AssertionError", "failureException"})


def _locals(node: _FunctionNode) -> dict[str, Any]:
    bound: Counter[str] = Counter()
    values: dict[str, Any] = {}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store | ast.Del):
            bound[sub.id] += 1
        if isinstance(sub, ast.Assign) and len(sub.targets) == 1:
            target = sub.targets[0]
            if isinstance(target, ast.Name) and isinstance(sub.value, ast.Constant):
                values[target.id] = sub.value.value
    return {name: v for name, v in values.items() if bound[name] == 1}


def _is_assertion(sub: ast.AST) -> bool:
    return (
        isinstance(sub, ast.Assert)
        or (isinstance(sub, ast.Call) and bool(_ASSERT_CALLS.match(ast.unparse(sub.func))))
        or (
            # `with pytest.raises(E):` is counted by its call above; a With of anything else
            # that raises-checks (`self.assertRaises(E)`) too.
            isinstance(sub, ast.With)
            and any("raises" in ast.unparse(i.context_expr) for i in sub.items)
            and not any(
                isinstance(i.context_expr, ast.Call)
                and _ASSERT_CALLS.match(ast.unparse(i.context_expr.func))
                for i in sub.items
            )
        )
    )


_Walked = Iterator[tuple[ast.AST, int, str | None]]


class _Walker:
    """Every node of a test's body with how often it runs and why it never counts (None: it
    may), helpers the test calls included once (not helpers of helpers)."""

    def __init__(self, context: Context, called: set[str]) -> None:
        self.context, self.called = context, called
        self.active: set[str] = set()  # helpers being walked (no recursion)
        self.loans = 0
        self.borrowed: set[int] = set()  # nodes walked in a helper

    def walk(self, body: list[ast.stmt], times: int, why: str | None) -> _Walked:
        for statement in body:
            yield from self.statement(statement, times, why)
            if why is None and exits(statement, self.context):
                why = reach.UNREACHABLE

    def statement(self, statement: ast.stmt, times: int, why: str | None) -> _Walked:
        yield statement, times, why
        if isinstance(statement, ast.If | ast.While):
            value = truth(statement.test, self.context)
            yield from self.nodes(statement.test, times, why)
            yield from self.walk(statement.body, times, why or _dead(value is False))
            yield from self.walk(statement.orelse, times, why or _dead(value is True))
        elif isinstance(statement, ast.For | ast.AsyncFor):
            counted = rows(statement.iter, self.context)
            yield from self.nodes(statement.iter, times, why)
            empty = why or (reach.NO_ROWS if counted == 0 else None)
            yield from self.walk(statement.body, times * (counted or 1), empty)
            yield from self.walk(statement.orelse, times, why)
        elif isinstance(statement, ast.Try | ast.TryStar):
            caught = why or (reach.CAUGHT if _swallows(statement.handlers) else None)
            yield from self.walk(statement.body, times, caught)
            for handler in statement.handlers:
                yield from self.walk(handler.body, times, why)
            yield from self.walk(statement.orelse, times, why)
            yield from self.walk(statement.finalbody, times, why)
        elif isinstance(statement, ast.With | ast.AsyncWith):
            for item in statement.items:
                yield from self.nodes(item.context_expr, times, why)
            inside = why or (reach.CAUGHT if _suppresses(statement.items) else None)
            yield from self.walk(statement.body, times, inside)
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            never = why or (None if statement.name in self.called else NEVER_CALLED)
            yield from self.walk(statement.body, times, never)
        else:
            yield from self.other(statement, times, why)

    def other(self, statement: ast.stmt, times: int, why: str | None) -> _Walked:
        for child in ast.iter_child_nodes(statement):
            if isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
                continue
            yield from self.nodes(child, times, why)
        blocks = [getattr(statement, f, None) for f in ("body", "orelse")]
        blocks += [c.body for c in getattr(statement, "cases", None) or []]
        for block in blocks:
            if isinstance(block, list):
                yield from self.walk([s for s in block if isinstance(s, ast.stmt)], times, why)

    def nodes(self, expression: ast.AST, times: int, why: str | None) -> _Walked:
        for sub in ast.walk(expression):
            yield sub, times, why
            helper = self.helper(sub)
            if helper is not None:
                self.active.add(helper.name)
                self.loans += 1
                for item in self.walk(helper.body, times, why):
                    self.borrowed.add(id(item[0]))
                    yield item
                self.active.discard(helper.name)

    def helper(self, sub: ast.AST) -> _FunctionNode | None:
        """A helper of the module the test calls (`_check(…)`, `self._check(…)`): lent at each
        call, never inside itself, and at most _LOANS times a test."""
        if not isinstance(sub, ast.Call):
            return None
        func = sub.func
        name = func.id if isinstance(func, ast.Name) else ""
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            name = func.attr if func.value.id in ("self", "cls") else ""
        found = self.context.helpers.get(name)
        usable = found is not None and name not in self.active and self.loans < _LOANS
        return found if usable else None


def _dead(dead: bool) -> str | None:
    return reach.DEAD_BRANCH if dead else None


def exits(statement: ast.stmt, context: Context) -> bool:
    """After it nothing of its block runs: `return`, `raise`, `break`, `continue`, a call that
    ends the process, or an `if` whose constant condition always takes a branch that exits."""
    if isinstance(statement, ast.Return | ast.Raise | ast.Break | ast.Continue):
        return True
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        return ast.unparse(statement.value.func) in _NEVER_RETURN
    if isinstance(statement, ast.If):
        value = truth(statement.test, context)
        branch = statement.body if value else statement.orelse
        return value is not None and any(exits(s, context) for s in branch)
    return False


def truth(test: ast.expr, context: Context) -> bool | None:
    """Whether a condition built of literals (and names the module binds once to one) holds."""
    found = _value(test, context, 0)
    return None if found is _UNKNOWN else bool(found)


_UNKNOWN: Any = object()
# Names whose value at run time is fixed: no type checker runs the tests, and asserts run only
# where `__debug__` holds.
_FIXED: dict[str, Any] = {"TYPE_CHECKING": False, "__debug__": True}


def _value(node: ast.expr, context: Context, depth: int) -> Any:
    if depth > 64:
        return _UNKNOWN

    def again(inner: ast.expr) -> Any:
        return _value(inner, context, depth + 1)

    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return context.consts.get(node.id, _FIXED.get(node.id, _UNKNOWN))
    if isinstance(node, ast.Attribute) and ast.unparse(node) == "typing.TYPE_CHECKING":
        return False
    if isinstance(node, ast.List | ast.Tuple | ast.Set) and not any(
        isinstance(e, ast.Starred) for e in node.elts
    ):
        return [True] * len(node.elts)  # only its truth is asked of a container
    if isinstance(node, ast.Dict):
        return [True] * len(node.keys)
    if isinstance(node, ast.NamedExpr):
        return again(node.value)
    if isinstance(node, ast.IfExp):
        chosen = again(node.test)
        return _UNKNOWN if chosen is _UNKNOWN else again(node.body if chosen else node.orelse)
    if isinstance(node, ast.UnaryOp):
        inner = again(node.operand)
        if inner is _UNKNOWN:
            return _UNKNOWN
        if isinstance(node.op, ast.Not):
            return not inner
        return -inner if isinstance(node.op, ast.USub) and _number(inner) else _UNKNOWN
    if isinstance(node, ast.BoolOp):
        return _bool_op(node, [again(v) for v in node.values])
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return _compare(node.ops[0], again(node.left), again(node.comparators[0]))
    return _UNKNOWN


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _bool_op(node: ast.BoolOp, values: list[Any]) -> Any:
    if isinstance(node.op, ast.And):
        if any(v is not _UNKNOWN and not v for v in values):
            return False
        return True if _UNKNOWN not in values else _UNKNOWN
    if any(v is not _UNKNOWN and v for v in values):
        return True
    return False if _UNKNOWN not in values else _UNKNOWN


_COMPARE = {ast.Eq: "__eq__", ast.NotEq: "__ne__", ast.Lt: "__lt__", ast.Gt: "__gt__"}
_COMPARE |= {ast.LtE: "__le__", ast.GtE: "__ge__"}


def _compare(op: ast.cmpop, left: Any, right: Any) -> Any:
    method = _COMPARE.get(type(op))
    scalar = (int, float, str, bool, type(None))
    if method is None or not isinstance(left, scalar) or not isinstance(right, scalar):
        return _UNKNOWN
    result = getattr(left, method)(right)
    return _UNKNOWN if result is NotImplemented else bool(result)


def rows(iterable: ast.expr, context: Context) -> int | None:
    """How many rows a loop walks: a literal list, tuple or set (spreads of known ones
    included), `range` of literals, or a module-level name bound once to one; None when that
    is not written down."""
    if isinstance(iterable, ast.List | ast.Tuple | ast.Set):
        total = 0
        for element in iterable.elts:
            inner = rows(element.value, context) if isinstance(element, ast.Starred) else 1
            if inner is None:
                return None
            total += inner
        return total
    if isinstance(iterable, ast.Name):
        return context.tables.get(iterable.id)
    if isinstance(iterable, ast.Subscript) and isinstance(iterable.slice, ast.Slice):
        whole, cut = rows(iterable.value, context), iterable.slice  # `ROWS[:0]`
        edges = [
            _value(b, context, 0) if b is not None else None
            for b in (cut.lower, cut.upper, cut.step)
        ]
        if whole is not None and all(b is None or isinstance(b, int) for b in edges):
            try:
                return len(range(whole)[slice(*edges)])
            except ValueError:  # a step of 0
                return None
    empty = ("list", "tuple", "set", "dict", "frozenset")
    if isinstance(iterable, ast.Call) and ast.unparse(iterable.func) in empty:
        return 0 if not iterable.args and not iterable.keywords else None
    if isinstance(iterable, ast.Call) and ast.unparse(iterable.func) == "range":
        bounds = [_value(a, context, 0) for a in iterable.args]
        if 1 <= len(bounds) <= 3 and all(isinstance(b, int) for b in bounds):
            try:
                return len(range(*bounds))
            except ValueError:
                return None
    return None


def _never_fails(sub: ast.AST, context: Context) -> bool:
    """An assertion that holds whatever the code does: `assert (x, "message")` (a tuple is
    true), an equality of an expression with itself, or one that reads no name and holds on
    its literals (`assert True`, `assert 3 == 3`, `self.assertEqual(0, 0)`,
    `self.assertIsNone(None)`). `self.fail()` and `pytest.fail()` fail wherever reached."""
    if isinstance(sub, ast.Assert):
        test = sub.test
        if isinstance(test, ast.Tuple) and test.elts:
            return True
        if isinstance(test, ast.Name) and test.id in context.helpers:
            return True  # `assert add`: a function of the module is always true
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            same = ast.dump(test.left) == ast.dump(test.comparators[0])
            if same and isinstance(test.ops[0], ast.Eq | ast.Is | ast.LtE | ast.GtE):
                return True
        return truth(test, context) is True  # `assert x or True`, `assert "message"`
    if not isinstance(sub, ast.Call) or not ast.unparse(sub.func).startswith("self.assert"):
        return False
    name = ast.unparse(sub.func)
    args = [*sub.args, *(k.value for k in sub.keywords if k.arg in ("first", "second", "expr"))]
    if name == "self.assertTrue" and args and isinstance(args[0], ast.Tuple) and args[0].elts:
        return True  # a non-empty tuple is true
    if _EQUALITY.match(name) and len(args) >= 2 and ast.dump(args[0]) == ast.dump(args[1]):
        return True
    if any(_reads(a, context) for a in args):
        return False
    values = [_value(a, context, 0) for a in args]
    if not values or _UNKNOWN in values:
        return False
    if len(values) >= 2:
        return _EQUALITY.match(name) is not None and all(v == values[0] for v in values)
    return (not values[0]) if _NEGATIVE.search(name) else bool(values[0])


def _reads(node: ast.AST, context: Context) -> bool:
    return any(
        isinstance(n, ast.Name) and n.id not in context.consts for n in ast.walk(node)
    ) or any(isinstance(n, ast.Call | ast.Attribute | ast.Subscript) for n in ast.walk(node))


def _swallows(handlers: list[ast.ExceptHandler]) -> bool:
    """A handler that takes an assertion's failure and neither raises nor asserts nor fails."""
    for handler in handlers:
        names = (
            {
                n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "")
                for n in ast.walk(handler.type)
            }
            if handler.type is not None
            else set()
        )
        takes = handler.type is None or bool(names & _CATCH_ALL)
        loud = any(
            isinstance(n, ast.Raise | ast.Assert)
            or (isinstance(n, ast.Call) and re.search(r"fail|assert", ast.unparse(n.func)))
            for s in handler.body
            for n in ast.walk(s)
        )
        if takes and not loud:
            return True
    return False


def _suppresses(items: list[ast.withitem]) -> bool:
    """`contextlib.suppress(AssertionError)`, `pytest.raises(AssertionError)`,
    `self.assertRaises(AssertionError)`: the assertion's failure is what the block takes."""
    for item in items:
        call = item.context_expr
        if not isinstance(call, ast.Call):
            continue
        name = ast.unparse(call.func)
        if not name.endswith(("suppress", "raises", "assertRaises")):
            continue
        taken = {
            n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "")
            for a in call.args
            for n in ast.walk(a)
        }
        if taken & _CATCH_ALL:
            return True
    return False
