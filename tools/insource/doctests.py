"""Python doctests: the examples in a module's docstrings are tests that live in the source.

A docstring holding `>>>` examples is a test block, matched by the qualified name of what it
documents (the module, a class, a function or method, wherever it is defined: under `if`, `try`
or `with` too; of two definitions of a name the later, unless only the earlier has examples).
The base run gets the base's code with the change's docstrings, and the base-tests run the
change's code with the base's: an example edited in the same change as the code
(`>>> add(1, 2)` now answering `-1`) is checked as it was.

A docstring is also what the module makes of it as it loads: `add.__doc__ = …`, a decorator or
`functools.wraps` that rewrites it, a module's `__test__` dict of examples. So where the two sides
differ in any of that for a name with examples, the spliced module ends with an epilogue that
binds each such name's documentation to the other side's, after everything else the module did
(each in a `try`: a name the side no longer binds, or whose `__doc__` is read-only, is left).
Every other byte is the side's own.
"""

from __future__ import annotations

import ast
import doctest
from dataclasses import dataclass, field

from referee.tools import pysource

__all__ = ["splice_doctests"]

_PROMPT = ">>>"
_BLOCKS = (ast.If, ast.Try, ast.With)


@dataclass
class _Doc:
    """What a name's documentation is made of: its docstring's place (a byte span, or where one
    would go), the source of a `__doc__` assigned to it at load, its decorators."""

    span: tuple[int, int]
    text: str
    indent: str
    present: bool
    assigned: str | None = None
    decorators: tuple[str, ...] = ()
    reachable: bool = True
    """Bound by the module or a class of it (a function's inner functions are not)."""

    @property
    def examples(self) -> list[tuple[str, str, str | None, tuple[tuple[int, bool], ...]]]:
        return _examples(self.assigned if self.assigned is not None else self.text)

    @property
    def runtime(self) -> tuple[object, ...]:
        """What decides the documentation the loaded module has."""
        return (self.examples, self.assigned is not None, self.decorators)


@dataclass
class _Module:
    docs: dict[str, _Doc] = field(default_factory=dict)
    tests: str | None = None
    """The source of the module's `__test__` dict, when it assigns one."""


def splice_doctests(base: str, now: str) -> tuple[str, tuple[tuple[int, int], ...]] | None:
    """`base` with the documentation of `now` wherever either side's holds an example (the text
    and the lines of the swapped docstrings), or None when neither has one or a side does not
    parse."""
    if _PROMPT not in base and _PROMPT not in now:
        return None
    before, after = _read(base), _read(now)
    if before is None or after is None:
        return None
    swaps, epilogue = [], []
    for name in sorted(set(before.docs) | set(after.docs)):
        old, new = before.docs.get(name), after.docs.get(name)
        if not _tested(old) and not _tested(new):
            continue
        if old is not None and new is not None and old.examples != new.examples:
            if new.present or old.present:
                swaps.append((old, _written(new, old)))
        if (old is None or new is None or old.runtime != new.runtime) and (
            (old is None or old.reachable) and (new is None or new.reachable)
        ):
            epilogue.append(_rebind(name, new))
    if before.tests != after.tests:
        epilogue.append(f"__test__ = {after.tests or '{}'}")
    # Clearing first: two names may bind one object (`add = plus`), and the one that documents
    # it must have the last word.
    epilogue.sort(key=lambda statement: " = None\n" not in statement, reverse=False)
    if not swaps and not epilogue and not any(_tested(d) for d in after.docs.values()):
        return None
    text, lines = _apply(base, swaps)
    return text + _epilogue(text, epilogue), lines


def _tested(doc: _Doc | None) -> bool:
    return doc is not None and bool(doc.examples)


def _rebind(name: str, doc: _Doc | None) -> str:
    """One statement of the epilogue: `name`'s documentation made the other side's."""
    target = f"{name}.__doc__" if name else "__doc__"
    value = "None" if doc is None else doc.assigned or (doc.text if doc.present else "None")
    return f"try:\n    {target} = {value}\nexcept Exception:\n    pass"


def _epilogue(text: str, statements: list[str]) -> str:
    if not statements:
        return ""
    lead = "" if text.endswith("\n") else "\n"
    body = "\n".join(statements)
    return (
        f"{lead}\n\n# referee: the documentation the module binds, as the other side's.\n{body}\n"
    )


