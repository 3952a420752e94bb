"""Files that declare but do nothing: no test can exercise them, so none is expected.

TypeScript types-only modules (types, interfaces, `declare`, namespaces of types, type re-exports),
JS/TS barrels that only re-export, and Python modules without logic (imports, constants, `__all__`,
a docstring: the plain `__init__.py`). A parse error counts as logic (a test is still expected).
"""

from __future__ import annotations

import tree_sitter as ts

from referee.tools.static.langs import parser
from referee.tools.static.paths import parsed_language

__all__ = ["declaration_only"]

_SCRIPT_DECLARATIONS = frozenset(
    {
        "import_statement",
        "type_alias_declaration",
        "interface_declaration",
        "ambient_declaration",
        "comment",
        "empty_statement",
    }
)
_PYTHON_PLAIN = frozenset(
    {
        "import_statement",
        "import_from_statement",
        "future_import_statement",
        "comment",
        "pass_statement",
        "type_alias_statement",
    }
)
# Right-hand sides of a module-level assignment that compute nothing.
_PYTHON_LITERALS = frozenset(
    {
        "string",
        "concatenated_string",
        "integer",
        "float",
        "true",
        "false",
        "none",
        "list",
        "tuple",
        "dictionary",
        "set",
        "identifier",
        "attribute",
        "subscript",
    }
)


def declaration_only(path: str, data: bytes | None) -> bool:
    """True when the file holds declarations only (nothing a test could run)."""
    if path.endswith((".d.ts", ".d.mts", ".d.cts")):
        return True
    language = parsed_language(path)
    if data is None or language not in ("python", "javascript", "typescript", "tsx"):
        return False
    root = parser(language).parse(data).root_node
    if root.has_error:
        return False
    if language == "python":
        return all(_python_plain(n) for n in root.named_children)
    return all(_script_plain(n) for n in root.named_children)


def _script_plain(node: ts.Node) -> bool:
    if node.type in _SCRIPT_DECLARATIONS or _types_namespace(node):
        return True
    if node.type != "export_statement":
        return node.type == "expression_statement" and (
            _directive(node) or all(_types_namespace(c) for c in node.named_children)
        )
    declaration = node.child_by_field_name("declaration")
    if declaration is not None:
        return declaration.type in _SCRIPT_DECLARATIONS or _types_namespace(declaration)
    # `export * from './x'`, `export { a } from './x'`, `export type { T }`, `export { a, b }`
    return node.child_by_field_name("value") is None


def _types_namespace(node: ts.Node) -> bool:
    """`namespace X { type A = …; export interface B {} }`: a namespace of declarations only."""
    if node.type != "internal_module":
        return False
    body = node.child_by_field_name("body")
    return body is not None and all(_script_plain(n) for n in body.named_children)


def _directive(node: ts.Node) -> bool:
    """`'use strict';`, or a CommonJS re-export: `module.exports = require('./lib/x');`."""
    if node.named_child_count != 1:
        return False
    expression = node.named_children[0]
    if expression.type == "string":
        return True
    if expression.type != "assignment_expression":
        return False
    left, right = expression.child_by_field_name("left"), expression.child_by_field_name("right")
    return (
        left is not None
        and left.text is not None
        and left.text.split(b".")[0] in (b"module", b"exports")
        and right is not None
        and right.type == "call_expression"
        and _callee_text(right) == b"require"
    )


def _callee_text(call: ts.Node) -> bytes | None:
    callee = call.child_by_field_name("function")
    return callee.text if callee is not None else None


def _python_plain(node: ts.Node) -> bool:
    if node.type in _PYTHON_PLAIN:
        return True
    if node.type == "expression_statement":
        return all(_python_value(c) for c in node.named_children)
    if node.type == "if_statement":  # `if TYPE_CHECKING:` imports
        condition = node.child_by_field_name("condition")
        body = node.child_by_field_name("consequence")
        return (
            condition is not None
            and condition.text is not None
            and b"TYPE_CHECKING" in condition.text
            and body is not None
            and all(_python_plain(n) for n in body.named_children)
            and node.child_by_field_name("alternative") is None
        )
    if node.type == "try_statement":  # `try: import x except ImportError: x = None`
        return all(_python_block_plain(c) for c in node.named_children)
    return False


def _python_block_plain(node: ts.Node) -> bool:
    if node.type == "block":
        return all(_python_plain(n) for n in node.named_children)
    if node.type == "except_clause":
        return all(
            _python_block_plain(c) if c.type == "block" else c.type in _PYTHON_LITERALS
            for c in node.named_children
        )
    return False


def _python_value(node: ts.Node) -> bool:
    if node.type in _PYTHON_LITERALS:
        return True
    if node.type == "assignment":
        value = node.child_by_field_name("right")
        return value is None or _python_value(value)  # `x: int` has no value
    return False
