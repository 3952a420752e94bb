"""Source files that define no behaviour: when only the tests read one, it is their data.

A test's expected values can live in a module of the project's own language
(`calc_cases.py: CASES = [(1, 2, 3)]`, a Go `var Cases = …` file, a Java class or enum of
constants). A change that rewrites them to the broken results edits the test without touching a
test file. Such a module is the tests' data, not the code under test, when

- it defines no behaviour: names bound to values, however the values are built (`list(…)`,
  `Decimal("1.5")`, `List.of(…)`, `Object.freeze(…)`), types and holders of constants (a Python
  class or Enum of assignments, a Go struct type, a Java enum or record whose constructor only
  stores its arguments), but no function, method or lambda: nothing the code under test could
  be;
- at base, a test file names it (its module, package or class name; Go: a name it declares), and
  no non-test source file of its language reads it: imports it (Python: an `import` or a string
  naming the module; JS/TS: an import specifier), or names it in code (Go, Java), comments and
  docstrings aside (change_tests.py asks).

A module that the code reads as well, or that defines behaviour, stays code: a change to it may be
the fix. A name a test builds at run time (`import_module('calc_' + 'cases')`) escapes this
reading.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

import tree_sitter as ts

from referee.tools import pysource
from referee.tools.static.paths import language_of, stem_of
from referee.tools.tampering.syntax import descendants, parse, script_language, text

__all__ = ["data_names", "names_in", "read_by_code"]

# Nodes that define behaviour: a module holding one is code.
_BEHAVIOUR = {
    "go": frozenset({"func_literal", "function_declaration", "method_declaration"}),
    "java": frozenset(
        {"method_declaration", "lambda_expression", "static_initializer", "method_reference"}
    ),
    "script": frozenset(
        {
            "arrow_function",
            "function",
            "function_expression",
            "function_declaration",
            "generator_function",
            "generator_function_declaration",
            "method_definition",
            "getter",
            "setter",
            "class_static_block",
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
        "enum_declaration",
        "type_alias_declaration",
        "interface_declaration",
        "import_statement",
    }
)
_JAVA_TYPES = frozenset(
    {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration"}
)
_MIN_NAME = 3
_COMMENTS = {
    "go": re.compile(r"//[^\n]*|/\*.*?\*/", re.S),
    "java": re.compile(r"//[^\n]*|/\*.*?\*/", re.S),
}


def data_names(path: str, source: str) -> tuple[str, ...]:
    """The names other files read a behaviour-free module by (its module, package or class name;
    Go: the names it declares), or none when the file defines behaviour or is no module of a
    language read here."""
    language = language_of(path)
    names: tuple[str, ...]
    if language == "python":
        names = (_python_name(path),) if _python_data(source) else ()
    elif language == "go":
        names = _go_data(source)
    elif language == "java":
        names = (stem_of(path),) if _java_data(source) else ()
    elif language in ("javascript", "typescript"):
        names = (_script_name(path),) if _script_data(script_language(path), source) else ()
    else:
        names = ()
    return tuple(n for n in names if len(n) >= _MIN_NAME)


def names_in(names: Iterable[str], texts: Iterable[str]) -> bool:
    """Whether any of the texts spells one of the names as a word."""
    pattern = _words(names)
    return any(pattern.search(t) for t in texts)


def read_by_code(path: str, names: tuple[str, ...], reader: str, source: str) -> bool:
    """Whether the non-test source file `reader` (its text `source`) reads the module `path`
    (named `names`): an import or a code mention, never a comment or a docstring."""
    language = language_of(path)
    if language == "python" and _relative_import(path, reader, source):
        return True  # `from . import DEFAULTS` in the package's own code
    if not names_in(names, [source]):
        return False  # the quick look: the file does not even spell it
    if language == "python":
        return _python_imports(names, source)
    if language in ("javascript", "typescript"):
        specifier = "|".join(re.escape(n) for n in names)
        pattern = rf"""['"`][^'"`\n]*(?<![\w-])({specifier})(\.[\w.]+)?['"`]"""
        return re.search(pattern, source) is not None
    comments = _COMMENTS.get(language or "")
    code = comments.sub(" ", source) if comments else source
    return names_in(names, [code])


def _words(names: Iterable[str]) -> re.Pattern[str]:
    return re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b")


def _script_name(path: str) -> str:
    """A module's import name: its stem, or its folder's for an `index` file (`./constants`)."""
    stem = stem_of(path)
    return path.rsplit("/", 2)[-2] if stem == "index" and "/" in path else stem


def _python_name(path: str) -> str:
    """A module's import name: its stem, or its package's for an `__init__.py`."""
    stem = stem_of(path)
    return path.rsplit("/", 2)[-2] if stem == "__init__" and "/" in path else stem


def _python_data(source: str) -> bool:
    """Assignments, absolute imports, a docstring and classes of assignments (a holder of
    constants, an Enum): no def, lambda or relative import."""
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return False
    bound = False
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return False
        if isinstance(node, ast.ImportFrom) and (
            node.level or any(a.name == "*" for a in node.names)
        ):
            return False  # the package's own code, or everything of another module
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if isinstance(node, ast.ClassDef) and _holder(node):
            bound = True
            continue
        if not isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            return False
        bound = True
    return bound


# Bases a holder of constants may have: none of them brings behaviour of the project's.
_PLAIN_BASES = frozenset(
    {"object", "Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "NamedTuple", "TypedDict"}
)


def _holder(node: ast.ClassDef) -> bool:
    """A class of assignments alone, with no base but `object` or an Enum's: one that extends
    another class is that class's code (a Faker locale's `Provider(BaseProvider)`)."""
    for base in node.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", None)
        if name not in _PLAIN_BASES:
            return False
    body = [
        s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    return all(isinstance(s, ast.Assign | ast.AnnAssign | ast.Pass) for s in body)


def _relative_import(path: str, reader: str, source: str) -> bool:
    """Whether `reader` imports the module `path` relatively (`from . import X` in its package,
    `from .cases import X`, `from .. import cases`)."""
    if "from ." not in source:
        return False
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return True
    wanted = _module_of(path)
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or not node.level:
            continue
        package = reader.rsplit("/", 1)[0] if "/" in reader else ""
        for _ in range(node.level - 1):
            package = package.rsplit("/", 1)[0] if "/" in package else ""
        base = "/".join(p for p in [package, *(node.module or "").split(".")] if p)
        if base == wanted or any(f"{base}/{a.name}".lstrip("/") == wanted for a in node.names):
            return True
    return False


def _module_of(path: str) -> str:
    """`pkg/cases.py` and `pkg/cases/__init__.py` are the module `pkg/cases`."""
    return path.removesuffix(".py").removesuffix("/__init__")


def _python_imports(names: tuple[str, ...], source: str) -> bool:
    """An import whose dotted path holds one of the names, or a string that is one (a module
    named for `importlib`, `DJANGO_SETTINGS_MODULE`)."""
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return True  # unreadable: taken as reading it, so the module stays the code's
    wanted = set(names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            dotted = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            dotted = [f"{node.module or ''}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            dotted = [node.value] if len(node.value) < 200 else []
        else:
            continue
        if any(wanted & set(d.split(".")) for d in dotted):
            return True
    return False


def _go_data(source: str) -> tuple[str, ...]:
    root = parse("go", source)
    if root is None or root.has_error or _holds(root, _BEHAVIOUR["go"]):
        return ()
    names: list[str] = []
    for child in root.named_children:
        if child.type in ("var_declaration", "const_declaration", "type_declaration"):
            specs = descendants(child, frozenset({"var_spec", "const_spec", "type_spec"}))
            names += [text(n) for s in specs for n in s.children_by_field_name("name")]
        elif child.type not in ("package_clause", "comment", "import_declaration"):
            return ()
    return tuple(names)


def _java_data(source: str) -> bool:
    root = parse("java", source)
    if root is None or root.has_error or _holds(root, _BEHAVIOUR["java"]):
        return False
    top = [c for c in root.named_children if "comment" not in c.type]
    types = [c for c in top if c.type in _JAVA_TYPES]
    rest = {c.type for c in top if c not in types} - {"package_declaration", "import_declaration"}
    if len(types) != 1 or rest:
        return False
    constructors = descendants(types[0], frozenset({"constructor_declaration"}))
    return all(_only_stores(c) for c in constructors)


def _only_stores(constructor: ts.Node) -> bool:
    """A constructor whose body only assigns (`this.a = a;`): a record's or an enum's fields."""
    body = constructor.child_by_field_name("body")
    statements = [s for s in body.named_children if "comment" not in s.type] if body else []
    return all(
        s.type == "expression_statement"
        and s.named_children
        and s.named_children[0].type == "assignment_expression"
        for s in statements
    )


def _script_data(language: str, source: str) -> bool:
    root = parse(language, source)
    if root is None or root.has_error or _holds(root, _BEHAVIOUR["script"]):
        return False
    top = [c for c in root.named_children if c.type != "comment"]
    # A re-export (`export * from './a'`, `export { b } from './b'`) is an index of code.
    reexports = [c for c in top if c.type == "export_statement" and c.child_by_field_name("source")]
    values = [c for c in top if c.type != "import_statement"]
    return bool(values) and not reexports and all(c.type in _SCRIPT_TOP for c in top)


def _holds(root: ts.Node, kinds: frozenset[str]) -> bool:
    return any(True for _ in descendants(root, kinds))
