"""Source files that hold nothing but values: when only the tests read one, it is their data.

A test's expected values can live in a module of the project's own language
(`calc_cases.py: CASES = [(1, 2, 3)]`, a Go `var Cases = …` file, a Java class of constants). A
change that rewrites them to the broken results edits the test without touching a test file. Such
a module is the tests' data, not the code under test, when it holds no behaviour (only names bound
to literal values: no function, method, call or class beyond a holder of constants) and, at base,
a test file names it and no other source file of its language does (change_tests.py asks). A
module that the code reads as well, or that computes anything, stays code: a change to it may be
the fix.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

import tree_sitter as ts

from referee.tools.static.paths import language_of, stem_of
from referee.tools.tampering.additive import script_language
from referee.tools.tampering.syntax import descendants, parse, text

__all__ = ["data_names", "names_in"]

# Nodes that run something or define behaviour: a module holding one is code.
_BEHAVIOUR = {
    "go": frozenset(
        {
            "call_expression",
            "func_literal",
            "function_declaration",
            "method_declaration",
            "type_declaration",
            "go_statement",
        }
    ),
    "java": frozenset(
        {
            "method_invocation",
            "object_creation_expression",
            "lambda_expression",
            "method_declaration",
            "constructor_declaration",
            "static_initializer",
            "block",
            "method_reference",
        }
    ),
    "script": frozenset(
        {
            "call_expression",
            "new_expression",
            "arrow_function",
            "function",
            "function_expression",
            "function_declaration",
            "generator_function",
            "generator_function_declaration",
            "class",
            "class_declaration",
            "method_definition",
            "getter",
            "setter",
            "import_statement",
            "await_expression",
            "tagged_template_expression",
        }
    ),
}
_SCRIPT_TOP = frozenset(
    {
        "comment",
        "export_statement",
        "lexical_declaration",
        "variable_declaration",
        "expression_statement",
        "empty_statement",
    }
)
_MIN_NAME = 4


def data_names(path: str, source: str) -> tuple[str, ...]:
    """The names other files read a data-only module by (its module or class name; Go: the names
    it declares), or none when the file holds behaviour or is no module of a known language."""
    language = language_of(path)
    names: tuple[str, ...]
    if language == "python":
        names = (stem_of(path),) if _python_data(source) and stem_of(path) != "__init__" else ()
    elif language == "go":
        names = _go_data(source)
    elif language == "java":
        names = (stem_of(path),) if _java_data(source) else ()
    elif language in ("javascript", "typescript"):
        names = (stem_of(path),) if _script_data(script_language(path), source) else ()
    else:
        names = ()
    return tuple(n for n in names if len(n) >= _MIN_NAME)


def names_in(names: Iterable[str], texts: Iterable[str]) -> bool:
    """Whether any of the texts spells one of the names as a word."""
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b")
    return any(pattern.search(t) for t in texts)


def _python_data(source: str) -> bool:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    bound = False
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if value is None or not _python_literal(value):
            return False
        bound = True
    return bound


_PY_LITERALS = (
    ast.Constant,
    ast.List,
    ast.Tuple,
    ast.Set,
    ast.Dict,
    ast.Name,
    ast.Load,
    ast.UnaryOp,
    ast.BinOp,
    ast.operator,
    ast.unaryop,
)


def _python_literal(node: ast.AST) -> bool:
    """Constants, containers of them and arithmetic on them; names of the module's values
    (no call, attribute, comprehension, lambda or subscript: nothing that runs code)."""
    return all(isinstance(n, _PY_LITERALS) for n in ast.walk(node))


def _go_data(source: str) -> tuple[str, ...]:
    root = parse("go", source)
    if root is None or root.has_error or _holds(root, _BEHAVIOUR["go"]):
        return ()
    names: list[str] = []
    for child in root.named_children:
        if child.type in ("var_declaration", "const_declaration"):
            specs = descendants(child, frozenset({"var_spec", "const_spec"}))
            names += [text(n) for s in specs for n in s.children_by_field_name("name")]
        elif child.type not in ("package_clause", "comment", "import_declaration"):
            return ()
    return tuple(names)


def _java_data(source: str) -> bool:
    root = parse("java", source)
    if root is None or root.has_error or _holds(root, _BEHAVIOUR["java"]):
        return False
    kinds = [c.type for c in root.named_children if c.type not in ("line_comment", "block_comment")]
    classes = [
        c for c in root.named_children if c.type in ("class_declaration", "interface_declaration")
    ]
    if len(classes) != 1 or set(kinds) - {
        "package_declaration",
        "import_declaration",
        classes[0].type,
    }:
        return False
    body = classes[0].child_by_field_name("body")
    members = [c for c in body.named_children if "comment" not in c.type] if body else []
    fields = ("field_declaration", "constant_declaration")
    return bool(members) and all(m.type in fields for m in members)


def _script_data(language: str, source: str) -> bool:
    root = parse(language, source)
    if root is None or root.has_error or _holds(root, _BEHAVIOUR["script"]):
        return False
    top = [c for c in root.named_children if c.type != "comment"]
    # A re-export (`export * from './a'`, `export { b } from './b'`) is an index of code.
    reexports = [c for c in top if c.child_by_field_name("source") is not None]
    return bool(top) and not reexports and all(c.type in _SCRIPT_TOP for c in top)


def _holds(root: ts.Node, kinds: frozenset[str]) -> bool:
    return any(True for _ in descendants(root, kinds))
