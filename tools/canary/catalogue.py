"""The canary catalogue: known defects referee plants in a copy of an iteration's tree.

Each kind is a bug that tests often miss, planted in one changed source file so that every other
line keeps its number and its bytes (the judge's issue can then be compared with the defect's
line): an off-by-one, a removed bounds or validation check, a swallowed error, an inverted
condition, a hard-coded credential, and a surviving mutant of the change (the mutation operators
of `adequacy/mutants.py`, the mutants the run's tests did not kill). Python first: a file of
another language has no kind yet, and the caller says so.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from referee.tools import pysource
from referee.tools.adequacy.mutants import Lines, MutantSpec, generate

__all__ = ["DEFECT_KINDS", "Defect", "DefectKind", "candidates", "plantable"]

DefectKind = Literal[
    "off_by_one",
    "removed_check",
    "swallowed_error",
    "inverted_condition",
    "hardcoded_credential",
    "surviving_mutant",
]
DEFECT_KINDS: tuple[DefectKind, ...] = get_args(DefectKind)

# The rubric dimension a judge who saw the defect lowers.
_DIMENSION: dict[DefectKind, str] = {
    "off_by_one": "correctness",
    "removed_check": "correctness",
    "swallowed_error": "correctness",
    "inverted_condition": "correctness",
    "hardcoded_credential": "security",
    "surviving_mutant": "correctness",
}


@dataclass(frozen=True)
class Defect:
    """A defect of one kind: an edit of one file, spelled as a mutant is (bytes `start:end`
    become `replacement`; `line` is where it shows)."""

    kind: DefectKind
    edit: MutantSpec

    @property
    def path(self) -> str:
        return self.edit.path

    @property
    def line(self) -> int:
        return self.edit.line

    @property
    def dimension(self) -> str:
        return _DIMENSION[self.kind]

    def apply(self, source: bytes) -> bytes:
        return self.edit.apply(source)

    def record(self) -> dict[str, str | int]:
        """What the store keeps of it."""
        e = self.edit
        return {
            "kind": self.kind,
            "path": e.path,
            "line": e.line,
            "dimension": self.dimension,
            "original": e.original,
            "replacement": e.replacement,
        }


def _defect(
    kind: DefectKind, path: str, line: int, span: tuple[int, int], original: str, new: str
) -> Defect:
    return Defect(kind, MutantSpec(path, line, span[0], span[1], original, new, kind))


def plantable(path: str) -> bool:
    """A file the catalogue can plant in: Python source that is not a test."""
    name = path.rsplit("/", 1)[-1]
    if not name.endswith(".py") or name == "conftest.py":
        return False
    in_tests = any(part in {"test", "tests"} for part in path.split("/")[:-1])
    return not (in_tests or name.startswith("test_") or name.endswith("_test.py"))


def candidates(
    kind: DefectKind, path: str, source: bytes, survivors: Sequence[tuple[int, str, str]] = ()
) -> list[Defect]:
    """Every defect of `kind` that can be planted in one Python file, in source order.

    Args:
        kind: The defect kind.
        path: The file's path in the tree.
        source: Its bytes.
        survivors: (line, original, replacement) of the mutants of this file the run's tests did
            not kill (surviving_mutant plants one of them).
    """
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError):
        return []
    finder = _Planter(kind, path, source)
    if kind in ("off_by_one", "surviving_mutant"):
        return _from_mutants(finder, survivors)
    planters: dict[DefectKind, Callable[[_Planter, ast.AST], Iterable[Defect]]] = {
        "removed_check": _removed_check,
        "swallowed_error": _swallowed_error,
        "inverted_condition": _inverted,
    }
    if kind == "hardcoded_credential":
        return [_credential(finder)]
    found = [d for node in ast.walk(tree) for d in planters[kind](finder, node)]
    return sorted(found, key=lambda d: (d.line, d.edit.start))


@dataclass(frozen=True)
class _Planter:
    kind: DefectKind
    path: str
    source: bytes

    def offset(self, line: int, col: int) -> int:
        lines = self.source.splitlines(keepends=True)
        return sum(len(x) for x in lines[: line - 1]) + col

    def span(self, node: ast.stmt | ast.expr) -> tuple[int, int] | None:
        if node.end_lineno is None or node.end_col_offset is None:
            return None
        return self.offset(node.lineno, node.col_offset), self.offset(
            node.end_lineno, node.end_col_offset
        )

    def defect(self, node: ast.stmt | ast.expr, replacement: str) -> Defect | None:
        span = self.span(node)
        if span is None:
            return None
        original = self.source[span[0] : span[1]].decode("utf-8", "replace")
        # Newlines kept: every later line keeps its number.
        keep = "\n" * original.count("\n")
        return _defect(self.kind, self.path, node.lineno, span, original, replacement + keep)


def _from_mutants(f: _Planter, survivors: Sequence[tuple[int, str, str]]) -> list[Defect]:
    mutants = generate(f.path, f.source, Lines())
    if f.kind == "off_by_one":
        chosen = [m for m in mutants if m.operator == "boundary"]
    else:
        wanted = set(survivors)
        chosen = [m for m in mutants if (m.line, m.original, m.replacement) in wanted]
    return [_mutant(f, m) for m in chosen]


def _mutant(f: _Planter, m: MutantSpec) -> Defect:
    return Defect(f.kind, m)


def _guard(node: ast.If) -> bool:
    """An `if` whose only job is to refuse: its body raises or returns, with no else."""
    return not node.orelse and len(node.body) == 1 and isinstance(node.body[0], ast.Raise)


def _removed_check(f: _Planter, node: ast.AST) -> Iterable[Defect]:
    if isinstance(node, ast.If) and _guard(node):
        found = f.defect(node, "pass")
        if found:
            yield found


def _swallowed_error(f: _Planter, node: ast.AST) -> Iterable[Defect]:
    if isinstance(node, ast.ExceptHandler):
        for stmt in node.body:
            if isinstance(stmt, ast.Raise):
                found = f.defect(stmt, "pass")
                if found:
                    yield found


def _inverted(f: _Planter, node: ast.AST) -> Iterable[Defect]:
    if isinstance(node, ast.If | ast.While) and node.test.lineno == node.test.end_lineno:
        if isinstance(node, ast.If) and _guard(node):
            return  # a guard is removed_check's
        span = f.span(node.test)
        if span is not None:
            text = f.source[span[0] : span[1]].decode("utf-8", "replace")
            yield _defect(f.kind, f.path, node.test.lineno, span, text, f"not ({text})")


def _credential(f: _Planter) -> Defect:
    # Appended at the end of the file, so no other line moves. A login pair of no provider's
    # shape under no secret-sounding name: the secret scan's patterns do not name it (a credential
    # the scan finds is referee's catch, not the judge's), only a reader recognises it.
    end = len(f.source)
    lead = "" if f.source.endswith(b"\n") or not f.source else "\n"
    line = f.source.count(b"\n") + (2 if lead else 1)
    text = f'{lead}SERVICE_LOGIN = ("svc", "Winter2024!prod")  # the service account\n'
    return _defect(f.kind, f.path, line, (end, end), "", text)
