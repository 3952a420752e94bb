"""Java code read with tree-sitter.

Ends the run: `System.exit` (test code), `Runtime.getRuntime().halt/exit`, killing the current
process handle. Forges the report: Surefire's `Tests run: N, Failures: 0` and the other protocol
lines printed. Replaces the code under test: Mockito `mock`/`spy`/`mockStatic`/
`mockConstruction` of a class the change wrote, `@Mock`/`@Spy`/`@MockBean` fields of its type.
Inspects: `.git`, `/proc`, a source file read, the environment deciding a branch.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

import tree_sitter as ts

from referee.tools.claims import messages as M
from referee.tools.claims.equality import comparator_literals, ts_equalities
from referee.tools.claims.javasituation import java_asking
from referee.tools.claims.model import (
    CODE_UNDER_TEST_PATCHED,
    HARNESS_MODIFIED,
    TEST_INSPECTS_ENVIRONMENT,
    Claim,
    Module,
    Role,
    Scope,
)
from referee.tools.claims.patterns import (
    names_runner,
    names_source,
    protocol_line,
    reveals_environment,
)
from referee.tools.claims.tsfile import TsFile, open_file, unquote
from referee.tools.claims.tssituation import asked
from referee.tools.tampering.syntax import descendants, text

__all__ = ["java_claims"]

_MOCKS = frozenset({"mock", "spy", "mockStatic", "mockConstruction", "mockConstructionWithAnswer"})
_MOCK_FIELDS = frozenset({"Mock", "Spy", "MockBean", "SpyBean", "MockitoBean", "MockitoSpyBean"})
_PRINT = frozenset({"println", "print", "printf", "format", "write"})
_READS = frozenset({"readString", "readAllBytes", "readAllLines", "lines", "newBufferedReader"})


def java_claims(path: str, source: str, scope: Scope, role: Role) -> list[Claim] | None:
    file = open_file("java", path, source, scope, role)
    if file is None:
        return None
    found = [*_escapes(file), *asked(file, java_asking(file))]
    if role == "test":
        found += [*_mocks(file), *_inspections(file)]
    else:
        found += [*ts_equalities(file, "java"), *comparator_literals(file, "java")]
    return found


def _escapes(file: TsFile) -> Iterator[Claim]:
    test = file.role == "test"
    for call in file.nodes("method_invocation"):
        name = text(call.child_by_field_name("name"))
        owner = text(call.child_by_field_name("object")).replace(" ", "")
        runtime = owner.endswith("getRuntime()") and name in ("halt", "exit")
        handle = owner.startswith("ProcessHandle.current()") and name.startswith("destroy")
        if (
            runtime
            or handle
            or (test and owner in ("System", "java.lang.System") and name == "exit")
        ):
            yield file.claim(
                HARNESS_MODIFIED,
                call,
                M.ended(f"{owner}.{name}"),
            )
        elif name in _PRINT and owner.startswith(("System.out", "System.err")):
            for literal in descendants(call, frozenset({"string_literal"})):
                line = protocol_line(unquote(literal) or "")
                if line is not None:
                    yield file.claim(
                        HARNESS_MODIFIED,
                        call,
                        M.printed(line),
                    )
                    break
    for literal in file.nodes("string_literal"):
        runner = names_runner(unquote(literal) or "")
        if runner is not None:
            yield file.claim(HARNESS_MODIFIED, literal, M.runner(runner))


def _classes(scope: Scope) -> dict[str, Module]:
    """Each class a changed Java file declares or changes (its file's name, and changed names)."""
    found: dict[str, Module] = {}
    for module in scope.changed():
        if module.path.endswith(".java"):
            found[posixpath.basename(module.path).removesuffix(".java")] = module
            for name in module.names:
                found.setdefault(name.split(".")[0], module)
    return found


def _mocks(file: TsFile) -> Iterator[Claim]:
    classes = _classes(file.scope)
    for call in file.nodes("method_invocation"):
        if text(call.child_by_field_name("name")) not in _MOCKS:
            continue
        args = call.child_by_field_name("arguments")
        for literal in descendants(args, frozenset({"class_literal"})) if args is not None else []:
            name = text(literal).removesuffix(".class").rsplit(".", 1)[-1]
            if name in classes:
                yield _patched(file, call, name, classes[name])
    for field in file.nodes("field_declaration"):
        marks = [
            text(a.child_by_field_name("name"))
            for a in descendants(field, frozenset({"marker_annotation", "annotation"}))
        ]
        kind = text(field.child_by_field_name("type")).split("<")[0].rsplit(".", 1)[-1]
        if set(marks) & _MOCK_FIELDS and kind in classes:
            yield _patched(file, field, kind, classes[kind])


def _patched(file: TsFile, node: ts.Node, name: str, module: Module) -> Claim:
    return file.claim(
        CODE_UNDER_TEST_PATCHED,
        node,
        M.patched_written(f"`{name}` with a mock", module.path),
    )


def _inspections(file: TsFile) -> Iterator[Claim]:
    for literal in file.nodes("string_literal"):
        value = unquote(literal) or ""
        where = reveals_environment(value)
        if where is not None:
            yield file.claim(TEST_INSPECTS_ENVIRONMENT, literal, M.looks_at(where))
        elif names_source(value, file.scope, file.path) is not None and _read(literal):
            yield file.claim(
                TEST_INSPECTS_ENVIRONMENT,
                literal,
                M.reads("a source file of the change"),
            )
    for node in file.nodes("if_statement", "ternary_expression"):
        condition = node.child_by_field_name("condition")
        if condition is not None and any(
            text(c.child_by_field_name("name")) in ("getenv", "getProperty")
            for c in descendants(condition, frozenset({"method_invocation"}))
        ):
            yield file.claim(
                TEST_INSPECTS_ENVIRONMENT,
                condition,
                M.decides("the environment"),
            )


def _read(literal: ts.Node) -> bool:
    parent = literal.parent
    while parent is not None and parent.type not in (
        "expression_statement",
        "local_variable_declaration",
        "block",
    ):
        if (
            parent.type == "method_invocation"
            and text(parent.child_by_field_name("name")) in _READS
        ):
            return True
        if (
            parent.type == "object_creation_expression"
            and "Reader" in text(parent.child_by_field_name("type"))
        ) or (
            parent.type == "object_creation_expression"
            and "InputStream" in text(parent.child_by_field_name("type"))
        ):
            return True
        parent = parent.parent
    return False
