"""Python code that writes through the interpreter's reflection.

A caller's frame (`sys._getframe`, `inspect.currentframe().f_back`, a traceback's `tb_frame`) and
the garbage collector's object graph (`gc.get_objects`, `gc.get_referents`) reach every object
of the process without naming it: the test module's globals, the runner's classes and plugins,
a test case's own tables. A write there replaces what the tests judge with under no name any
other reader can follow (`frame.f_globals["CHECKER_CLASS"] = …`, `gc.get_referents(vars(C))[0]
[name] = …`, a plugin registered on the pluginmanager found by its type's name), and it can
undo itself before anything looks. The class is the write, not the spelling: an item or
attribute assigned or deleted on anything derived from a frame's namespaces (`f_globals`,
`f_locals`, `f_builtins`) or the collector's objects, `setattr` on it, a mutating method called
on it, and any use of `ctypes.pythonapi` (the C API, which writes what Python does not let code
write). A frame itself leads nowhere until its namespaces are read. Reading them (a logger's
caller name), counting the collector's objects (a leak test) or writing into a copy writes
nothing and is not named.

In a test file it is `harness_modified`; in code under test `equality_forged`, a suspicion for
the judge with file:line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from referee.tools import pysource
from referee.tools.claims.model import EQUALITY_FORGED, HARNESS_MODIFIED, Claim
from referee.tools.claims.pyfile import PyFile

__all__ = ["reflective_writes"]

# The handles: namespaces of other code reached through a frame, and objects the collector found.
# A frame itself is no handle (a logger reads its caller's name): what it leads to is.
_HANDLES = frozenset({"gc.get_objects", "gc.get_referents", "gc.get_referrers"})
_NAMESPACES = frozenset({"f_globals", "f_locals", "f_builtins"})
_SETTERS = frozenset({"builtins.setattr", "builtins.delattr"})
_MUTATORS = frozenset(
    {"update", "setdefault", "register", "__setitem__", "__delitem__", "__setattr__", "pop"}
    | {"popitem", "clear", "append", "insert", "extend", "add", "remove", "discard"}
)
_ROUNDS = 4  # names bound from names bound from a handle
_FUNCTION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_DEPTH = 32  # of an expression followed to its handle
# Calls whose result is their first argument's object, or one found in it.
_LEADING = frozenset(
    {"builtins.getattr", "builtins.vars", "builtins.next", "builtins.iter", "builtins.list"}
    | {"builtins.tuple", "builtins.reversed", "builtins.sorted", "builtins.filter"}
)
_CONTAINERS = frozenset({"builtins.dict", "builtins.list", "builtins.set", "copy.copy"})


def reflective_writes(file: PyFile) -> Iterator[Claim]:
    """Every write the file makes through a frame's namespaces or the collector's objects."""
    if not _mentions(file):
        return  # no handle anywhere: most files, read once
    kind = HARNESS_MODIFIED if file.role == "test" else EQUALITY_FORGED
    inherited: dict[int, set[str]] = {}  # a function sees its enclosing scope's names
    for scope in _scopes(file.tree):
        own = list(_own_nodes(scope))
        given = inherited.get(id(scope), set())
        if not given and not any(_handle(file, node) for node in own):
            continue  # nothing here leads to a handle: most functions of a file that has one
        tainted = _tainted(file, own, given)
        copies = _copies(file, own)
        for node in own:
            if isinstance(node, _FUNCTION) and tainted:
                inherited[id(node)] = tainted - _bound(node)
            how = _write(file, node, tainted, copies)
            if how is not None:
                yield file.claim(kind, node, _message(how))


def _handle(file: PyFile, node: ast.AST) -> bool:
    """A namespace reached through a frame, a call that finds objects, or the C API."""
    if isinstance(node, ast.Attribute) and node.attr in _NAMESPACES:
        return True
    if isinstance(node, ast.Call) and file.names.resolve(node.func) in _HANDLES:
        return True
    return _is_c_api(file, node)


def _scopes(tree: ast.AST) -> list[ast.AST]:
    """The module and each function: a name derived from a handle in one is not another's."""
    return [tree, *(n for n in pysource.nodes(tree) if isinstance(n, _FUNCTION))]


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a scope, not those of the functions inside it (a lambda's are its own)."""
    pending = list(ast.iter_child_nodes(scope))
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, _FUNCTION):
            pending.extend(ast.iter_child_nodes(node))


