"""Python tests (pytest, unittest) read with the standard `ast` module."""

from __future__ import annotations

import ast
import copy
import re
from collections import Counter
from collections.abc import Iterator

from referee.tools import pysource
from referee.tools.tampering import reach
from referee.tools.tampering.model import TestInfo

__all__ = ["python_tests"]

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
# The last name of a decorator's callee (`pytest.mark.skipif(…)` → skipif), never its arguments:
# `parametrize("skip", …)` skips nothing.
_SKIP_MARKS = {"skip", "skipif", "xfail", "skipIf", "skipUnless", "expectedFailure"}
# Calls by their last name, however imported (`from pytest import skip`).
_SKIP_CALLS = {"skip", "xfail", "skipTest", "importorskip"}
_SKIP_OWNERS = {"pytest", "self", "unittest", "cls", ""}
_ASSERT_CALLS = re.compile(r"(self\.assert|self\.fail|pytest\.raises|pytest\.approx|pytest\.fail)")


def python_tests(source: str) -> dict[str, TestInfo] | None:
    """Every `test*` function and method, by `Class.name`; None when the file does not parse."""
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError):
        return None
    tree = _skips_by_other_names(tree)
    tests: dict[str, TestInfo] = {}
    tables = _tables(tree)
    for node, owner, owner_skip in _functions(tree):
        if node.name.startswith("test"):
            skip_line = owner_skip or _skip_line(node)
            asserts, inert = _asserts(node, tables)
            tests[f"{owner}{node.name}"] = TestInfo(
                line=node.lineno,
                skipped=skip_line is not None,
                skip_line=skip_line,
                asserts=asserts,
                inert=inert,
                trivial=_trivial(node),
            )
    return tests


def _functions(tree: ast.Module) -> list[tuple[_FunctionNode, str, int | None]]:
    found: list[tuple[_FunctionNode, str, int | None]] = []
    module_skip = _pytestmark(tree.body)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append((node, "", module_skip))
        elif isinstance(node, ast.ClassDef):
            class_skip = (
                module_skip
                or _decorator_skip(node.decorator_list)
                or _pytestmark(node.body)
                or _not_collected(node)
            )
            found.extend(
                (m, f"{node.name}.", class_skip)
                for m in node.body
                if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
            )
    return found


def _pytestmark(body: list[ast.stmt]) -> int | None:
    """What skips every test of a module or class body: `pytestmark = pytest.mark.skip` (or a
    list holding one), `__test__ = False`, `__unittest_skip__ = True`, a `setUp`/`setUpClass`
    that skips."""
    for node in body:
        if isinstance(node, ast.Assign):
            names = {t.id for t in node.targets if isinstance(t, ast.Name)}
            value = node.value
            if "pytestmark" in names:
                marks = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
                if any(_mark_name(m) in _SKIP_MARKS for m in marks):
                    return node.lineno
            if isinstance(value, ast.Constant) and (
                ("__test__" in names and value.value is False)
                or ("__unittest_skip__" in names and value.value is True)
            ):
                return node.lineno
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in _SETUPS:
            skip = _skip_line(node)
            if skip is not None:
                return skip
    return None


_SETUPS = {"setUp", "setUpClass", "setup_class", "setup_method"}


