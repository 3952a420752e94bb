"""Can a test file the change added act on the base's tests? Only through what runs as it loads.

A runner loads every test file of the session together: a new `tests/test_more.py` whose module
code sets `calc.add = …`, a new `tests/__init__.py` or `conftest.py`, a new `setup.js`, all run
before the base's tests and change what they see. So the base's tests are checked without the
change's new test files (the `base-tests` run) unless every new one is inert: it holds only
imports, data and new tests whose parts that run at load time are data (additive.py's rule).

A file may put paths computed from its own location on sys.path (`sys.path.insert(0,
os.path.join(os.path.dirname(__file__), '..'))`), through the standard library's own path functions
only. An import counts as inert because the module it names runs in the evaluated run all the same,
unless that module is one the change added: a new helper imported only by the new tests would
run only in the test session. Languages other than Python and JavaScript/TypeScript: a new test
file is never taken as inert (Go's `init`, package-level `var`s with calls, build scripts).
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Collection

import tree_sitter as ts

from referee.tools import pysource
from referee.tools.tampering.additive import (
    inert_expression,
    new_test,
    script_language,
    test_statement,
)
from referee.tools.tampering.syntax import parse, text

__all__ = ["inert_new_file"]

_SCRIPT = re.compile(r"\.[cm]?[jt]sx?$")
# Files a runner loads before every test, whatever they hold.
_SETUP_NAMES = frozenset({"conftest.py", "__init__.py"})


def inert_new_file(path: str, source: str, added: Collection[str]) -> bool:
    """True when the new test file `path` cannot change how the base's tests run.

    Args:
        added: Every file the change added (an import of one of them is not inert).
    """
    stems = {_stem(p) for p in added if p != path}
    if posixpath.basename(path) in _SETUP_NAMES:
        return not source.strip()
    if path.endswith(".py"):
        return _python_inert(source, stems)
    if _SCRIPT.search(path):
        return _script_inert(path, source, stems)
    return False


def _stem(path: str) -> str:
    name = posixpath.basename(path)
    if name in ("__init__.py", "index.js", "index.ts"):
        name = posixpath.basename(posixpath.dirname(path))
    return name.split(".")[0]


def _python_inert(source: str, added: set[str]) -> bool:
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return False
    taken: set[str] = set()
    paths = _Paths()
    for index, statement in enumerate(tree.body):
        if (
            index == 0
            and isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Constant)
        ):
            continue
        if isinstance(statement, ast.Import):
            names = [a.name for a in statement.names]
        elif isinstance(statement, ast.ImportFrom):
            names = [statement.module or "", *(a.name for a in statement.names)]
        else:
            names = []
        if isinstance(statement, ast.Import | ast.ImportFrom):
            if any(part in added for n in names for part in n.split(".")):
                return False
            paths.imported(statement)
            continue
        if paths.statement(statement):
            continue
        if _data_assignment(statement) or new_test(statement, taken):
            taken |= _names(statement)
            paths.forget(_names(statement))
            continue
        return False
    return True


# What a test file may do to find the code it tests, as many do without a conftest: compute paths
# from its own location and put them on sys.path. Only these functions of the standard library,
# reached through the file's own imports of it, and these methods of the paths they return.
_PATH_CALLS = frozenset(
    {
        "os.path.join",
        "os.path.dirname",
        "os.path.abspath",
        "os.path.realpath",
        "os.path.normpath",
        "os.fspath",
        "os.getcwd",
        "pathlib.Path",
        "pathlib.PurePath",
    }
)
_PATH_METHODS = frozenset({"resolve", "absolute", "joinpath", "as_posix", "with_name"})
_SYS_PATH = frozenset({"sys.path.insert", "sys.path.append", "sys.path.extend"})
_PATH_MODULES = frozenset({"os", "os.path", "sys", "pathlib"})


class _Paths:
    """The sys.path set-up of a new test file: its names for the standard library's path modules
    and the path values it computed."""

    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}
        self.values: set[str] = set()
        self.rebound: set[str] = set()

    def forget(self, names: set[str]) -> None:
        """Names the file rebinds are no longer the standard library's (nor `str`)."""
        for name in names:
            self.aliases.pop(name, None)
            self.values.discard(name)
        self.rebound |= names

    def imported(self, statement: ast.Import | ast.ImportFrom) -> None:
        bound = {(a.asname or a.name).split(".")[0] for a in statement.names}
        self.forget(bound)
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.name in _PATH_MODULES:
                    local = alias.asname or alias.name.split(".")[0]
                    self.aliases[local] = alias.name if alias.asname else local
        elif statement.module in _PATH_MODULES and statement.level == 0:
            for alias in statement.names:
                self.aliases[alias.asname or alias.name] = f"{statement.module}.{alias.name}"

    def statement(self, statement: ast.stmt) -> bool:
        """`sys.path.insert(0, <path>)` or `HERE = <path>`, a path built from `__file__`."""
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            call = statement.value
            if self._resolved(call.func) not in _SYS_PATH or call.keywords:
                return False
            return all(self._pure(a) for a in call.args)
        if isinstance(statement, ast.Assign) and all(
            isinstance(t, ast.Name) for t in statement.targets
        ):
            if not self._pure(statement.value):
                return False
            for target in statement.targets:
                assert isinstance(target, ast.Name)
                self.aliases.pop(target.id, None)
                self.values.add(target.id)
            return True
        return False

    def _resolved(self, node: ast.expr) -> str | None:
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return None
        return ".".join([self.aliases[node.id], *reversed(parts)])

    def _pure(self, node: ast.expr) -> bool:
        for part in ast.walk(node):
            if isinstance(part, ast.Call):
                if part.keywords or not self._path_call(part.func):
                    return False
            elif isinstance(part, ast.Name):
                allowed = ("__file__", *self.aliases, *self.values)
                if part.id not in allowed and (part.id != "str" or "str" in self.rebound):
                    return False
            elif not isinstance(part, _PATH_DATA):
                return False
        return True

    def _path_call(self, func: ast.expr) -> bool:
        if self._resolved(func) in _PATH_CALLS:
            return True
        # str(…) of a path, or a path's own method: the receiver is checked as part of the walk.
        if isinstance(func, ast.Name):
            return func.id == "str" and "str" not in self.rebound
        return isinstance(func, ast.Attribute) and func.attr in _PATH_METHODS


