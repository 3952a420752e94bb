"""One parsed Python file, with what its names refer to, shared by the Python readers."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

from referee.tools import pysource
from referee.tools.claims.model import Claim, Role, Scope
from referee.tools.claims.pynames import Names
from referee.tools.claims.pyscope import Target, target_of

__all__ = ["PyFile"]

_FOLDABLE = (ast.Constant, ast.BinOp, ast.JoinedStr, ast.Call, ast.Subscript)


@dataclass
class PyFile:
    """One parsed file with what its names refer to, for the Python readers."""

    path: str
    tree: ast.Module
    names: Names
    scope: Scope
    role: Role
    parents: dict[ast.AST, ast.AST] = field(default_factory=dict)

    def claim(self, kind: str, node: ast.AST, message: str) -> Claim:
        line = getattr(node, "lineno", 1)
        return Claim(kind, line, f"{self.path}:{line} {message}", f"{kind}|{ast.dump(node)}")

    def target(self, dotted: str | None) -> Target | None:
        return target_of(dotted, self.scope)

    @cached_property
    def calls(self) -> list[ast.Call]:
        return [n for n in pysource.nodes(self.tree) if isinstance(n, ast.Call)]

    @cached_property
    def called_names(self) -> frozenset[str]:
        """The plain names the file calls (`f(…)`)."""
        return frozenset(c.func.id for c in self.calls if isinstance(c.func, ast.Name))

    @cached_property
    def called(self) -> list[Target]:
        """Every project name the file calls (`calc.add(…)`, `add(…)` imported from calc)."""
        found = (self.target(self.names.resolve(c.func)) for c in self.calls)
        return [t for t in found if t is not None]

    def strings(self) -> Iterator[tuple[ast.AST, str]]:
        """Every string the code computes from constants, each whole expression once
        (docstrings left out)."""
        docs = {
            id(n.value)
            for n in pysource.nodes(self.tree)
            if isinstance(n, ast.Expr) and _docstring(n)
        }
        for node in pysource.nodes(self.tree):
            if not isinstance(node, _FOLDABLE) or id(node) in docs:
                continue
            value = self.names.fold(node)
            if not value:
                continue
            parent = self.parents.get(node)
            if isinstance(parent, (*_FOLDABLE, ast.FormattedValue)) and self.names.fold(parent):
                continue
            yield node, value

    def inside(
        self, node: ast.AST, test: type[ast.AST] | tuple[type[ast.AST], ...]
    ) -> ast.AST | None:
        parent = self.parents.get(node)
        while parent is not None:
            if isinstance(parent, test):
                return parent
            parent = self.parents.get(parent)
        return None

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        parent = self.parents.get(node)
        while parent is not None:
            yield parent
            parent = self.parents.get(parent)


def _docstring(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )
