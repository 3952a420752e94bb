"""Go code that asks whether it runs under test (tools/claims/tssituation.py for the rule).

What a Go program reads of its situation: the environment, `os.Args` and the executable's name
(a test binary is `pkg.test`), the flag set (`flag.Lookup("test.v")`: the testing flags exist only
in a test binary), the callers' files (`runtime.Caller`: `_test.go`), files read. The testing
package's own questions (`testing.Testing()`, `testing.Short()` …) asked outside tests are findings
by themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import tree_sitter as ts

from referee.tools.claims.tells import Read, Tell, tell_of
from referee.tools.claims.tsfile import TsFile
from referee.tools.claims.tssituation import Asking, Binding, fold_plus
from referee.tools.tampering.syntax import descendants, text

__all__ = ["go_asking"]

Ref = Callable[[ts.Node], tuple[str, str] | None]

_UNIX = "golang.org/x/sys/unix"
_PROCESS = {
    "os": {"Getenv", "LookupEnv", "Environ", "Args", "Executable"},
    "flag": {"Lookup", "CommandLine", "VisitAll", "Visit", "Args", "Arg"},
    "runtime": {"Caller", "Callers", "CallersFrames", "FuncForPC", "Stack"},
    "runtime/debug": {"Stack", "ReadBuildInfo"},
    "syscall": {"Getenv", "Environ"},
    _UNIX: {"Getenv"},
}
_FILES = {
    "os": {"ReadFile", "Open", "OpenFile", "Stat", "Lstat", "ReadDir", "DirFS"},
    "io/ioutil": {"ReadFile", "ReadDir"},
    "path/filepath": {"Glob", "Walk", "WalkDir"},
}
_TESTING = frozenset({"Testing", "Verbose", "Short", "CoverMode", "Coverage", "Init"})
_STRINGS = frozenset({"interpreted_string_literal", "raw_string_literal"})


def go_asking(file: TsFile, ref: Ref) -> Asking:
    """The Go reads and tells of one file (`ref` resolves `pkg.Name` through its imports)."""
    consts = _consts(file)
    source = file.role == "source"

    def tell(node: ts.Node) -> Tell | None:
        if source and _testing(node, ref):
            return Tell("runner", f"the testing package ({text(node)})")
        if node.type in _STRINGS or node.type == "binary_expression" or node.type == "identifier":
            value = _fold(node, consts)
            return tell_of(value, None if source else file.scope.edited_tests) if value else None
        return None

    def read(node: ts.Node) -> Read | None:
        found = ref(node) if node.type == "selector_expression" else None
        if found is None:
            return None
        path, name = found
        named = f"{path.rsplit('/', 1)[-1]}.{name}"
        if name in _PROCESS.get(path, ()) or (source and _testing(node, ref)):
            return Read("process", named)
        return Read("file", named) if name in _FILES.get(path, ()) else None

    return Asking(tell, read, _bindings, _stops)


def _testing(node: ts.Node, ref: Ref) -> bool:
    found = ref(node) if node.type == "selector_expression" else None
    return found is not None and found[0] == "testing" and found[1] in _TESTING


def _fold(node: ts.Node, consts: dict[str, str]) -> str | None:
    return fold_plus(node, consts, _STRINGS)


def _consts(file: TsFile) -> dict[str, str]:
    """Names declared once with a constant string (`const verbose = "test" + ".v"`)."""
    found: dict[str, str] = {}
    for _ in range(2):
        for names, value in _bindings(file):
            folded = _fold(value, found)
            if folded is not None and len(names) == 1:
                found.setdefault(names[0], folded)
    return found


def _stops(node: ts.Node) -> bool:
    return node.type.endswith(("_statement", "_declaration", "block", "_spec", "_case")) or (
        node.type == "source_file"
    )


def _bindings(file: TsFile) -> Iterator[Binding]:
    for node in file.nodes(
        "short_var_declaration", "assignment_statement", "var_spec", "const_spec", "range_clause"
    ):
        left = node.child_by_field_name("left") or node.child_by_field_name("name")
        right = node.child_by_field_name("right") or node.child_by_field_name("value")
        if left is None or right is None:
            continue
        names = [left] if left.type == "identifier" else list(descendants(left))
        values = right.named_children if right.type == "expression_list" else [right]
        if len(values) == len([n for n in names if n.type == "identifier"]) > 1:
            yield from (([text(n)], v) for n, v in zip(_idents(names), values, strict=False))
        elif values:
            yield [text(n) for n in _idents(names)], values[0]
    for literal in file.nodes("func_literal"):
        call = literal.parent.parent if literal.parent is not None else None
        params = literal.child_by_field_name("parameters")
        if call is not None and call.type == "call_expression" and params is not None:
            function = call.child_by_field_name("function")
            if function is not None:
                yield [text(n) for n in descendants(params, frozenset({"identifier"}))], function


def _idents(nodes: list[ts.Node]) -> list[ts.Node]:
    return [n for n in nodes if n.type == "identifier"]
