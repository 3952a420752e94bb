"""Per language: which tree-sitter node types each operator acts on, what a returned value becomes,
and which subtrees are never mutated (node type names checked against the installed grammars).

Never mutated: imports and module paths (a broken import kills every test, which says nothing),
types and annotations (most runners never check them, so the mutant would survive for no fault
of the tests), macro arguments (unparsed tokens), and test code kept in a source file (Rust's
`#[cfg(test)]` items, vitest's `if (import.meta.vitest)` block): mutating a test is no question
about the tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import tree_sitter as ts

from referee.tools.adequacy.mutants.returns import (
    go_zero,
    java_zero,
    php_zero,
    rust_default,
    script_zero,
)

__all__ = ["GRAMMARS", "Grammar", "grammar_for"]


def _never(node: ts.Node) -> bool:
    return False


@dataclass(frozen=True)
class Grammar:
    """One language's node types, by the operator that acts on them."""

    language: str
    strings: frozenset[str]
    numbers: frozenset[str]
    booleans: frozenset[str]
    calls: frozenset[str]
    functions: frozenset[str]
    """Where a returned value's declared type is found (in `type_field`)."""
    type_field: str
    zero: Callable[[str], str | None]
    skipped: frozenset[str]
    augmented: frozenset[str] = frozenset({"augmented_assignment_expression"})
    unary: frozenset[str] = frozenset({"unary_expression"})
    returns: frozenset[str] = frozenset({"return_statement"})
    binary: frozenset[str] = frozenset({"binary_expression"})
    removed_call: str = ""
    """What a removed call becomes when its statement has no `;` of its own (JS needs one)."""
    tail_values: bool = False
    """A function body's last expression is its value (Rust)."""
    format_strings: bool = False
    """A string holding `%` is a format: emptied, `go vet` (run by go test) refuses the call."""
    hidden: Callable[[ts.Node], bool] = field(default=_never)
    """Test code inside a source file."""


_TYPES = frozenset({"type_annotation", "type_arguments", "type_parameters"})


def _vitest_block(node: ts.Node) -> bool:
    if node.type != "if_statement":
        return False
    condition = node.child_by_field_name("condition")
    return condition is not None and b"import.meta.vitest" in (condition.text or b"")


def _rust_test_item(node: ts.Node) -> bool:
    """An item under `#[cfg(test)]`, `#[test]` or `#[tokio::test]` (its attributes precede it)."""
    if not node.type.endswith("_item") or node.type == "attribute_item":
        return False
    before = node.prev_named_sibling
    while before is not None and before.type in ("attribute_item", "line_comment"):
        text = (before.text or b"").decode("utf-8", "replace").replace(" ", "")
        if "cfg(test)" in text or text == "#[test]" or text.endswith("::test]"):
            return True
        before = before.prev_named_sibling
    return False


def _script(language: str) -> Grammar:
    return Grammar(
        language=language,
        strings=frozenset({"string", "template_string"}),
        numbers=frozenset({"number"}),
        booleans=frozenset({"true", "false"}),
        calls=frozenset({"call_expression"}),
        functions=frozenset(
            {
                "function_declaration",
                "function_expression",
                "arrow_function",
                "method_definition",
                "generator_function_declaration",
            }
        ),
        type_field="return_type",
        zero=script_zero,
        skipped=_TYPES
        | {
            "import_statement",
            "type_alias_declaration",
            "interface_declaration",
            "ambient_declaration",
            "abstract_method_signature",
            "decorator",
        },
        removed_call=";",
        hidden=_vitest_block,
    )


GRAMMARS: dict[str, Grammar] = {
    name: _script(name) for name in ("javascript", "typescript", "tsx")
} | {
    "go": Grammar(
        language="go",
        strings=frozenset({"interpreted_string_literal", "raw_string_literal"}),
        numbers=frozenset({"int_literal", "float_literal"}),
        booleans=frozenset({"true", "false"}),
        calls=frozenset({"call_expression"}),
        functions=frozenset({"function_declaration", "method_declaration", "func_literal"}),
        type_field="result",
        zero=go_zero,
        skipped=frozenset({"import_declaration", "type_declaration"}),
        augmented=frozenset({"assignment_statement"}),
        format_strings=True,
    ),
    "rust": Grammar(
        language="rust",
        strings=frozenset({"string_literal", "raw_string_literal"}),
        numbers=frozenset({"integer_literal", "float_literal"}),
        booleans=frozenset({"boolean_literal"}),
        calls=frozenset({"call_expression"}),
        functions=frozenset({"function_item", "closure_expression"}),
        type_field="return_type",
        zero=rust_default,
        skipped=_TYPES
        | {
            "use_declaration",
            "attribute_item",
            "inner_attribute_item",
            "token_tree",
            "macro_definition",
            "extern_crate_declaration",
            "extern_modifier",
        },
        augmented=frozenset({"compound_assignment_expr"}),
        returns=frozenset({"return_expression"}),
        tail_values=True,
        hidden=_rust_test_item,
    ),
    "java": Grammar(
        language="java",
        strings=frozenset({"string_literal"}),
        numbers=frozenset(
            {
                "decimal_integer_literal",
                "hex_integer_literal",
                "octal_integer_literal",
                "binary_integer_literal",
                "decimal_floating_point_literal",
            }
        ),
        booleans=frozenset({"true", "false"}),
        calls=frozenset({"method_invocation"}),
        functions=frozenset({"method_declaration", "lambda_expression"}),
        type_field="type",
        zero=java_zero,
        skipped=_TYPES
        | {
            "import_declaration",
            "package_declaration",
            "annotation",
            "marker_annotation",
            "annotation_type_declaration",
        },
        augmented=frozenset({"assignment_expression"}),
    ),
    "php": Grammar(
        language="php",
        strings=frozenset({"string", "encapsed_string"}),
        numbers=frozenset({"integer", "float"}),
        booleans=frozenset({"boolean"}),
        calls=frozenset(
            {
                "function_call_expression",
                "member_call_expression",
                "scoped_call_expression",
                "nullsafe_member_call_expression",
            }
        ),
        functions=frozenset(
            {"function_definition", "method_declaration", "anonymous_function", "arrow_function"}
        ),
        type_field="return_type",
        zero=php_zero,
        skipped=frozenset(
            {
                "namespace_definition",
                "namespace_use_declaration",
                "attribute_list",
                "require_expression",
                "require_once_expression",
                "include_expression",
                "include_once_expression",
                "declare_statement",
                "heredoc",
                "nowdoc",
            }
        ),
        unary=frozenset({"unary_op_expression"}),
    ),
}

_SUFFIXES = {
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".php": "php",
}


def grammar_for(path: str) -> Grammar | None:
    """The grammar of a source file's language (None: no tree-sitter mutants for it). Type
    declaration files (`.d.ts`) hold no code to mutate."""
    if path.endswith((".d.ts", ".d.mts", ".d.cts")):
        return None
    dot = path.rfind(".")
    name = _SUFFIXES.get(path[dot:].lower()) if dot >= 0 else None
    return GRAMMARS[name] if name else None
