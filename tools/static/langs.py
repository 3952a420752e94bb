"""Per-language tree-sitter node types that the structure walker counts.

Categories (names differ per grammar, checked against the installed grammar wheels):
- `functions` start a new function scope (nested functions and lambdas are measured on their own);
- `depth` nodes add a nesting level (if, loops, switch, try, with, match);
- `cognitive` nodes add `1 + nesting` to cognitive complexity and nest what they contain
  (if, loops, switch, catch, ternary), as in SonarSource's definition;
- `ifs` get the else / else-if treatment (`else` +1, `else if` +1 and no extra level);
- `descend`, when set, limits the walk to statement containers (Python, whose cognitive
  complexity comes from complexipy, needs no expression nodes).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import tree_sitter as ts

_C_LIKE_LOOPS = frozenset({"for_statement", "while_statement", "do_statement"})


@dataclass(frozen=True)
class LangSpec:
    """Node types of one grammar, by role in the structure checks."""

    functions: frozenset[str]
    depth: frozenset[str]
    cognitive: frozenset[str]
    ifs: frozenset[str]
    logical: frozenset[str] = frozenset({"&&", "||"})
    binary: str = "binary_expression"
    descend: frozenset[str] | None = None

    @property
    def roles(self) -> frozenset[str]:
        """Every node type the walker acts on."""
        return _roles(self)


@cache
def _roles(spec: LangSpec) -> frozenset[str]:
    # Cached: a frozen dataclass is hashable, and the walker asks for this once per node.
    return spec.functions | spec.depth | spec.cognitive | spec.ifs | {spec.binary}


_PYTHON = LangSpec(
    functions=frozenset({"function_definition"}),
    depth=frozenset(
        {
            "if_statement",
            "for_statement",
            "while_statement",
            "try_statement",
            "with_statement",
            "match_statement",
        }
    ),
    cognitive=frozenset(),
    ifs=frozenset(),
    descend=frozenset(
        {
            "module",
            "block",
            "if_statement",
            "elif_clause",
            "else_clause",
            "for_statement",
            "while_statement",
            "try_statement",
            "except_clause",
            "except_group_clause",
            "finally_clause",
            "with_statement",
            "match_statement",
            "case_clause",
            "function_definition",
            "class_definition",
            "decorated_definition",
        }
    ),
)
_JS_FUNCTIONS = frozenset(
    {
        "function_declaration",
        "function_expression",
        "arrow_function",
        "method_definition",
        "generator_function_declaration",
        "generator_function",
    }
)
_JS_LOOPS = _C_LIKE_LOOPS | {"for_in_statement"}
_JS = LangSpec(
    functions=_JS_FUNCTIONS,
    depth=_JS_LOOPS | {"if_statement", "switch_statement", "try_statement"},
    cognitive=_JS_LOOPS
    | {"if_statement", "switch_statement", "catch_clause", "ternary_expression"},
    ifs=frozenset({"if_statement"}),
)
_GO_SWITCHES = frozenset(
    {"expression_switch_statement", "type_switch_statement", "select_statement"}
)
_GO = LangSpec(
    functions=frozenset({"function_declaration", "method_declaration", "func_literal"}),
    depth=_GO_SWITCHES | {"if_statement", "for_statement"},
    cognitive=_GO_SWITCHES | {"if_statement", "for_statement"},
    ifs=frozenset({"if_statement"}),
)
_JAVA_LOOPS = _C_LIKE_LOOPS | {"enhanced_for_statement"}
_JAVA = LangSpec(
    functions=frozenset(
        {
            "method_declaration",
            "constructor_declaration",
            "compact_constructor_declaration",
            "lambda_expression",
        }
    ),
    depth=_JAVA_LOOPS
    | {
        "if_statement",
        "switch_expression",
        "switch_statement",
        "try_statement",
        "try_with_resources_statement",
    },
    cognitive=_JAVA_LOOPS
    | {
        "if_statement",
        "switch_expression",
        "switch_statement",
        "catch_clause",
        "ternary_expression",
    },
    ifs=frozenset({"if_statement"}),
)
_RUST_BRANCHES = frozenset(
    {"if_expression", "for_expression", "while_expression", "loop_expression", "match_expression"}
)
_RUST = LangSpec(
    functions=frozenset({"function_item", "closure_expression"}),
    depth=_RUST_BRANCHES,
    cognitive=_RUST_BRANCHES,
    ifs=frozenset({"if_expression"}),
)
_C_BRANCHES = _C_LIKE_LOOPS | {"if_statement", "switch_statement"}
_C = LangSpec(
    functions=frozenset({"function_definition"}),
    depth=_C_BRANCHES,
    cognitive=_C_BRANCHES | {"conditional_expression"},
    ifs=frozenset({"if_statement"}),
)
_CPP = LangSpec(
    functions=frozenset({"function_definition", "lambda_expression"}),
    depth=_C_BRANCHES | {"for_range_loop", "try_statement"},
    cognitive=_C_BRANCHES | {"for_range_loop", "catch_clause", "conditional_expression"},
    ifs=frozenset({"if_statement"}),
    logical=frozenset({"&&", "||", "and", "or"}),
)
SPECS: dict[str, LangSpec] = {
    "python": _PYTHON,
    "javascript": _JS,
    "typescript": _JS,
    "tsx": _JS,
    "go": _GO,
    "java": _JAVA,
    "rust": _RUST,
    "c": _C,
    "cpp": _CPP,
}


_GRAMMARS = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "php": ("tree_sitter_php", "language_php"),
}


def _grammar(name: str) -> Callable[[], object]:
    # Imported lazily: a run over Go files never loads the C++ grammar.
    module, function = _GRAMMARS.get(name, _GRAMMARS["cpp"])
    grammar: Callable[[], object] = getattr(importlib.import_module(module), function)
    return grammar


@cache
def language(name: str) -> ts.Language:
    """The tree-sitter Language for one of `SPECS`' names (immutable, shared by threads)."""
    return ts.Language(_grammar(name)())


_local = threading.local()


def parser(name: str) -> ts.Parser:
    """A parser for `name`, one per thread: tree-sitter parsers must not be shared across
    threads."""
    parsers: dict[str, ts.Parser] = _local.__dict__.setdefault("parsers", {})
    if name not in parsers:
        parsers[name] = ts.Parser(language(name))
    return parsers[name]
