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
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["exclusive", "expression", "parse"]

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