def _examples(raw: str) -> list[tuple[str, str, str | None, tuple[tuple[int, bool], ...]]]:
    """The doctest examples a docstring's source holds (what doctest runs and compares): the
    source, the expected output, the exception and the option flags of each."""
    if _PROMPT not in raw:
        return []
    try:
        value = ast.literal_eval(pysource.expression(raw))  # one parse at a time
        examples = doctest.DocTestParser().get_examples(value if isinstance(value, str) else "")
    except (SyntaxError, ValueError):
        return [("", raw, None, ())]  # not a plain string: compared as written
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


def _read(source: str) -> _Module | None:
    """The documentation of the module and of every class and function it defines, by qualified
    name (`""` for the module, `Calc.add`), the last definition of a name winning."""
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None
    reader = _Reader(source)
    found = _Module()
    module = reader.doc_of(tree.body)
    if module is not None:
        found.docs[""] = module
    reader.walk(tree.body, "", True, found)
    return found


class _Reader:
    def __init__(self, source: str):
        self.data = source.encode("utf-8", "replace")
        self.offsets = _line_offsets(self.data)

    def walk(self, body: list[ast.stmt], prefix: str, reachable: bool, into: _Module) -> None:
        for node in body:
            if isinstance(node, _BLOCKS):
                for part in _parts(node):
                    self.walk(part, prefix, reachable, into)
            elif isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}.{node.name}" if prefix else node.name
                doc = self.doc_of(node.body)
                if doc is not None:
                    doc.decorators = tuple(self.segment(d) for d in node.decorator_list)
                    doc.reachable = reachable
                    # A name defined twice: the later definition binds it, unless only the
                    # earlier holds examples (a property's getter and its setter, a def in
                    # `if sys.version_info …` and another in `else`).
                    earlier = into.docs.get(name)
                    if earlier is None or doc.examples or not earlier.examples:
                        into.docs[name] = doc
                inner = reachable and isinstance(node, ast.ClassDef)
                self.walk(node.body, name, inner, into)
            elif not prefix and isinstance(node, ast.Assign):
                self.assignment(node, into)

    def assignment(self, node: ast.Assign, into: _Module) -> None:
        """`add.__doc__ = …`, `__doc__ = …` and `__test__ = {…}` at the module's top."""
        for target in node.targets:
            value = self.segment(node.value)
            if isinstance(target, ast.Name) and target.id == "__test__":
                into.tests = value
            elif isinstance(target, ast.Name) and target.id == "__doc__" and "" in into.docs:
                into.docs[""].assigned = value
            elif isinstance(target, ast.Attribute) and target.attr == "__doc__":
                owner = _dotted(target.value)
                if owner is not None and owner in into.docs:
                    into.docs[owner].assigned = value
                elif owner is not None:
                    into.docs[owner] = _Doc((0, 0), "", "", False, assigned=value)

    def segment(self, node: ast.AST) -> str:
        start = self.offsets[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
        end_line = node.end_lineno or node.lineno  # type: ignore[attr-defined]
        end = self.offsets[end_line - 1] + (node.end_col_offset or 0)  # type: ignore[attr-defined]
        return self.data[start:end].decode("utf-8", "replace")

    def doc_of(self, body: list[ast.stmt]) -> _Doc | None:
        if not body:
            return None
        first = body[0]
        start = self.offsets[first.lineno - 1] + first.col_offset
        indent = self.data[self.offsets[first.lineno - 1] : start]
        if indent and not indent.isspace():
            return None  # a one-line body (`def f(): return 1`): no place for a docstring
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            raw = self.segment(first)
            return _Doc((start, start + len(raw.encode())), raw, indent.decode(), True)
        return _Doc((start, start), "", indent.decode(), False)


def _parts(node: ast.If | ast.Try | ast.With) -> list[list[ast.stmt]]:
    if isinstance(node, ast.If):
        return [node.body, node.orelse]
    if isinstance(node, ast.Try):
        return [node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody]
    return [node.body]


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value)
        return None if owner is None else f"{owner}.{node.attr}"
    return None


def _line_offsets(data: bytes) -> list[int]:
    """The byte offset each line starts at (ast's columns count UTF-8 bytes)."""
    offsets, at = [], 0
    for line in data.splitlines(keepends=True):
        offsets.append(at)
        at += len(line)
    return offsets or [0]
