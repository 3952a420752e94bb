"""Python tests (pytest, unittest) read with the standard `ast` module."""

from __future__ import annotations

import ast
import re

from referee.tools.tampering.model import TestInfo

__all__ = ["python_tests"]

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_SKIP_MARKS = re.compile(r"\b(skip|skipif|xfail|skipIf|skipUnless|expectedFailure)\b")
_SKIP_CALLS = ("pytest.skip", "pytest.xfail", "self.skipTest", "unittest.skip")
_ASSERT_CALLS = re.compile(r"(self\.assert|self\.fail|pytest\.raises|pytest\.approx|pytest\.fail)")


def python_tests(source: str) -> dict[str, TestInfo] | None:
    """Every `test*` function and method, by `Class.name`; None when the file does not parse."""
    try:
        tree = ast.parse(source)
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
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append((node, "", None))
        elif isinstance(node, ast.ClassDef):
            class_skip = _decorator_skip(node.decorator_list)
            found.extend(
                (m, f"{node.name}.", class_skip)
                for m in node.body
                if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
            )
    return found


def _decorator_skip(decorators: list[ast.expr]) -> int | None:
    return next((d.lineno for d in decorators if _SKIP_MARKS.search(ast.unparse(d))), None)


def _skip_line(node: _FunctionNode) -> int | None:
    marked = _decorator_skip(node.decorator_list)
    if marked is not None:
        return marked
    calls = (n for n in ast.walk(node) if isinstance(n, ast.Call))
    return next((c.lineno for c in calls if ast.unparse(c.func) in _SKIP_CALLS), None)


def _asserts(node: ast.AST) -> list[tuple[int, str]]:
    found = []
    for sub in ast.walk(node):
        if (
            isinstance(sub, ast.Assert)
            or (isinstance(sub, ast.Call) and _ASSERT_CALLS.match(ast.unparse(sub.func)))
            or (
                isinstance(sub, ast.With)
                and any("raises" in ast.unparse(i.context_expr) for i in sub.items)
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