def _write(file: PyFile, node: ast.AST, tainted: set[str], copies: set[str]) -> str | None:
    """How `node` writes through a handle, or None (a write into a copy is none)."""
    if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
        targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute | ast.Subscript):
                if _copy(target.value, copies):
                    continue
                if _reflective(file, target.value, tainted):
                    return "assigns into"
    if _is_c_api(file, node):
        return "calls the C API (`ctypes.pythonapi`), which writes what Python code cannot, on"
    if not isinstance(node, ast.Call):
        return None
    callee = file.names.resolve(node.func) or ""
    setter = callee in _SETTERS or callee.endswith(".__setattr__")
    if setter and node.args and not _copy(node.args[0], copies):
        if _reflective(file, node.args[0], tainted):
            return "sets an attribute of"
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in _MUTATORS and not _copy(func.value, copies):
        if _reflective(file, func.value, tainted):
            return f"calls `{func.attr}` on"
    return None


def _copy(owner: ast.AST, copies: set[str]) -> bool:
    return isinstance(owner, ast.Name) and owner.id in copies


def _is_c_api(file: PyFile, node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "pythonapi"
        and (file.names.resolve(node) or "").startswith("ctypes.")
    )


def _mentions(file: PyFile) -> bool:
    """Whether the file names a handle at all."""
    return any(_handle(file, node) for node in pysource.nodes(file.tree))


def _reflective(file: PyFile, expr: ast.AST, tainted: set[str], depth: int = 0) -> bool:
    """Whether `expr` is, or is derived from, a frame's namespace or an object the collector
    found: followed along what leads to an object (its attribute, item, method's result,
    iteration, `getattr`, `vars`, `next`), not into other arguments (`getLogger(caller)` is
    the logging module's object)."""
    if depth > _DEPTH:
        return False

    def again(inner: ast.AST) -> bool:
        return _reflective(file, inner, tainted, depth + 1)

    if isinstance(expr, ast.Name):
        return expr.id in tainted
    if isinstance(expr, ast.Attribute):
        return expr.attr in _NAMESPACES or again(expr.value)
    if isinstance(expr, ast.Subscript | ast.Starred | ast.NamedExpr | ast.Await):
        return again(expr.value)
    if isinstance(expr, ast.Call):
        callee = file.names.resolve(expr.func)
        if callee in _HANDLES:
            return True
        if callee in _LEADING and expr.args:
            return again(expr.args[0])
        return isinstance(expr.func, ast.Attribute) and again(expr.func.value)
    if isinstance(expr, ast.BoolOp):
        return any(again(v) for v in expr.values)
    if isinstance(expr, ast.IfExp):
        return again(expr.body) or again(expr.orelse)
    if isinstance(expr, ast.GeneratorExp | ast.ListComp | ast.SetComp):
        return any(again(g.iter) for g in expr.generators) and again(expr.elt)
    return False


def _tainted(file: PyFile, own: list[ast.AST], inherited: set[str]) -> set[str]:
    """The names a scope (its own nodes) binds to something derived from a handle (blind to the
    order of its statements: one such binding is enough), and those it takes from its
    enclosing scope."""
    tainted = set(inherited)
    bindings = list(_bindings(own))
    for _ in range(_ROUNDS):
        before = len(tainted)
        for names, value in bindings:
            if _reflective(file, value, tainted):
                tainted |= names
        if len(tainted) == before:
            break
    return tainted


def _bindings(own: Iterable[ast.AST]) -> Iterator[tuple[set[str], ast.AST]]:
    """(names bound, the value they are bound from) for every binding among a scope's nodes."""
    for node in own:
        if isinstance(node, ast.Assign):
            yield {n for t in node.targets for n in _names(t)}, node.value
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and node.value:
            yield _names(node.target), node.value
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            yield _names(node.target), node.iter
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            yield _names(node.optional_vars), node.context_expr


def _bound(function: ast.AST) -> set[str]:
    """The names a function binds for itself (its parameters and assignments)."""
    found = {n for names, _value in _bindings(_own_nodes(function)) for n in names}
    arguments = getattr(function, "args", None)
    if isinstance(arguments, ast.arguments):
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
        found |= {a.arg for a in every}
    return found


def _names(target: ast.AST) -> set[str]:
    """The names a target binds: `x`, `a, *b`; not the object of `x.attr = …` or `x[k] = …`."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Tuple | ast.List):
        return {n for item in target.elts for n in _names(item)}
    if isinstance(target, ast.Starred):
        return _names(target.value)
    return set()


def _copies(file: PyFile, own: list[ast.AST]) -> set[str]:
    """Names a scope binds to a copy (`ns = frame.f_locals.copy()`, `dict(frame.f_globals)`):
    writing into the copy changes nothing of the namespace (its items are still the objects)."""
    found: set[str] = set()
    for names, value in _bindings(own):
        if isinstance(value, ast.Call):
            func = value.func
            copied = isinstance(func, ast.Attribute) and func.attr == "copy"
            made = file.names.resolve(func) in _CONTAINERS
            if copied or made:
                found |= names
    return found


def _message(how: str) -> str:
    return (
        f"{how} an object reached through the interpreter's reflection (a caller's frame, the"
        " garbage collector's objects): it can replace whatever the tests judge with under no"
        " name a reader follows"
    )
