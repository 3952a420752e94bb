"""Python doctests: the examples in a module's docstrings are tests that live in the source.

A docstring holding `>>>` examples is a test block, matched by the qualified name of what it
documents (the module, a class, a function or method). The base run gets the base's code with the
change's docstrings, and the base-tests run the change's code with the base's: an example edited
in the same change as the code (`>>> add(1, 2)` now answering `-1`) is checked as it was. Every
other byte is the side's own; a docstring is only ever swapped for a docstring.
"""

from __future__ import annotations

import ast
import doctest
from dataclasses import dataclass

__all__ = ["splice_doctests"]

_PROMPT = ">>>"


@dataclass(frozen=True)
class _Doc:
    """A docstring's place: its byte span, or (when there is none) where one would go."""

    span: tuple[int, int]
    text: str
    indent: str
    present: bool


def splice_doctests(base: str, now: str) -> tuple[str, tuple[tuple[int, int], ...]] | None:
    """`base` with the docstrings of `now` wherever either side's holds an example (the text and
    the lines of the swapped docstrings), or None when neither has one or a side does not parse."""
    if _PROMPT not in base and _PROMPT not in now:
        return None
    before, after = _docstrings(base), _docstrings(now)
    if before is None or after is None:
        return None
    swaps = []
    for name, old in before.items():
        new = after.get(name)
        if new is None or not (_PROMPT in old.text or _PROMPT in new.text):
            continue
        if _examples(old.text) == _examples(new.text):
            continue  # the prose changed, not a test: nothing to swap
        if not new.present and not old.present:
            continue
        swaps.append((old, _written(new, old)))
    if not swaps and not any(_PROMPT in d.text for d in after.values()):
        return None
    return _apply(base, swaps)


def _examples(raw: str) -> list[tuple[str, str, str | None, tuple[tuple[int, bool], ...]]]:
    """The doctest examples a docstring's source holds (what doctest runs and compares): the
    source, the expected output, the exception and the option flags of each."""
    try:
        value = ast.literal_eval(raw) if raw else ""
        examples = doctest.DocTestParser().get_examples(value if isinstance(value, str) else "")
    except (SyntaxError, ValueError):
        return [("", raw, None, ())]  # unreadable: compared as written
    return [(e.source, e.want, e.exc_msg, tuple(sorted(e.options.items()))) for e in examples]


def _written(new: _Doc, old: _Doc) -> str:
    """What takes the base's docstring place: the change's docstring (or an empty string where
    the change has none, so the body stays a body)."""
    body = new.text if new.present else '""'
    return body if old.present else f"{body}\n{old.indent}"


def _apply(base: str, swaps: list[tuple[_Doc, str]]) -> tuple[str, tuple[tuple[int, int], ...]]:
    data = base.encode("utf-8", "replace")
    out, at, lines = bytearray(), 0, []
    for doc, written in sorted(swaps, key=lambda s: s[0].span):
        start, end = doc.span
        out += data[at:start]
        first = out.count(b"\n") + 1
        block = written.encode("utf-8", "replace")
        out += block
        lines.append((first, first + block.count(b"\n")))
        at = end
    out += data[at:]
    return out.decode("utf-8", "replace"), tuple(lines)


def _docstrings(source: str) -> dict[str, _Doc] | None:
    """The docstring (or its place) of the module and of every class and function reachable
    through classes and functions, by qualified name (`""` for the module, `Calc.add`)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    offsets = _line_offsets(source)
    found: dict[str, _Doc] = {}
    stack: list[tuple[str, ast.AST]] = [("", tree)]
    while stack:
        name, node = stack.pop()
        body = getattr(node, "body", None)
        if not body:
            continue
        doc = _doc_of(body, offsets, source)
        if doc is not None:
            found[name] = doc
        for child in body:
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                stack.append((f"{name}.{child.name}" if name else child.name, child))
    return found


def _doc_of(body: list[ast.stmt], offsets: list[int], source: str) -> _Doc | None:
    first = body[0]
    start = offsets[first.lineno - 1] + first.col_offset
    indent = source.encode("utf-8", "replace")[offsets[first.lineno - 1] : start]
    if not indent.isspace() and indent:
        return None  # a one-line body (`def f(): return 1`): no place for a docstring
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
        and first.end_lineno is not None
        and first.end_col_offset is not None
    ):
        end = offsets[first.end_lineno - 1] + first.end_col_offset
        raw = source.encode("utf-8", "replace")[start:end].decode("utf-8", "replace")
        return _Doc((start, end), raw, indent.decode(), True)
    return _Doc((start, start), "", indent.decode(), False)


def _line_offsets(source: str) -> list[int]:
    """The byte offset each line starts at (ast's columns count UTF-8 bytes)."""
    offsets, at = [], 0
    for line in source.encode("utf-8", "replace").splitlines(keepends=True):
        offsets.append(at)
        at += len(line)
    return offsets or [0]