_PATH_DATA = (
    ast.Constant,
    ast.Attribute,
    ast.Subscript,
    ast.BinOp,
    ast.Load,
    ast.Div,
    ast.Add,
    ast.Tuple,
    ast.List,
)


def _data_assignment(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Assign):
        targets, value = statement.targets, statement.value
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        targets, value = [statement.target], statement.value
    else:
        return False
    plain = all(isinstance(t, ast.Name) for t in targets)
    return plain and inert_expression(value, calls=True)


def _names(statement: ast.stmt) -> set[str]:
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {statement.name}
    return {n.id for n in ast.walk(statement) if isinstance(n, ast.Name)}


def _script_inert(path: str, source: str, added: set[str]) -> bool:
    root = parse(script_language(path), source)
    if root is None or root.has_error:
        return False
    for node in root.named_children:
        if node.type == "comment" or test_statement(node):
            continue
        specifier = _imported(node)
        if specifier is None or (specifier.startswith(".") and _stem(specifier) in added):
            return False
    return True


def _imported(node: ts.Node) -> str | None:
    """The module an `import … from 'm'` or a `const x = require('m')` names; None for any
    other statement."""
    if node.type == "import_statement":
        source = node.child_by_field_name("source")
        return _string(source)
    if node.type in ("lexical_declaration", "variable_declaration"):
        declarators = [c for c in node.named_children if c.type == "variable_declarator"]
        if len(declarators) != 1:
            return None
        value = declarators[0].child_by_field_name("value")
        if value is None or value.type != "call_expression":
            return None
        callee, args = value.child_by_field_name("function"), value.child_by_field_name("arguments")
        parts = [] if args is None else args.named_children
        if text(callee) != "require" or len(parts) != 1:
            return None
        return _string(parts[0])
    return None


def _string(node: ts.Node | None) -> str | None:
    if node is None or node.type != "string":
        return None
    return text(node)[1:-1]
