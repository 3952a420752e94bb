"""Python source parsed with `ast`, safely from several threads at once.

referee reads Python files in worker threads while an evaluation's checks run side by side, and
CPython 3.11 up to 3.11.8 keeps the AST validator's recursion count in shared state
(python/cpython#106905): two threads parsing at once can fail one of them with
"SystemError: AST constructor recursion depth mismatch". One lock around the parse costs
nothing next to a parse; a library that parses in referee's process (coverage.py's parser) and
any `compile` run under `exclusive()`.
"""

from __future__ import annotations

import ast
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["exclusive", "expression", "nodes", "parse"]

_LOCK = threading.RLock()  # re-entrant: code run under exclusive() may parse too


def parse(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse` of a module, one thread at a time (raises what it raises: SyntaxError,
    ValueError)."""
    with _LOCK:
        return ast.parse(source, filename=filename)


def expression(source: str) -> ast.expr:
    """`ast.parse` of one expression, under the same lock."""
    with _LOCK:
        return ast.parse(source, mode="eval").body


@contextmanager
def exclusive() -> Iterator[None]:
    """Hold the parse lock for a block that builds or compiles ASTs by other means."""
    with _LOCK:
        yield


_NODES: weakref.WeakKeyDictionary[ast.AST, list[ast.AST]] = weakref.WeakKeyDictionary()


def nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of a parsed module, in `ast.walk`'s order, listed once per module: each reader
    of a file walks it whole, and a large file (a megabyte of generated settings) has a million
    nodes. Nothing that reads a tree writes to it."""
    if not isinstance(tree, ast.Module):
        return list(ast.walk(tree))
    with _LOCK:
        found = _NODES.get(tree)
        if found is None:
            found = _NODES[tree] = list(ast.walk(tree))
        return found
