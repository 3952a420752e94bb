"""Python modules of the code under test: their dotted names, and the names a change wrote.

`src/pkg/calc.py` is imported as `pkg.calc` or `calc` (whichever folder is on the path), so every
trailing run of its folders names it. A name the change wrote is a top-level function, class,
method (`Calc.add`) or assignment that is new or whose parsed structure differs from base.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from referee.tools import pysource
from referee.tools.claims.model import Module, Scope

__all__ = ["Target", "dotted_names", "python_definitions", "target_of"]


def dotted_names(path: str) -> list[str]:
    """Every dotted name a Python source file may be imported under, longest first."""
    parts = path.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return [".".join(parts[i:]) for i in range(len(parts)) if parts[i:]]


def python_definitions(source: str) -> dict[str, str] | None:
    """Each top-level name of a module with its parsed structure; None when it does not parse."""
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError):
        return None
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found[node.name] = ast.dump(node)
            if isinstance(node, ast.ClassDef):
                for member in node.body:
                    if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                        found[f"{node.name}.{member.name}"] = ast.dump(member)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        found[name.id] = ast.dump(node)
    return found


@dataclass(frozen=True)
class Target:
    """A dotted name (`calc.add`) placed in the code under test: its module, the rest, and how
    many parts named the module."""

    module: Module
    rest: tuple[str, ...]
    size: int = 0

    def written(self) -> bool:
        """Whether the change wrote what is replaced (the whole module counts when it changed)."""
        names = self.module.names
        if not names:
            return False
        return not self.rest or self.rest[0] in ("*", *names) or ".".join(self.rest[:2]) in names

    def covers(self, other: Target) -> bool:
        """Whether `other` is this target or lies inside it (`calc` covers `calc.add`)."""
        return other.module == self.module and other.rest[: len(self.rest)] == self.rest

    def __str__(self) -> str:
        return ".".join(self.rest) or self.module.path


def target_of(dotted: str | None, scope: Scope) -> Target | None:
    """The project module a dotted name lies in (longest match), with what follows it."""
    if not dotted:
        return None
    parts = tuple(dotted.split("."))
    best: Target | None = None
    for module in scope.modules:
        if not module.path.endswith(".py"):
            continue
        for name in dotted_names(module.path):
            size = name.count(".") + 1
            if parts[:size] == tuple(name.split(".")) and (best is None or size > best.size):
                best = Target(module, parts[size:], size)
    return best
