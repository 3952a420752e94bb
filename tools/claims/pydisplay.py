"""Python code under test whose values all show the same (`equality_forged`).

A doctest compares what a value shows, not the value: `__repr__` (or `__str__`, `__format__`)
that answers without reading the value itself passes every doctest made on it, whatever the code
computed. Read only in classes of plain values (a subclass of `int`, `str`, `float`, `Decimal`,
`list` …), whose display is their value: a sentinel's or a service object's fixed `repr` is
ordinary.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from referee.tools import pysource
from referee.tools.claims.equality import ignores_operand
from referee.tools.claims.model import EQUALITY_FORGED, Claim
from referee.tools.claims.pyfile import PyFile

__all__ = ["py_displays"]

_DISPLAYS = frozenset({"__repr__", "__str__", "__format__"})
_VALUES = frozenset(
    {"int", "float", "complex", "str", "bytes", "bool", "Decimal", "Fraction", "list", "tuple"}
    | {"dict", "set", "frozenset", "IntEnum", "StrEnum", "UserString", "UserList", "UserDict"}
)


def py_displays(file: PyFile) -> Iterator[Claim]:
    """Every display method of a value class that never reads the value."""
    for node in pysource.nodes(file.tree):
        if not isinstance(node, ast.ClassDef) or not _of_values(node):
            continue
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name in _DISPLAYS:
                if ignores_operand(item, item.name, position=0) and not _super(item):
                    yield file.claim(EQUALITY_FORGED, item, _message(node.name, item.name))


def _super(function: ast.AST) -> bool:
    """`super().__repr__()` reads the value as much as `self` does."""
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "super"
        for n in ast.walk(function)
    )


def _of_values(node: ast.ClassDef) -> bool:
    for base in node.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name in _VALUES:
            return True
    return False


def _message(owner: str, name: str) -> str:
    return (
        f"defines `{owner}.{name}` without reading the value it shows: every value of it shows"
        " the same, so a doctest comparing what it shows passes whatever the code computed"
    )
