"""Mutants of Python files, found with `ast`: each replaces one token or expression of one
wanted line, spliced into the original text."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from referee.tools import pysource
from referee.tools.adequacy.mutants.literals import number_mutants, string_mutants
from referee.tools.adequacy.mutants.spec import Lines, MutantSpec, in_order

__all__ = ["generate_python"]

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
        yield f.spec(node, *_span(f, node, node.operand), "", "negation")
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
    text = f.whole(node, "", "").original
    if isinstance(value, bool):
        yield f.whole(node, str(not value), "constant")
    elif isinstance(value, int | float):
        yield from (f.whole(node, new, "constant") for new in number_mutants(text))
    elif isinstance(value, str | bytes):
        yield from (f.whole(node, new, "string") for new in string_mutants(text))


def _never_mutated(tree: ast.AST) -> set[int]:
    """Ids of the nodes no mutant touches: docstrings, the parts of f-strings (their text is not
    a literal of its own), annotations (nothing runs them) and the `__main__` guard."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                found.add(id(body[0].value))
        held: list[ast.AST] = [node] if isinstance(node, ast.JoinedStr) or _main(node) else []
        held += [a for a in _annotations(node) if a is not None]
        found.update(id(n) for h in held for n in ast.walk(h))
    return found


def _main(node: ast.AST) -> bool:
    """`__name__ == "__main__"`: a test imports the module, so its mutants survive by design."""
    return (
        isinstance(node, ast.Compare)
        and isinstance(node.left, ast.Name)
        and node.left.id == "__name__"
    )


def _annotations(node: ast.AST) -> list[ast.expr | None]:
    if isinstance(node, ast.arg | ast.AnnAssign):
        return [node.annotation]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return [node.returns]
    return []


def generate_python(path: str, source: bytes, lines: Lines) -> list[MutantSpec]:
    """Every mutation of the wanted lines of one file, in source order."""
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError):
        return []
    finder, skip = _Finder(path, source, lines), _never_mutated(tree)
    return in_order(
        m
        for node in ast.walk(tree)
        if finder.wanted(node) and id(node) not in skip
        for m in _mutations(finder, node)
        if m is not None
    )
