"""The code under test of a change: the project's source files, and in each the top-level names
the change defined or modified (compared by parsed structure with base)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import tree_sitter as ts

from referee.tools.claims.model import Module, Scope
from referee.tools.claims.pyscope import python_definitions
from referee.tools.claims.pyvarying import varying_helpers
from referee.tools.claims.tsfile import tokens
from referee.tools.static.paths import language_of as any_language_of
from referee.tools.tampering.syntax import parse, text

__all__ = ["build_scope", "is_test_code", "language_of"]

_TEST_FILE = re.compile(
    r"(^|/)(test_[^/]*\.py|[^/]*_test\.py|conftest\.py|[^/]*\.(test|spec)\.[cm]?[jt]sx?"
    r"|[^/]*_test\.go|[^/]*Tests?\.(java|php)|Test[^/]*\.java|[^/]*IT\.java)$"
)
_TEST_FOLDER = re.compile(r"(^|/)(tests?|__tests__|__mocks__|specs?|testing|benches)/")
_FIXTURES = re.compile(r"(^|/)(fixtures?|__fixtures__|testdata)/")
# The languages whose code the claims readers parse (static/paths.py names the extensions).
_CLAIM_LANGUAGES = frozenset(
    {"python", "javascript", "typescript", "tsx", "go", "rust", "java", "php"}
)
_DECLARATIONS = frozenset(
    {"function_declaration", "generator_function_declaration", "class_declaration"}
    | {"method_declaration", "type_declaration", "function_item", "struct_item", "enum_item"}
    | {
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
        "abstract_class_declaration",
    }
)
_CONTAINERS = frozenset(
    {"export_statement", "lexical_declaration", "variable_declaration", "var_declaration"}
    | {"const_declaration"}
)


def language_of(path: str) -> str | None:
    language = any_language_of(path)
    return language if language in _CLAIM_LANGUAGES else None


def is_test_code(path: str) -> bool:
    """Test files, and every file in a test folder (helpers, conftest), but for fixtures: the
    programs a test spawns (`test/fixtures/exit.js`) end with exit codes as any program does,
    so they are read as the code under test is (hard exits, computed spellings still count)."""
    if _FIXTURES.search(path) and not _TEST_FILE.search(path):
        return False
    return bool(_TEST_FILE.search(path) or _TEST_FOLDER.search(path))


def build_scope(
    files: Iterable[str],
    changed: Iterable[str],
    before: Callable[[str], str | None],
    after: Callable[[str], str | None],
) -> Scope:
    """The project's source files, with the names the change wrote in the changed ones.

    Args:
        files: The project's files now (changed ones are added when missing).
        changed: The files changed since base.
        before: A file's text at base (None when it did not exist).
        after: A file's text now (None when it was deleted).
    """
    changed = set(changed)
    modules = []
    edited = []
    varying: list[tuple[str, str]] = []
    for path in sorted(set(files) | changed):
        language = language_of(path)
        if language is not None and is_test_code(path) and path in changed:
            old = before(path)
            if old is not None and old != after(path):
                edited.append(path)
            now_text = after(path)
            if language == "python" and now_text is not None:
                varying += sorted(varying_helpers(path, now_text).items())
        if language is None or is_test_code(path):
            continue
        names: frozenset[str] = frozenset()
        if path in changed:
            now = after(path)
            if now is None:
                continue
            names = _written(language, before(path), now)
        modules.append(Module(path, names))
    return Scope(tuple(modules), tuple(edited), tuple(varying))


def _written(language: str, base: str | None, now: str) -> frozenset[str]:
    current = definitions(language, now)
    old = definitions(language, base) if base is not None else {}
    return frozenset(name for name, shape in current.items() if old.get(name) != shape)


def definitions(language: str, source: str) -> dict[str, str]:
    """Each top-level name of a source file with its structure (empty when unreadable)."""
    if language == "python":
        return python_definitions(source) or {}
    if language == "php":
        return {}
    root = parse(language, source)
    found: dict[str, str] = {}
    if root is not None:
        for node in root.named_children:
            _define(node, found, "")
    return found


def _define(node: ts.Node, found: dict[str, str], owner: str) -> None:
    if node.type in _CONTAINERS or node.type == "type_declaration":
        for child in node.named_children:
            _define(child, found, owner)
        return
    if node.type == "expression_statement":
        _exported(node, found)
        return
    name = node.child_by_field_name("name")
    if name is None:
        return
    shape = tokens(node)
    if node.type == "method_declaration" and node.child_by_field_name("receiver") is not None:
        receiver = text(node.child_by_field_name("receiver")).split()[-1].strip("*()")
        found[f"{receiver}.{text(name)}"] = shape
    if node.type in _DECLARATIONS or node.type in (
        "variable_declarator",
        "var_spec",
        "type_spec",
        "const_spec",
    ):
        found[f"{owner}{text(name)}"] = shape
    body = node.child_by_field_name("body")
    if body is not None and node.type.startswith(
        ("class", "interface", "enum", "record", "abstract")
    ):
        for member in body.named_children:
            member_name = member.child_by_field_name("name")
            if member_name is not None:
                found[f"{text(name)}.{text(member_name)}"] = tokens(member)


def _exported(node: ts.Node, found: dict[str, str]) -> None:
    """`module.exports.add = …`, `exports.add = …`, `module.exports = {…}` (CommonJS)."""
    expression = node.named_children[0] if node.named_children else None
    if expression is None or expression.type != "assignment_expression":
        return
    left = text(expression.child_by_field_name("left"))
    if left.startswith(("module.exports.", "exports.")):
        found[left.rsplit(".", 1)[-1]] = tokens(expression)
    elif left == "module.exports":
        found["default"] = tokens(expression)
