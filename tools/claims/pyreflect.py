"""Python code that writes through the interpreter's reflection.

A caller's frame (`sys._getframe`, `inspect.currentframe().f_back`, a traceback's `tb_frame`) and
the garbage collector's object graph (`gc.get_objects`, `gc.get_referents`) reach every object
of the process without naming it: the test module's globals, the runner's classes and plugins,
a test case's own tables. A write there replaces what the tests judge with under no name any
other reader can follow (`frame.f_globals["CHECKER_CLASS"] = …`, `gc.get_referents(vars(C))[0]
[name] = …`, a plugin registered on the pluginmanager found by its type's name), and it can
undo itself before anything looks. The class is the write, not the spelling: an item or
attribute assigned or deleted on anything derived from a frame's namespaces (`f_globals`,
`f_locals`, `f_builtins`, also through `getattr` with a folded name), the collector's objects,
`object.__subclasses__()` or `inspect.getmodule`; `setattr`, `operator.setitem`, a type's
method (`dict.__setitem__(ns, …)`) or `exec` given one; a mutating method called on it or only
taken (`put = ns.__setitem__`); an in-place `|=`; a loop or unpacking target inside it; a
handle passed to a function of the file (or a lambda) that writes into that parameter, held as
a parameter's default or on an attribute (`box.ns`); a trace function moving a frame's
`f_lineno` past a test's lines; and any use of `ctypes.pythonapi` or `PyDLL` however imported
(the C API, which writes what Python does not let code write). A frame itself leads nowhere
until its namespaces are read. Reading them (a logger's caller name, `eval` in a frame's
globals), counting the collector's objects (a leak test) or writing into a container of one's
own (a copy, `sorted(f_locals)`, the list `gc.get_objects()` returns, a comprehension) writes
nothing and is not named. A function of the file that returns or yields a handle is one, and
so are `from gc import *`'s names, `functools.partial(gc.get_referrers, x)()` and a lambda
`map` hands each object. Not followed: a handle held on a class or a global and written in
another function, or reached through raw memory (`py_object.from_address`).

In a test file it is `harness_modified`; in code under test `equality_forged`, a suspicion for
the judge with file:line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from contextvars import ContextVar

from referee.tools import pysource
from referee.tools.claims.model import EQUALITY_FORGED, HARNESS_MODIFIED, Claim
from referee.tools.claims.pyfile import PyFile

__all__ = ["reflective_writes"]

# The handles: namespaces of other code reached through a frame, and objects the collector found.
# A frame itself is no handle (a logger reads its caller's name): what it leads to is.
_HANDLES = frozenset(
    {"gc.get_objects", "gc.get_referents", "gc.get_referrers", "inspect.getmodule"}
    | {"builtins.object.__subclasses__", "builtins.type.__subclasses__"}
)
# The C API and raw object memory: what writes what Python code cannot.
# (`py_object` alone is a field type of C structures, as in click's Windows console.)
_C_API = frozenset({"ctypes.pythonapi", "ctypes.PyDLL", "ctypes.pydll"})
# Calls that write into their argument: `operator.setitem(ns, k, v)`, `exec(code, ns)`.
_WRITE_INTO = frozenset({"operator.setitem", "operator.delitem", "operator.ior", "operator.iadd"})
# `exec` runs statements in the namespace it is given; `eval` of an expression in a frame's
# globals is how debuggers and pytest's own frames evaluate (it binds nothing but a walrus).
_RUNS_IN = frozenset({"builtins.exec"})
_TYPES = frozenset({f"builtins.{t}" for t in ("dict", "list", "set", "object", "type")})
# A frame's own attribute that changes what runs: setting it jumps over the test's lines.
_JUMPS = frozenset({"f_lineno"})
_NAMESPACES = frozenset({"f_globals", "f_locals", "f_builtins"})
_SETTERS = frozenset({"builtins.setattr", "builtins.delattr"})
_MUTATORS = frozenset(
    {"update", "setdefault", "register", "__setitem__", "__delitem__", "__setattr__", "pop"}
    | {"popitem", "clear", "append", "insert", "extend", "add", "remove", "discard", "__init__"}
    | {"__ior__", "__iadd__", "__delattr__"}
)
_ROUNDS = 16  # names bound from names bound from a handle (stops early when nothing grows)
_FUNCTION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_DEPTH = 32  # of an expression followed to its handle
# Calls whose result is their first argument's object, or one found in it.
_LEADING = frozenset(
    {"builtins.getattr", "builtins.vars", "builtins.next", "builtins.iter", "builtins.list"}
    | {"builtins.tuple", "builtins.reversed", "builtins.sorted", "builtins.filter"}
)
_CONTAINERS = frozenset({"builtins.dict", "builtins.list", "builtins.set", "copy.copy"})
# Calls that return a new container of what they were given: the container is the caller's own
# (`names = sorted(f_locals)`, `objs = gc.get_objects()`), its items are not.
_FRESH = _CONTAINERS | {"builtins.sorted", "gc.get_objects", "gc.get_referents", "gc.get_referrers"}


def reflective_writes(file: PyFile) -> Iterator[Claim]:
    """Every write the file makes through a frame's namespaces or the collector's objects."""
    if not _mentions(file):
        return  # no handle anywhere: most files, read once
    token = _GIVERS.set(_givers(file))
    try:
        yield from _writes(file)
    finally:
        _GIVERS.reset(token)


def _writes(file: PyFile) -> Iterator[Claim]:
    kind = HARNESS_MODIFIED if file.role == "test" else EQUALITY_FORGED
    inherited: dict[int, set[str]] = {}  # a function sees its enclosing scope's names
    for scope in _scopes(file.tree):
        own = list(_own_nodes(scope))
        given = inherited.get(id(scope), set())
        if not given and not any(_handle(file, node) for node in own):
            continue  # nothing here leads to a handle: most functions of a file that has one
        tainted = _tainted(file, own, given)
        copies = _copies(file, own, tainted)
        for node in own:
            if isinstance(node, _FUNCTION):
                inherited[id(node)] = (tainted - _bound(node)) | _defaults(file, node, tainted)
            how = _write(file, node, tainted, copies) or _passed(file, node, tainted)
            if how is not None:
                where = node.target if isinstance(node, ast.comprehension) else node
                yield file.claim(kind, where, _message(how))


# Functions of the file being read that return or yield a handle (`def _caller(): return
# sys._getframe(2).f_globals`): their calls are handles too.
_GIVERS: ContextVar[frozenset[str]] = ContextVar("givers", default=frozenset())
_FOUND = frozenset({"get_objects", "get_referents", "get_referrers"})


def _handle(file: PyFile, node: ast.AST) -> bool:
    """A namespace reached through a frame, a call that finds objects, or the C API."""
    if _namespace(file, node) or _jump(node):
        return True
    if isinstance(node, ast.Call) and _finds(file, node):
        return True
    return _is_c_api(file, node)


def _finds(file: PyFile, call: ast.Call) -> bool:
    """A call that finds objects: `gc.get_objects()` however imported (`from gc import *`),
    through `functools.partial(gc.get_referrers, x)()`, or a function of the file that returns
    or yields a handle."""
    func = call.func
    callee = file.names.resolve(func) or ""
    if callee in _HANDLES or (callee in _FOUND and _star_gc(file)):
        return True
    if isinstance(func, ast.Call) and (file.names.resolve(func.func) or "").endswith("partial"):
        return bool(func.args) and (file.names.resolve(func.args[0]) or "") in _HANDLES
    return isinstance(func, ast.Name) and func.id in _GIVERS.get()


def _star_gc(file: PyFile) -> bool:
    return any(
        isinstance(n, ast.ImportFrom) and n.module == "gc" and any(a.name == "*" for a in n.names)
        for n in file.tree.body
    )


def _givers(file: PyFile) -> frozenset[str]:
    """The file's functions whose `return` or `yield` hands out a handle (their own names'
    taint followed; helpers of helpers too, a few rounds). Only functions that name a handle,
    or call one found in an earlier round, are read."""
    found: set[str] = set()
    functions = [
        (n, list(_own_nodes(n)))
        for n in pysource.nodes(file.tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    pending = [(f, own) for f, own in functions if any(_handle(file, node) for node in own)]
    for _ in range(3):
        token = _GIVERS.set(frozenset(found))
        try:
            grown = {f.name for f, own in pending if f.name not in found and _gives(file, own)}
        finally:
            _GIVERS.reset(token)
        if not grown:
            break
        found |= grown
        pending = [(f, own) for f, own in functions if _calls_any(own, grown)]
    return frozenset(found)


def _gives(file: PyFile, own: list[ast.AST]) -> bool:
    tainted = _tainted(file, own, set())
    handed = [n.value for n in own if isinstance(n, ast.Return | ast.Yield) and n.value]
    return any(_reflective(file, v, tainted) for v in handed)


def _calls_any(own: list[ast.AST], names: set[str]) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names for n in own
    )


def _namespace(file: PyFile, node: ast.AST) -> bool:
    """`x.f_globals`, and `getattr(x, "f_glo" + "bals")`."""
    if isinstance(node, ast.Attribute):
        return node.attr in _NAMESPACES
    if isinstance(node, ast.Call) and len(node.args) >= 2:
        getter = file.names.resolve(node.func) == "builtins.getattr"
        return getter and file.names.fold(node.args[1]) in _NAMESPACES
    return False


def _jump(node: ast.AST) -> bool:
    """`frame.f_lineno = n` (or `+=`): a trace function moving a running frame past lines."""
    if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(isinstance(t, ast.Attribute) and t.attr in _JUMPS for t in targets)
    return False


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
        else:  # its decorators and defaults run here, where it is defined
            arguments = node.args
            pending.extend(getattr(node, "decorator_list", []))
            pending.extend(d for d in (*arguments.defaults, *arguments.kw_defaults) if d)


def _write(file: PyFile, node: ast.AST, tainted: set[str], copies: set[str]) -> str | None:
    """How `node` writes through a handle, or None (a write into a copy is none)."""
    if _jump(node):
        return "sets the line a running frame is on (`f_lineno`), so lines of a test never run, in"
    for target in _targets(node):
        if isinstance(target, ast.Attribute | ast.Subscript) and not _copy(target.value, copies):
            if _reflective(file, target.value, tainted):
                return "assigns into"
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        if not _copy(node.target, copies) and node.target.id in tainted:
            return "updates in place"  # `ns |= {…}` on a namespace is `ns.update(…)`
    if _is_c_api(file, node):
        return "uses the C API or raw object memory (`ctypes`), which writes what Python cannot, on"
    if (
        isinstance(node, ast.Attribute)
        and node.attr in _MUTATORS
        and isinstance(node.ctx, ast.Load)
    ):
        # Called or only taken (`put = ns.__setitem__`, `partial(ns.update, …)`): a bound
        # mutator of a namespace is good for nothing but writing into it.
        if not _copy(node.value, copies) and _reflective(file, node.value, tainted):
            return f"uses `{node.attr}` of"
    if isinstance(node, ast.Call):
        return _writes_argument(file, node, tainted, copies)
    return None


def _targets(node: ast.AST) -> list[ast.AST]:
    """What a statement or loop assigns to, unpacked (`ns["x"], _ = …`, `for ns["x"] in …`)."""
    if isinstance(node, ast.Assign | ast.Delete):
        found = list(node.targets)
    elif isinstance(
        node, ast.AugAssign | ast.AnnAssign | ast.For | ast.AsyncFor | ast.comprehension
    ):
        found = [node.target]
    else:
        return []
    flat: list[ast.AST] = []
    while found:
        target = found.pop()
        if isinstance(target, ast.Tuple | ast.List):
            found.extend(target.elts)
        elif isinstance(target, ast.Starred):
            found.append(target.value)
        else:
            flat.append(target)
    return flat


def _writes_argument(
    file: PyFile, node: ast.Call, tainted: set[str], copies: set[str]
) -> str | None:
    """A call that writes into a handle given as its argument: `setattr(o, …)`,
    `operator.setitem(ns, …)`, `dict.__setitem__(ns, …)`, `exec(code, ns)`."""
    callee = file.names.resolve(node.func) or ""
    first = node.args[0] if node.args else None
    # A type's method called on the handle: `dict.__setitem__(ns, …)`, `object.__setattr__(o, …)`
    # (a method of any other object takes the handle as a value: `STATS.setdefault(mod, [])`).
    owner, _, method = callee.rpartition(".")
    unbound = owner in _TYPES and method in _MUTATORS
    if (callee in _SETTERS or callee in _WRITE_INTO or unbound) and first is not None:
        if not _copy(first, copies) and _reflective(file, first, tainted):
            return "sets an attribute of" if callee in _SETTERS else f"calls `{callee}` on"
    if callee in _RUNS_IN:
        scopes = [*node.args[1:], *(k.value for k in node.keywords)]
        if any(_reflective(file, a, tainted) and not _copy(a, copies) for a in scopes):
            return f"runs code (`{callee.split('.')[-1]}`) with its names in"
    return None


def _passed(file: PyFile, node: ast.AST, tainted: set[str]) -> str | None:
    """A call handing a handle to a function of the file that writes into that parameter."""
    if not isinstance(node, ast.Call):
        return None
    values = [*node.args, *(k.value for k in node.keywords)]
    if not any(_reflective(file, v, tainted) for v in values):
        return None  # most calls: no handle among the arguments, no function to read
    if (file.names.resolve(node.func) or "") in ("builtins.map", "builtins.filter"):
        # `map(lambda o: setattr(o, …), found)`: the function is handed each item.
        node = ast.Call(func=node.args[0], args=node.args[1:2], keywords=[]) if node.args else node
    if isinstance(node.func, ast.Lambda):
        function: ast.AST | None = node.func  # `(lambda ns: ns.update(…))(frame.f_globals)`
    elif isinstance(node.func, ast.Name):
        function = _functions(file).get(node.func.id)
    else:
        return None
    if not isinstance(function, _FUNCTION):
        return None
    params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    name = getattr(function, "name", "lambda")
    given = dict(zip(params, node.args, strict=False))
    given |= {k.arg: k.value for k in node.keywords if k.arg is not None}
    for param, value in given.items():
        if _reflective(file, value, tainted) and param in _written_parameters(file, function):
            return f"passes to `{name}`, which writes into its `{param}`,"
    return None


def _functions(file: PyFile) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The file's functions by name (the last one of a name wins, as at run time)."""
    return {
        n.name: n
        for n in pysource.nodes(file.tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def _written_parameters(
    file: PyFile, function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
) -> set[str]:
    """The parameters the function writes into, were each a handle (one level: the function's
    own body, not what it calls)."""
    arguments = function.args
    written = set()
    own = list(_own_nodes(function))
    for param in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
        tainted = _tainted(file, own, {param.arg})
        copies = _copies(file, own, tainted)
        if any(_write(file, node, tainted, copies) for node in own):
            written.add(param.arg)
    return written


def _defaults(file: PyFile, function: ast.AST, tainted: set[str]) -> set[str]:
    """Parameters whose default is a handle (`def f(ns=sys._getframe(1).f_globals)`)."""
    arguments = getattr(function, "args", None)
    if not isinstance(arguments, ast.arguments):
        return set()
    positional = [*arguments.posonlyargs, *arguments.args]
    with_default = positional[len(positional) - len(arguments.defaults) :]
    pairs = list(zip(with_default, arguments.defaults, strict=True))
    pairs += [
        (a, d)
        for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        if d is not None
    ]
    return {a.arg for a, default in pairs if _reflective(file, default, tainted)}


def _copy(owner: ast.AST, copies: set[str]) -> bool:
    return isinstance(owner, ast.Name) and owner.id in copies


def _is_c_api(file: PyFile, node: ast.AST) -> bool:
    """`ctypes.pythonapi`, `PyDLL`, `py_object`, however imported or spelled (`getattr(ctypes,
    "python" + "api")`, `from ctypes import pythonapi as api`)."""
    if not isinstance(node, ast.Attribute | ast.Name | ast.Call):
        return False
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        return False
    return file.names.resolve(node) in _C_API


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
        return expr.attr in _NAMESPACES or _dotted(expr) in tainted or again(expr.value)
    if isinstance(expr, ast.Subscript | ast.Starred | ast.NamedExpr | ast.Await):
        return again(expr.value)
    if isinstance(expr, ast.Call):
        callee = file.names.resolve(expr.func)
        if _finds(file, expr) or _namespace(file, expr):
            return True
        if callee in _LEADING and expr.args:
            return again(expr.args[0])
        return isinstance(expr.func, ast.Attribute) and again(expr.func.value)
    if isinstance(expr, ast.BoolOp):
        return any(again(v) for v in expr.values)
    if isinstance(expr, ast.Tuple | ast.List):
        return any(again(e) for e in expr.elts)  # `ns, _ = frame.f_globals, None`
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
    dotted = _dotted(target)
    return {dotted} if dotted else set()  # `box.ns = frame.f_globals`: held on an attribute


def _dotted(node: ast.AST) -> str:
    """`box.ns` for an attribute of a name (or of an attribute of one), else ''."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value)
        return f"{owner}.{node.attr}" if owner else ""
    return ""


def _copies(file: PyFile, own: list[ast.AST], tainted: set[str]) -> set[str]:
    """Names a scope binds only to a container of its own (`ns = frame.f_locals.copy()`,
    `dict(frame.f_globals)`, `sorted(f_locals)`, `gc.get_objects()`, a comprehension): writing
    into it changes nothing of a namespace (the objects in it are still the process's). A name
    also bound to a handle itself anywhere in the scope is no copy."""
    fresh: set[str] = set()
    other: set[str] = set()
    for names, value in _bindings(own):
        whole = not isinstance(value, ast.AST) or value not in _iterated(own)
        if whole and _fresh(file, value):
            fresh |= names
        elif _reflective(file, value, tainted):
            other |= names
    return fresh - other


def _iterated(own: list[ast.AST]) -> list[ast.AST]:
    """What loops of the scope walk: their targets are bound to its items, no container."""
    return [n.iter for n in own if isinstance(n, ast.For | ast.AsyncFor | ast.comprehension)]


def _fresh(file: PyFile, value: ast.AST) -> bool:
    if isinstance(value, ast.ListComp | ast.SetComp | ast.DictComp):
        return True
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    copied = isinstance(func, ast.Attribute) and func.attr == "copy"
    return copied or file.names.resolve(func) in _FRESH


def _message(how: str) -> str:
    return (
        f"{how} an object reached through the interpreter's reflection (a caller's frame, the"
        " garbage collector's objects): it can replace whatever the tests judge with under no"
        " name a reader follows"
    )
