"""Python tests (pytest, unittest) read with the standard `ast` module."""

from __future__ import annotations

import ast
import re

from referee.tools import pysource
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
    tests: dict[str, TestInfo] = {}
    for node, owner, owner_skip in _functions(tree):
        if node.name.startswith("test"):
            skip_line = owner_skip or _skip_line(node)
            tests[f"{owner}{node.name}"] = TestInfo(
                line=node.lineno,
                skipped=skip_line is not None,
                skip_line=skip_line,
                asserts=_asserts(node),
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
                module_skip or _decorator_skip(node.decorator_list) or _pytestmark(node.body)
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


def _mark_name(node: ast.expr) -> str:
    """The last name of a mark or decorator: `pytest.mark.skipif(True)` → `skipif`."""
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute):
        return target.attr
    return target.id if isinstance(target, ast.Name) else ""


def _decorator_skip(decorators: list[ast.expr]) -> int | None:
    return next((d.lineno for d in decorators if _mark_name(d) in _SKIP_MARKS), None)


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


def _asserts(node: ast.AST) -> list[tuple[int, str]]:
    found = []
    for sub in ast.walk(node):
        if (
            isinstance(sub, ast.Assert)
            or (isinstance(sub, ast.Call) and _ASSERT_CALLS.match(ast.unparse(sub.func)))
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
        ):
            found.append((getattr(sub, "lineno", 0), ast.unparse(sub).splitlines()[0]))
    return found


def _trivial(node: _FunctionNode) -> bool:
    body = [
        s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    return all(
        isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        for s in body
    )
