"""Code that asks whether it runs under test (`code_detects_tests`), read with tree-sitter: the
one rule of tools/claims/pysituation.py for JS/TS, Go, Rust and Java.

An expression is a finding where it reads the process's situation and names a tell
(tools/claims/tells.py); each language says what a read, a tell and a binding are, and where an
expression ends. A name bound from either carries it into the expression that uses it; a unit
that only uses a name carrying both was found where the name was bound.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import tree_sitter as ts

from referee.tools.claims import messages as M
from referee.tools.claims.model import CODE_DETECTS_TESTS, Claim
from referee.tools.claims.tells import Read, Tell, paired, situated
from referee.tools.claims.tsfile import TsFile, unquote
from referee.tools.tampering.syntax import descendants, text

__all__ = ["Asking", "Binding", "asked", "fold_plus"]

Binding = tuple[list[str], ts.Node]
"""Names bound, and the expression they are bound from."""


@dataclass(frozen=True)
class Asking:
    """How one language reads its situation.

    Attributes:
        tell: What a node tells of the tests (its folded string, a runner's global), if anything.
        read: What of the process's situation or the files a node reads, if anything.
        bindings: Every binding of the file: names and the expression they take their value from.
        stops: Whether a node ends an expression (a statement, a declaration, a block).
        names: The node types that name a variable.
        scope: Which declaration a name at a node refers to (its scope's key), so that a value
            bound to a function's parameter is not carried into another function's parameter of
            the same name; None where the language's reader does not tell scopes apart.
    """

    tell: Callable[[ts.Node], Tell | None]
    read: Callable[[ts.Node], Read | None]
    bindings: Callable[[TsFile], Iterator[Binding]]
    stops: Callable[[ts.Node], bool]
    names: frozenset[str] = frozenset({"identifier"})
    scope: Callable[[str, ts.Node], object] = lambda name, node: None


_Key = tuple[str, object]
"""A name, and the scope that declares it where the node naming it stands."""


@dataclass
class _Carried:
    reads: dict[_Key, list[Read]] = field(default_factory=dict)
    tells: dict[_Key, list[Tell]] = field(default_factory=dict)


def asked(
    file: TsFile, asking: Asking, skip: Callable[[ts.Node], bool] | None = None
) -> Iterator[Claim]:
    """Every expression of the file that asks whether it runs under test (but where `skip` says
    the code is a test's, in a file that holds both)."""
    carried, seen = _carried(file, asking), set()
    for node in file.nodes():
        if not (asking.tell(node) or asking.read(node)) or (skip is not None and skip(node)):
            continue
        unit = _unit(node, asking)
        if unit.id in seen:
            continue
        seen.add(unit.id)
        found = _found(unit, asking, carried)
        if found is not None:
            yield file.claim(CODE_DETECTS_TESTS, unit, M.detects(found[0].text, found[1].text))


def _unit(node: ts.Node, asking: Asking) -> ts.Node:
    while node.parent is not None and not asking.stops(node.parent):
        node = node.parent
    return node


def _found(unit: ts.Node, asking: Asking, carried: _Carried) -> tuple[Tell, Read] | None:
    nodes = [unit, *descendants(unit)]
    tells, reads = situated(
        [t for n in nodes if (t := asking.tell(n))], [r for n in nodes if (r := asking.read(n))]
    )
    if not tells and not reads:
        return None
    named = _named(nodes, asking)
    tells = tells or [t for n in named for t in carried.tells.get(n, [])]
    reads = reads or [r for n in named for r in carried.reads.get(n, [])]
    return paired(tells, reads)


def _carried(file: TsFile, asking: Asking) -> _Carried:
    carried = _Carried()
    bindings = list(asking.bindings(file))
    for _ in range(3):
        for names, value in bindings:
            nodes = [value, *descendants(value)]
            named = _named(nodes, asking)
            reads = [r for n in nodes if (r := asking.read(n))]
            reads += [r for n in named for r in carried.reads.get(n, [])]
            tells = [t for n in nodes if (t := asking.tell(n))]
            tells += [t for n in named for t in carried.tells.get(n, [])]
            tells, reads = situated(tells, reads)
            for name in names:
                key = (name, asking.scope(name, value))
                if reads and key not in carried.reads:
                    carried.reads[key] = reads[:4]
                if tells and key not in carried.tells:
                    carried.tells[key] = tells[:4]
    return carried


def _named(nodes: list[ts.Node], asking: Asking) -> list[_Key]:
    found = [(n, text(n)) for n in nodes if n.type in asking.names]
    return [(name, asking.scope(name, n)) for n, name in found]


def fold_plus(
    node: ts.Node, consts: dict[str, str], strings: frozenset[str], depth: int = 0
) -> str | None:
    """The string a Go or Java expression always evaluates to: literals, names bound to one, and
    `+` of them (`"test" + ".v"`)."""
    if depth > 20:
        return None
    if node.type in strings:
        return unquote(node)
    if node.type == "identifier":
        return consts.get(text(node))
    if node.type == "parenthesized_expression" and node.named_children:
        return fold_plus(node.named_children[0], consts, strings, depth + 1)
    if node.type == "binary_expression" and text(node.child_by_field_name("operator")) == "+":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        a = fold_plus(left, consts, strings, depth + 1) if left is not None else None
        b = fold_plus(right, consts, strings, depth + 1) if right is not None else None
        return a + b if a is not None and b is not None else None
    return None
