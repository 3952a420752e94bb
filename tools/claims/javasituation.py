"""Java code that asks whether it runs under test (tools/claims/tssituation.py for the rule).

What a Java program reads of its situation: the environment and system properties (Surefire sets
its own), the stack (`Thread.currentThread().getStackTrace()`, `StackWalker`), the JVM's
arguments, whether a class can be loaded (`Class.forName("org.junit.Test")`), files read.
"""

from __future__ import annotations

from collections.abc import Iterator

import tree_sitter as ts

from referee.tools.claims.tells import Read, Tell, tell_of
from referee.tools.claims.tsfile import TsFile
from referee.tools.claims.tssituation import Asking, Binding, fold_plus
from referee.tools.tampering.syntax import descendants, text

__all__ = ["java_asking"]

_PROCESS = frozenset(
    {"getenv", "getProperty", "getProperties", "getStackTrace", "getInputArguments", "forName"}
    | {"loadClass", "getResource", "getResourceAsStream", "getCallerClass", "getAllStackTraces"}
    | {"getSystemResource", "walk"}
)
_FILE_READS = frozenset(
    {"exists", "isRegularFile", "readString", "readAllBytes", "readAllLines", "lines"}
    | {"newBufferedReader", "list"}
)
_FILES = frozenset({"File", "FileReader", "FileInputStream", "Scanner"})


def java_asking(file: TsFile) -> Asking:
    """The Java reads and tells of one file."""
    consts: dict[str, str] = {}
    source = file.role == "source"
    for names, value in _bindings(file):
        folded = _fold(value, consts)
        if folded is not None and len(names) == 1:
            consts.setdefault(names[0], folded)

    def tell(node: ts.Node) -> Tell | None:
        if node.type == "class_literal":
            value: str | None = text(node).removesuffix(".class")
        elif node.type in ("string_literal", "binary_expression", "identifier"):
            value = _fold(node, consts)
        else:
            return None
        return tell_of(value, None if source else file.scope.edited_tests) if value else None

    def read(node: ts.Node) -> Read | None:
        if node.type == "method_invocation":
            name = text(node.child_by_field_name("name"))
            if name in _PROCESS:
                return Read("process", f"{name}()")
            return Read("file", f"{name}()") if name in _FILE_READS else None
        if node.type == "object_creation_expression":
            kind = text(node.child_by_field_name("type")).rsplit(".", 1)[-1]
            return Read("file", f"new {kind}") if kind in _FILES else None
        return None

    return Asking(tell, read, _bindings, _stops)


def _fold(node: ts.Node, consts: dict[str, str]) -> str | None:
    return fold_plus(node, consts, frozenset({"string_literal"}))


def _stops(node: ts.Node) -> bool:
    return node.type.endswith(("statement", "declaration", "block", "program", "_body")) or (
        node.type == "variable_declarator"
    )


def _bindings(file: TsFile) -> Iterator[Binding]:
    for node in file.nodes("variable_declarator", "assignment_expression"):
        left = node.child_by_field_name("name") or node.child_by_field_name("left")
        right = node.child_by_field_name("value") or node.child_by_field_name("right")
        if left is not None and right is not None and left.type == "identifier":
            yield [text(left)], right
    for loop in file.nodes("enhanced_for_statement"):
        name, value = loop.child_by_field_name("name"), loop.child_by_field_name("value")
        if name is not None and value is not None:
            yield [text(name)], value
    for lambda_ in file.nodes("lambda_expression"):
        params = lambda_.child_by_field_name("parameters")
        call = lambda_.parent.parent if lambda_.parent is not None else None
        if params is not None and call is not None and call.type == "method_invocation":
            names = [params] if params.type == "identifier" else list(descendants(params))
            yield [text(n) for n in names if n.type == "identifier"], call
