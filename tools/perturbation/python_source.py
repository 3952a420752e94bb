"""Perturbing Python source through its syntax tree: what it means stays, how it reads changes.

`ast.unparse` drops comments and every formatting choice; before that, docstrings go (unless the
module reads `__doc__` or runs doctests), the leading import block is sorted and grouped
(standard library, third party, relative) and function-local names become generic.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize

from referee.tools import pysource
from referee.tools.perturbation.names import rename_locals

COMMENTS = "comments removed"
DOCSTRINGS = "docstrings removed"
IMPORTS = "imports reordered"
NAMES = "local names made generic"
LAYOUT = "layout normalised"

_DOC_USERS = {"__doc__", "getdoc", "doctest"}
_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def perturb_python(text: str) -> tuple[str, list[str]]:
    """Return the perturbed source and the transforms applied.

    Args:
        text: Python source.

    Returns:
        The new source (ending in a newline) and the names of the transforms that changed something.

    Raises:
        SyntaxError: The source does not parse (ValueError for null bytes, RecursionError when too
        deep).
    """
    tree = pysource.parse(text)
    transforms = [COMMENTS] if _has_comments(text) else []
    if strip_docstrings(tree):
        transforms.append(DOCSTRINGS)
    if reorder_imports(tree):
        transforms.append(IMPORTS)
    if rename_locals(tree):
        transforms.append(NAMES)
    out = _shebang(text) + ast.unparse(tree) + "\n"
    if out != text and LAYOUT not in transforms:
        transforms.append(LAYOUT)
    return out, transforms


def _has_comments(text: str) -> bool:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return "#" in text
    return any(t.type == tokenize.COMMENT and not t.string.startswith("#!") for t in tokens)


def _shebang(text: str) -> str:
    # The interpreter line makes a script executable; it is the one comment worth keeping.
    first = text.split("\n", 1)[0]
    return first + "\n" if first.startswith("#!") else ""


def strip_docstrings(tree: ast.Module) -> int:
    """Remove module, class and function docstrings in place (none when the code reads docstrings).

    Returns:
        How many docstrings were removed.
    """
    if _reads_docstrings(tree):
        return 0
    removed = 0
    for node in ast.walk(tree):
        if isinstance(node, _DOCUMENTED) and _docstring_first(node.body):
            node.body.pop(0)
            node.body = node.body or [ast.Pass()]
            removed += 1
    return removed


def _docstring_first(body: list[ast.stmt]) -> bool:
    first = body[0] if body else None
    return (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )


def _reads_docstrings(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in _DOC_USERS:
            return True
        if isinstance(node, ast.Attribute) and node.attr in _DOC_USERS:
            return True
        if isinstance(node, ast.Constant) and node.value == "__doc__":
            return True
        if isinstance(node, ast.Import | ast.ImportFrom) and _imports_doctest(node):
            return True
    return False


def _imports_doctest(node: ast.Import | ast.ImportFrom) -> bool:
    modules = (
        [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
    )
    return any(m.split(".")[0] == "doctest" for m in modules)


def reorder_imports(tree: ast.Module) -> bool:
    """Sort and group the import block at the top of the module, in place.

    Only the contiguous imports before the first other statement move (code between imports, such
    as a `sys.path` change, may be what makes a later import work), `from __future__` stays first,
    and nothing moves when two imports bind the same name (the order decides which one wins).

    Returns:
        Whether the order changed.
    """
    start = _block_start(tree.body)
    end = start
    while end < len(tree.body) and isinstance(tree.body[end], ast.Import | ast.ImportFrom):
        end += 1
    block: list[ast.Import | ast.ImportFrom] = [
        n for n in tree.body[start:end] if isinstance(n, (ast.Import, ast.ImportFrom))
    ]
    if not block or _rebinds(block):
        return False
    before = [ast.dump(node) for node in block]
    for node in block:
        node.names.sort(key=lambda a: (a.name, a.asname or ""))
    ordered = sorted(block, key=_import_key)
    tree.body[start:end] = ordered
    return [ast.dump(node) for node in tree.body[start:end]] != before


def _block_start(body: list[ast.stmt]) -> int:
    start = 1 if _docstring_first(body) else 0
    while start < len(body) and _is_future(body[start]):
        start += 1
    return start


def _is_future(node: ast.stmt) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


def _rebinds(block: list[ast.Import | ast.ImportFrom]) -> bool:
    bound = [(a.asname or a.name).split(".")[0] for node in block for a in node.names]
    return len(bound) != len(set(bound)) or "*" in bound


def _import_key(node: ast.Import | ast.ImportFrom) -> tuple[int, int, str]:
    if isinstance(node, ast.ImportFrom):
        module = node.module or ""
        return _group(module, node.level), 1, "." * node.level + module
    module = node.names[0].name
    return _group(module, 0), 0, module


def _group(module: str, level: int) -> int:
    if level:
        return 2
    return 0 if module.split(".")[0] in sys.stdlib_module_names else 1
