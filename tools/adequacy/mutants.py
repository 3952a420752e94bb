"""Mutants of the changed lines of Python files: small, plausible bugs a good test would notice.

Each mutant replaces one token or expression of one changed line (found with `ast`, spliced into
the original text, so every other line keeps its number and its bytes). The operator set is
referee's own: the mutation tools (mutmut, cosmic-ray, mutatest) mutate whole modules or need
their own runner and configuration, and none takes "these lines of this diff" as input, while
referee must run each mutant through the check's own command in its sandbox.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Lines", "MutantSpec", "generate", "read_source", "spread"]

_COMPARE = {
    ast.Lt: ("<", "<=", "boundary"),
    ast.LtE: ("<=", "<", "boundary"),
    ast.Gt: (">", ">=", "boundary"),
    ast.GtE: (">=", ">", "boundary"),
    ast.Eq: ("==", "!=", "comparison"),
    ast.NotEq: ("!=", "==", "comparison"),
    ast.Is: ("is", "is not", "comparison"),
    ast.IsNot: ("is not", "is", "comparison"),
    ast.In: ("in", "not in", "comparison"),
    ast.NotIn: ("not in", "in", "comparison"),
}
_ARITHMETIC = {
    ast.Add: ("+", "-"),
    ast.Sub: ("-", "+"),
    ast.Mult: ("*", "/"),
    ast.Div: ("/", "*"),
    ast.FloorDiv: ("//", "*"),
    ast.Mod: ("%", "//"),
    ast.Pow: ("**", "*"),
    ast.BitAnd: ("&", "|"),
    ast.BitOr: ("|", "&"),
}
_BOOLEAN = {ast.And: ("and", "or"), ast.Or: ("or", "and")}


@dataclass(frozen=True)
class Lines:
    """The lines of a file to mutate: `wanted` (None: every line) except `excluded`."""

    wanted: set[int] | None = None
    excluded: frozenset[int] = frozenset()

    def __contains__(self, line: object) -> bool:
        return line not in self.excluded and (self.wanted is None or line in self.wanted)


@dataclass(frozen=True)
class MutantSpec:
    """One mutation: bytes `start:end` of the file (`original`) become `replacement`."""

    path: str
    line: int
    start: int
    end: int
    original: str
    replacement: str
    operator: str

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"

    def apply(self, source: bytes) -> bytes:
        return source[: self.start] + self.replacement.encode("utf-8") + source[self.end :]


class _Finder:
    """Walks one module and yields the mutations whose node starts on a wanted line."""

    def __init__(self, path: str, source: bytes, lines: Lines) -> None:
        self.path, self.source, self.lines = path, source, lines
        self.starts = [0]
        for line in source.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col

    def wanted(self, node: ast.AST) -> bool:
        line = getattr(node, "lineno", None)
        end = getattr(node, "end_lineno", None)
        # Single-line nodes only: a mutation reported at file:line is then exactly that line.
        return line is not None and line == end and line in self.lines

    def spec(self, node: ast.AST, start: int, end: int, new: str, operator: str) -> MutantSpec:
        old = self.source[start:end].decode("utf-8", "replace")
        return MutantSpec(self.path, getattr(node, "lineno", 0), start, end, old, new, operator)

    def between(
        self, node: ast.AST, left: ast.expr, right: ast.expr, token: str, new: str, operator: str
    ) -> MutantSpec | None:
        """Replace the operator token that lies between two operands (parentheses may too)."""
        lo = self.offset(left.end_lineno or 0, left.end_col_offset or 0)
        hi = self.offset(right.lineno, right.col_offset)
        gap = self.source[lo:hi].decode("utf-8", "replace")
        pattern = r"\s+".join(re.escape(w) for w in token.split())
        match = re.search(rf"(?<![<>=!*/&|%]){pattern}(?![=*/&|])", gap)
        if match is None:
            return None
        start = lo + len(gap[: match.start()].encode("utf-8"))
        end = lo + len(gap[: match.end()].encode("utf-8"))
        return self.spec(node, start, end, new, operator)

    def whole(self, node: ast.AST, new: str, operator: str) -> MutantSpec:
        start = self.offset(getattr(node, "lineno", 1), getattr(node, "col_offset", 0))
        end = self.offset(getattr(node, "end_lineno", 1), getattr(node, "end_col_offset", 0))
        return self.spec(node, start, end, new, operator)


def _mutations(f: _Finder, node: ast.AST) -> Iterator[MutantSpec | None]:
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        for i, op in enumerate(node.ops):
            token, new, kind = _COMPARE[type(op)]
            yield f.between(node, operands[i], operands[i + 1], token, new, kind)
    elif isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        token, new = _ARITHMETIC[type(node.op)]
        yield f.between(node, node.left, node.right, token, new, "arithmetic")
    elif isinstance(node, ast.AugAssign) and type(node.op) in _ARITHMETIC:
        token, new = _ARITHMETIC[type(node.op)]
        yield f.between(node, node.target, node.value, token + "=", new + "=", "arithmetic")
    elif isinstance(node, ast.BoolOp):
        token, new = _BOOLEAN[type(node.op)]
        yield f.between(node, node.values[0], node.values[1], token, new, "boolean")
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield f.spec(node, *_span(f, node, node.operand), "", "boolean")
    elif isinstance(node, ast.Constant):
        yield from _constant(f, node)
    elif isinstance(node, ast.Return) and node.value is not None:
        if not (isinstance(node.value, ast.Constant) and node.value.value is None):
            yield f.whole(node.value, "None", "return value")
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        yield f.whole(node, "pass", "removed call")


def _span(f: _Finder, node: ast.AST, operand: ast.expr) -> tuple[int, int]:
    start = f.offset(getattr(node, "lineno", 1), getattr(node, "col_offset", 0))
    return start, f.offset(operand.lineno, operand.col_offset)


def _constant(f: _Finder, node: ast.Constant) -> Iterator[MutantSpec]:
    value = node.value
    if isinstance(value, bool):
        yield f.whole(node, str(not value), "constant")
    elif isinstance(value, int):
        yield f.whole(node, str(value + 1), "constant")
    elif isinstance(value, float):
        yield f.whole(node, repr(value + 1.0), "constant")


def _docstrings(tree: ast.AST) -> set[int]:
    """Ids of the string constants that are docstrings (never mutated)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                found.add(id(body[0].value))
    return found


def generate(path: str, source: bytes, lines: Lines) -> list[MutantSpec]:
    """Every mutation of the wanted lines of one file, in source order."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    finder, skip = _Finder(path, source, lines), _docstrings(tree)
    found = [
        m
        for node in ast.walk(tree)
        if finder.wanted(node) and id(node) not in skip
        for m in _mutations(finder, node)
        if m is not None
    ]
    return sorted(set(found), key=lambda m: (m.line, m.start, m.replacement))


def spread(found: Mapping[str, Sequence[MutantSpec]], limit: int) -> list[MutantSpec]:
    """At most `limit` mutants, spread over the changed lines: one per line per round."""
    by_line: dict[tuple[str, int], list[MutantSpec]] = {}
    for path in sorted(found):
        for m in found[path]:
            by_line.setdefault((path, m.line), []).append(m)
    queues = [by_line[k] for k in sorted(by_line)]
    chosen: list[MutantSpec] = []
    while queues and len(chosen) < limit:
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
        queues = [q for q in queues if q]
    return chosen


def read_source(tree: Path, path: str) -> bytes | None:
    try:
        return (tree / path).read_bytes()
    except OSError:
        return None