def _not_collected(node: ast.ClassDef) -> int | None:
    """A plain test class with an `__init__`: pytest collects none of its tests (a
    `unittest.TestCase` may have one)."""
    if any("TestCase" in ast.unparse(base) for base in node.bases):
        return None
    init = next(
        (m for m in node.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None
    )
    return init.lineno if init is not None else None


_SKIP_NAMES = _SKIP_MARKS | _SKIP_CALLS


def _skips_by_other_names(tree: ast.Module) -> ast.Module:
    """The file read with each skip it spells under another name written as the skip: a
    module-level alias (`off = pytest.mark.skipif`, `from pytest import skip as later`) and a
    helper of the file whose body skips unconditionally (`def later(): pytest.skip()`, a method
    called through `self`), helpers of helpers included. A helper that skips on a condition is
    a fixture's concern, not a skip."""
    aliases: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and _names_a_skip(node.value):
                aliases[target.id] = node.value
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.asname and alias.name in _SKIP_NAMES:
                    aliases[alias.asname] = ast.Name(id=alias.name, ctx=ast.Load())
    tree = _Renamed(aliases, set()).visit(tree)
    for _ in range(3):
        helpers = {
            f.name
            for f in pysource.nodes(tree)
            if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and _skips_outright(f)
        }
        if not helpers:
            break
        tree = _Renamed({}, helpers).visit(tree)
    return tree


def _names_a_skip(value: ast.expr) -> bool:
    """`pytest.mark.skipif`, `pytest.skip`, `pytest.mark.skip(reason=…)`: a mark or a skip
    function; not what a skip function returns (`pytest.importorskip("x")` is a module)."""
    if isinstance(value, ast.Call):
        return "mark" in ast.unparse(value.func) and _mark_name(value) in _SKIP_MARKS
    return isinstance(value, ast.Name | ast.Attribute) and _mark_name(value) in _SKIP_NAMES


def _skips_outright(node: _FunctionNode) -> bool:
    """A function (not a test) whose own statements call a skip, not under any condition."""
    if node.name.startswith("test"):
        return False
    return any(
        isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and _is_skip_call(s.value.func)
        for s in node.body
    )


class _Renamed(ast.NodeTransformer):
    """Writes aliases of skips as what they alias, and calls of skipping helpers as
    `pytest.skip()` (at the call's line)."""

    def __init__(self, aliases: dict[str, ast.expr], helpers: set[str]) -> None:
        self.aliases, self.helpers = aliases, helpers

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if isinstance(node.ctx, ast.Load) and node.id in self.aliases:
            return ast.copy_location(copy.deepcopy(self.aliases[node.id]), node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        func = node.func
        called = func.id if isinstance(func, ast.Name) else ""
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            called = func.attr if func.value.id in ("self", "cls") else ""
        if called in self.helpers:
            skip = ast.Attribute(value=ast.Name(id="pytest", ctx=ast.Load()), attr="skip")
            node.func = ast.copy_location(skip, func)
        return node


def _mark_name(node: ast.expr) -> str:
    """The last name of a mark or decorator: `pytest.mark.skipif(True)` → `skipif`."""
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute):
        return target.attr
    return target.id if isinstance(target, ast.Name) else ""


def _decorator_skip(decorators: list[ast.expr]) -> int | None:
    return next((d.lineno for d in decorators if _mark_name(d) in _SKIP_MARKS or _no_rows(d)), None)


def _no_rows(decorator: ast.expr) -> bool:
    """`@pytest.mark.parametrize("a", [])`: a test declared once per row of an empty table,
    which pytest skips."""
    if not isinstance(decorator, ast.Call) or _mark_name(decorator) != "parametrize":
        return False
    rows = [k.value for k in decorator.keywords if k.arg == "argvalues"] + decorator.args[1:2]
    return bool(rows) and _rows(rows[0], {}) == 0


def _skip_line(node: _FunctionNode) -> int | None:
    marked = _decorator_skip(node.decorator_list)
    if marked is not None:
        return marked
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and _is_skip_call(sub.func):
            return sub.lineno
        if isinstance(sub, ast.Raise) and sub.exc is not None and _raises_skip(sub.exc):
            return sub.lineno
    return None


def _is_skip_call(func: ast.expr) -> bool:
    if isinstance(func, ast.Attribute):
        owner = func.value.id if isinstance(func.value, ast.Name) else ""
        return func.attr in _SKIP_CALLS and owner in _SKIP_OWNERS
    return isinstance(func, ast.Name) and func.id in _SKIP_CALLS


def _raises_skip(exc: ast.expr) -> bool:
    """`raise unittest.SkipTest(…)`, `raise pytest.skip.Exception`, `raise SkipTest`."""
    return "SkipTest" in ast.unparse(exc) or "skip.Exception" in ast.unparse(exc)


_Counted = list[tuple[int, str]]
_Inert = list[tuple[int, str, str]]


def _asserts(node: _FunctionNode, tables: dict[str, int]) -> tuple[_Counted, _Inert]:
    """The test's assertions that count, each as often as it runs when its loop walks a literal
    table, and those still written that check nothing (tools/tampering/reach.py, for Python)."""
    counted: _Counted = []
    inert: _Inert = []
    for sub, times, why in _walk(node.body, 1, None, tables):
        if _is_assertion(sub):
            entry = (getattr(sub, "lineno", 0), ast.unparse(sub).splitlines()[0])
            why = why or (reach.NEVER_FAILS if _literal_only(sub) else None)
            if why is None:
                counted.extend([entry] * times)
            else:
                inert.append((*entry, why))
    return counted, inert


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


def _walk(body: list[ast.stmt], times: int, why: str | None, tables: dict[str, int]) -> _Walked:
    """Every node of a statement list, with how often it runs and why it never does (None: it
    may). What follows a `return`, `raise`, `break` or `continue` is unreachable; the branch a
    constant condition never takes is dead; a loop over a literal table runs once per row."""
    for statement in body:
        yield from _statement(statement, times, why, tables)
        if why is None and _exits(statement):
            why = reach.UNREACHABLE


def _statement(statement: ast.stmt, times: int, why: str | None, tables: dict[str, int]) -> _Walked:
    yield statement, times, why
    if isinstance(statement, ast.If | ast.While):
        value = _truth(statement.test)
        yield from _nodes(statement.test, times, why)
        taken = why or (reach.DEAD_BRANCH if value is False else None)
        yield from _walk(statement.body, times, taken, tables)
        other = why or (reach.DEAD_BRANCH if value is True else None)
        yield from _walk(statement.orelse, times, other, tables)
    elif isinstance(statement, ast.For | ast.AsyncFor):
        rows = _rows(statement.iter, tables)
        yield from _nodes(statement.iter, times, why)
        empty = why or (reach.NO_ROWS if rows == 0 else None)
        yield from _walk(statement.body, times * (rows or 1), empty, tables)
        yield from _walk(statement.orelse, times, why, tables)
    else:
        blocks = [getattr(statement, f, None) for f in ("body", "orelse", "finalbody", "handlers")]
        cases = getattr(statement, "cases", None) or []
        for child in ast.iter_child_nodes(statement):
            if isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
                continue
            yield from _nodes(child, times, why)
        for block in [*blocks, *(c.body for c in cases)]:
            if isinstance(block, list):
                yield from _walk([s for s in block if isinstance(s, ast.stmt)], times, why, tables)
                for handler in (h for h in block if isinstance(h, ast.ExceptHandler)):
                    yield from _walk(handler.body, times, why, tables)


def _nodes(expression: ast.AST, times: int, why: str | None) -> _Walked:
    for sub in ast.walk(expression):
        yield sub, times, why


def _exits(statement: ast.stmt) -> bool:
    """After it nothing of its block runs: `return`, `raise`, `break`, `continue`, or an `if`
    whose constant condition always takes a branch that exits."""
    if isinstance(statement, ast.Return | ast.Raise | ast.Break | ast.Continue):
        return True
    if isinstance(statement, ast.If):
        value = _truth(statement.test)
        branch = statement.body if value else statement.orelse
        return value is not None and any(_exits(s) for s in branch)
    return False


def _truth(test: ast.expr) -> bool | None:
    """The value of a condition built of literals (`False`, `0`, `not True`, `x and False`)."""
    if isinstance(test, ast.Constant):
        return bool(test.value)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _truth(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        values = [_truth(v) for v in test.values]
        if isinstance(test.op, ast.And):
            return False if False in values else True if all(v is True for v in values) else None
        return True if True in values else False if all(v is False for v in values) else None
    return None


def _rows(iterable: ast.expr, tables: dict[str, int]) -> int | None:
    """How many rows a loop walks: a literal list, tuple or set, or a module-level name bound to
    one; None when that is not written down."""
    if isinstance(iterable, ast.List | ast.Tuple | ast.Set):
        if any(isinstance(e, ast.Starred) for e in iterable.elts):
            return None
        return len(iterable.elts)
    return tables.get(iterable.id) if isinstance(iterable, ast.Name) else None


def _tables(tree: ast.Module) -> dict[str, int]:
    """Module-level names bound once to a literal list or tuple: the tables tests loop over."""
    tables: dict[str, int] = {}
    bound: Counter[str] = Counter()
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name):
                bound[target.id] += 1
                rows = _rows(node.value, {})
                if rows is not None:
                    tables[target.id] = rows
    return {name: rows for name, rows in tables.items() if bound[name] == 1}


def _literal_only(sub: ast.AST) -> bool:
    """An `assert` or `self.assert…` call that reads no name and repeats one literal that is not
    falsy (`assert True`, `assert 1 == 1`, `self.assertEqual(2, 2)`): it cannot fail. Two
    literals may differ and fail; `self.fail()` and `pytest.fail()` fail wherever reached."""
    if isinstance(sub, ast.Assert):
        if _truth(sub.test) is True:
            return True  # `assert add(1, 2) == 3 or True`
        checked: list[ast.AST] = [sub.test]
    elif isinstance(sub, ast.Call) and ast.unparse(sub.func).startswith("self.assert"):
        checked = [*sub.args, *(k.value for k in sub.keywords)]
    else:
        return False
    nodes = [n for c in checked for n in ast.walk(c)]
    if any(isinstance(n, ast.Name) for n in nodes):
        return False
    literals = {repr(n.value) for n in nodes if isinstance(n, ast.Constant)}
    return len(literals) == 1 and not literals & _FALSY


_FALSY = {"False", "0", "None", "''", "0.0"}


def _trivial(node: _FunctionNode) -> bool:
    body = [
        s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    return all(
        isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        for s in body
    )
