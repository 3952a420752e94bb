"""Python writes to a path taken from argv, the environment or `/proc/self/cmdline`: where a
runner was told to put its report (`--junitxml=…`, an output variable).

A path is followed through the names it is bound to (assignments, loop and `with` targets), so
`for a in sys.argv: if a.endswith(".xml"): open(a, "w")` is found however it is spelled. Searching
argv (iterating it, reading the command line from /proc) is what finding someone else's option
looks like; a fixed index (`sys.argv[1]`) is a program's own argument.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from referee.tools import pysource
from referee.tools.claims import messages as M
from referee.tools.claims.model import HARNESS_MODIFIED, Claim
from referee.tools.claims.pyfile import PyFile

__all__ = ["writes"]

_ARGV = frozenset({"sys.argv", "sys.orig_argv"})
_ENV = frozenset({"os.environ", "os.environb", "os.getenv", "os.getenvb"})
_CMDLINE = re.compile(r"^/proc/[^/]+/cmdline$")
_ITERATE = frozenset({"filter", "next", "map", "enumerate", "sorted", "reversed", "iter", "list"})
_OPENS = frozenset({"builtins.open", "io.open", "codecs.open", "io.FileIO"})
_MOVES = frozenset(
    {"shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.move", "shutil.copytree"}
    | {"os.rename", "os.replace", "os.link", "os.symlink"}
)
_WRITE_METHODS = frozenset({"write_text", "write_bytes", "touch", "symlink_to", "hardlink_to"})
_WRITE_FLAGS = frozenset({"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"})
_PLAIN, _SEARCHED = 1, 2


def writes(file: PyFile) -> Iterator[Claim]:
    """Every write whose path comes from where the runner's options live."""
    taint = _tainted_names(file)
    needed = _PLAIN if file.role == "test" else _SEARCHED
    for call in file.calls:
        path = _written(file, call)
        if path is not None and _level(file, path, taint) >= needed:
            yield file.claim(
                HARNESS_MODIFIED,
                call,
                M.written(),
            )


def _level(file: PyFile, expr: ast.AST, taint: _Taint, whole: bool = True) -> int:
    """How the path `expr` comes from the runner's options (0: not at all); with `whole` False,
    a copy of the whole environment counts for nothing."""
    level = 0
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and node.id in taint.levels:
            if not (node.id in taint.held and node is not expr and _attribute_of(file, node)):
                level = max(level, taint.levels[node.id])
        if isinstance(node, ast.Constant | ast.BinOp | ast.JoinedStr):
            if _CMDLINE.match(file.names.fold(node) or ""):
                level = _SEARCHED
            continue
        if not isinstance(node, ast.Name | ast.Attribute):
            continue
        named = file.names.resolve(node)
        if named in _ARGV:
            level = max(level, _SEARCHED if _iterated(file, node) else _PLAIN)
        elif named in _ENV or (named or "").startswith("os.environ."):
            if whole or not _whole_environment(file, node, named):
                level = max(level, _PLAIN)
    return level


def _attribute_of(file: PyFile, node: ast.AST) -> bool:
    parent = file.parents.get(node)
    return isinstance(parent, ast.Attribute) and parent.value is node


def _whole_environment(file: PyFile, node: ast.AST, named: str | None) -> bool:
    """A copy of the whole environment (`{**os.environ, …}`, `dict(os.environ)`,
    `os.environ.copy()`) that nothing looks into: what a child process is given, not one
    variable's value."""
    parent = file.parents.get(node)
    made: ast.AST | None = None
    if named in ("os.environ", "os.environb"):
        copied = isinstance(parent, ast.Call) and file.names.resolve(parent.func) == "builtins.dict"
        made = parent if isinstance(parent, ast.Dict) or copied else None
    elif named in ("os.environ.copy", "os.environb.copy") and isinstance(parent, ast.Call):
        made = parent
    if made is None:
        return False
    around = file.parents.get(made)
    return not isinstance(around, ast.Subscript | ast.Attribute)


def _iterated(file: PyFile, node: ast.AST) -> bool:
    parent = file.parents.get(node)
    if isinstance(parent, ast.comprehension | ast.For) and parent.iter is node:
        return True
    if isinstance(parent, ast.Attribute) and parent.attr == "index":
        return True
    if isinstance(parent, ast.Subscript) and isinstance(parent.slice, ast.Slice):
        return _iterated(file, parent)  # sys.argv[1:] searched is argv searched
    return (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and parent.func.id in _ITERATE
    )


@dataclass
class _Taint:
    """Names bound from the runner's options, with how (`_PLAIN`, `_SEARCHED`); `held` names an
    object a call made from a copy of the whole environment: the object itself may be a path,
    its attributes (`script.scratch_path`) are its own."""

    levels: dict[str, int] = field(default_factory=dict)
    held: set[str] = field(default_factory=set)


def _tainted_names(file: PyFile) -> _Taint:
    taint = _Taint()
    bindings = list(_bindings(file.tree))
    for _ in range(4):  # names bound from names, a few levels deep
        grew = False
        for target, value in bindings:
            level = _level(file, value, taint)
            if level > taint.levels.get(target, 0):
                taint.levels[target] = level
                grew = True
                if isinstance(value, ast.Call) and _level(file, value, taint, whole=False) < level:
                    taint.held.add(target)
                else:
                    taint.held.discard(target)
        if not grew:
            break
        # Only a value that reads a name can take more from another pass (a generated module's
        # hundred thousand constants are read once).
        bindings = [(t, v) for t, v in bindings if _reads_a_name(v)]
    return taint


def _reads_a_name(value: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) for n in ast.walk(value))


def _bindings(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    for node in pysource.nodes(tree):
        if isinstance(node, ast.Assign):
            pairs = [(t, node.value) for t in node.targets]
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and node.value:
            pairs = [(node.target, node.value)]
        elif isinstance(node, ast.For | ast.comprehension):
            pairs = [(node.target, node.iter)]
        elif isinstance(node, ast.With | ast.AsyncWith):
            pairs = [(i.optional_vars, i.context_expr) for i in node.items if i.optional_vars]
        else:
            continue
        for target, value in pairs:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    yield name.id, value


def _written(file: PyFile, call: ast.Call) -> ast.AST | None:
    """The path a call writes to, or None when it writes nothing."""
    callee = file.names.resolve(call.func) or ""
    method = call.func.attr if isinstance(call.func, ast.Attribute) else ""
    args = call.args
    if callee in _OPENS and args and _writes_mode(file, call, 1):
        return args[0]
    if callee == "os.open" and len(args) >= 2:
        flags = {n.attr for n in ast.walk(args[1]) if isinstance(n, ast.Attribute)}
        return args[0] if flags & _WRITE_FLAGS else None
    if callee in _MOVES and len(args) >= 2:
        return args[1]
    if isinstance(call.func, ast.Attribute) and callee not in _OPENS:
        if method in _WRITE_METHODS or (method == "open" and _writes_mode(file, call, 0)):
            return call.func.value
    return None


def _writes_mode(file: PyFile, call: ast.Call, position: int) -> bool:
    mode = call.args[position] if len(call.args) > position else None
    mode = next((k.value for k in call.keywords if k.arg == "mode"), mode)
    text = file.names.fold(mode) if mode is not None else "r"
    return text is None or bool(set(text) & set("wax+"))
