"""Python names as the interpreter resolves them: imports, aliases, and computed spellings.

`os._exit` can be spelled `getattr(os, "_" "exit")`, `getattr(__import__("o" + "s"),
"".join(["_", "exit"]))`, `importlib.import_module("os")._exit` or `e = os._exit; e(0)`. The
readers ask one question, "what does this expression name?", and get `os._exit` for each: a
defence against one spelling would be a list, this is the class.
"""

from __future__ import annotations

import ast
import base64
import binascii
import builtins
import codecs
import posixpath
from collections.abc import Iterator

from referee.tools import pysource

__all__ = ["Names", "fold", "literal", "template", "whose"]

_BUILTINS = frozenset(dir(builtins)) | {"__builtins__"}  # a module's own reference to them
_MAX_FOLD = 10_000  # a folded string longer than this is not a name or a path
_STRING_METHODS = frozenset({"lower", "upper", "strip", "lstrip", "rstrip", "title", "casefold"})


def fold(node: ast.AST | None, consts: dict[str, str] | None = None) -> str | None:
    """The string an expression always evaluates to, when it is made of constants.

    Args:
        node: The expression.
        consts: Names bound once to a folded string in the file (`name = "ex" + "it"`).

    Returns:
        The string, or None when it depends on anything but constants.
    """
    value = _fold(node, consts or {}, 0)
    return value if value is None or len(value) <= _MAX_FOLD else None


def template(node: ast.AST | None, consts: dict[str, str] | None = None) -> str | None:
    """A printed string with what is filled in at run time as `{}`: `f"test {name} ... ok"`,
    `"--- PASS: %s" % name`, `"ok {}".format(n)` give their fixed text around the holes."""
    match node:
        case ast.JoinedStr(values=values):
            parts = [
                template(v, consts) if isinstance(v, ast.Constant) else _hole(v, consts)
                for v in values
            ]
            return "".join(p or "" for p in parts)
        case ast.BinOp(left=left, op=ast.Mod()):
            return template(left, consts)
        case ast.BinOp(left=left, op=ast.Add(), right=right):
            a, b = template(left, consts), template(right, consts)
            return None if a is None and b is None else (a or "{}") + (b or "{}")
        case ast.Call(func=ast.Attribute(value=owner, attr="format")):
            return template(owner, consts)
    return fold(node, consts)


def _hole(node: ast.AST, consts: dict[str, str] | None) -> str:
    inner = node.value if isinstance(node, ast.FormattedValue) else node
    value = fold(inner, consts)
    return value if value is not None else "{}"


def _fold(node: ast.AST | None, consts: dict[str, str], depth: int) -> str | None:
    if node is None or depth > 40:
        return None
    again = depth + 1
    match node:
        case ast.Constant(value=str() as value):
            return value
        case ast.Constant(value=bytes() as value):
            return value.decode("latin-1")
        case ast.Name(id=name):
            return consts.get(name)
        case ast.BinOp(left=left, op=ast.Add(), right=right):
            a, b = _fold(left, consts, again), _fold(right, consts, again)
            return a + b if a is not None and b is not None else None
        case ast.BinOp(left=left, op=ast.Div(), right=right):
            # Strings do not divide: `Path("/") / "proc"` joins a path.
            a, b = _fold(left, consts, again), _fold(right, consts, again)
            return posixpath.join(a, b) if a is not None and b is not None else None
        case ast.JoinedStr(values=values):
            parts = [_fold(v, consts, again) for v in values]
            return "".join(p for p in parts if p is not None) if None not in parts else None
        case ast.FormattedValue(value=value):
            return _fold(value, consts, again)
        case ast.Subscript(value=value, slice=ast.Slice() as cut):
            return _sliced(_fold(value, consts, again), cut)
        case ast.Call():
            return _fold_call(node, consts, again)
    return None


def _sliced(value: str | None, cut: ast.Slice) -> str | None:
    bounds = [_int(b) if b is not None else None for b in (cut.lower, cut.upper, cut.step)]
    if value is None or any(b is False for b in bounds):
        return None
    lower, upper, step = (b if isinstance(b, int) and b is not True else None for b in bounds)
    return value[lower:upper:step] if step != 0 else None


def _int(node: ast.AST) -> int | bool:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int(node.operand)
        return -inner if inner is not False and inner is not True else False
    return False


def _fold_call(node: ast.Call, consts: dict[str, str], depth: int) -> str | None:
    func, args = node.func, node.args
    if isinstance(func, ast.Name):
        if func.id == "chr" and len(args) == 1:
            code = _int(args[0])
            return (
                chr(code)
                if code is not True and code is not False and 0 <= code < 0x110000
                else None
            )
        if func.id in ("str", "bytes", "bytearray") and len(args) == 1:
            return _chars(args[0], consts, depth)
        if func.id in _PATHS:
            return _joined(args, consts, depth)
        return None
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr in _PATHS or ast.unparse(func) in ("os.path.join", "posixpath.join"):
        return _joined(args, consts, depth)
    owner = _fold(func.value, consts, depth)
    method = func.attr
    if method == "join" and owner is not None and len(args) == 1:
        parts = [_fold(p, consts, depth) for p in _items(args[0])]
        return (
            owner.join(p for p in parts if p is not None) if parts and None not in parts else None
        )
    if method in _STRING_METHODS and owner is not None and not args:
        return str(getattr(owner, method)())
    if method == "replace" and owner is not None and len(args) == 2:
        old, new = _fold(args[0], consts, depth), _fold(args[1], consts, depth)
        return owner.replace(old, new) if old is not None and new is not None else None
    if method == "decode":
        return _decoded(func.value, args, consts, depth)
    if method == "fromhex" and len(args) == 1:
        digits = _fold(args[0], consts, depth)
        return _safe(lambda: bytes.fromhex(digits or "").decode("latin-1")) if digits else None
    return _decoded_module(func, args, consts, depth)


_PATHS = frozenset({"Path", "PurePath", "PosixPath", "PurePosixPath"})


def _joined(args: list[ast.expr], consts: dict[str, str], depth: int) -> str | None:
    """A path joined from constants (`os.path.join("/", "proc")`, `Path("/proc", "self")`)."""
    parts = [_fold(a, consts, depth) for a in args]
    return posixpath.join(*parts) if parts and None not in parts else None  # type: ignore[arg-type]


def _chars(node: ast.AST, consts: dict[str, str], depth: int) -> str | None:
    """`bytes([101, 120])`, `bytes(map(ord, "ex"))`, `str("ex")`."""
    direct = _fold(node, consts, depth)
    if direct is not None:
        return direct
    codes = [_int(i) for i in _items(node)]
    if codes and all(c is not True and c is not False and 0 <= c < 256 for c in codes):
        return "".join(chr(int(c)) for c in codes)
    return None


def _items(node: ast.AST) -> list[ast.expr]:
    """The constant items of a list, tuple, `map(chr, [...])` or `(chr(c) for c in [...])`."""
    if isinstance(node, ast.List | ast.Tuple):
        return list(node.elts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1:
        if node.func.id == "reversed":
            return list(reversed(_items(node.args[0])))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "map":
        if len(node.args) == 2 and isinstance(node.args[0], ast.Name) and node.args[0].id == "chr":
            return [ast.Call(ast.Name("chr"), [c], []) for c in _items(node.args[1])]
    if isinstance(node, ast.GeneratorExp | ast.ListComp) and len(node.generators) == 1:
        loop = node.generators[0]
        if isinstance(loop.target, ast.Name) and not loop.ifs:
            return [_substitute(node.elt, loop.target.id, item) for item in _items(loop.iter)]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [ast.Constant(c) for c in node.value]
    return []


def _substitute(template: ast.expr, name: str, value: ast.expr) -> ast.expr:
    class _Swap(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return value if node.id == name else node

    swapped = _Swap().visit(pysource.expression(ast.unparse(template)))
    return swapped if isinstance(swapped, ast.expr) else template


def _decoded(
    owner: ast.AST, args: list[ast.expr], consts: dict[str, str], depth: int
) -> str | None:
    """`b"..".decode()`, `bytes([..]).decode()`, `base64.b64decode("..").decode()`."""
    raw = _chars(owner, consts, depth)
    if raw is None and isinstance(owner, ast.Call) and isinstance(owner.func, ast.Attribute):
        raw = _decoded_module(owner.func, owner.args, consts, depth)
    if raw is None:
        return None
    encoding = _fold(args[0], consts, depth) if args else "utf-8"
    return _safe(lambda: raw.encode("latin-1").decode(encoding or "utf-8"))


def _decoded_module(
    func: ast.Attribute, args: list[ast.expr], consts: dict[str, str], depth: int
) -> str | None:
    """`base64.b64decode("..")`, `codecs.decode("..", "rot13")`, `binascii.unhexlify("..")`."""
    data = _fold(args[0], consts, depth) if args else None
    if data is None or not isinstance(func.value, ast.Name):
        return None
    owner, method = func.value.id, func.attr
    if owner == "base64" and method.endswith("decode"):
        decoder = getattr(base64, method, None)
        return _safe(lambda: decoder(data).decode("latin-1")) if callable(decoder) else None
    if owner == "binascii" and method in ("unhexlify", "a2b_hex"):
        return _safe(lambda: binascii.unhexlify(data).decode("latin-1"))
    if owner == "codecs" and method == "decode" and len(args) == 2:
        encoding = _fold(args[1], consts, depth) or ""
        return _safe(lambda: str(codecs.decode(data.encode("latin-1"), encoding)))
    return None


def _safe(compute: object) -> str | None:
    try:
        value = compute()  # type: ignore[operator]
    except (ValueError, TypeError, LookupError, binascii.Error):
        return None
    return value if isinstance(value, str) else None


class Names:
    """What each name of one file refers to: its imports, and the names bound to a module, an
    attribute or a constant string (flow-insensitive: a name bound once anywhere counts)."""

    def __init__(self, tree: ast.Module, package: str) -> None:
        self.imports: dict[str, str] = {}
        self.aliases: dict[str, str] = {}
        self.consts: dict[str, str] = {}
        self.values: dict[str, ast.AST] = {}
        self._package = package
        self._bind_imports(tree)
        for _ in range(3):  # aliases of aliases, a few levels deep
            self._bind_aliases(tree)

    def resolve(self, node: ast.AST | None) -> str | None:
        """The dotted name an expression refers to (`os._exit`, `calc.add`, `builtins.exit`)."""
        match node:
            case ast.Name(id=name):
                if name in self.aliases:
                    return self.aliases[name]
                if name in self.imports:
                    return self.imports[name]
                return f"builtins.{name}" if name in _BUILTINS else name
            case ast.Attribute(value=value, attr=attr):
                owner = self.resolve(value)
                return f"{owner}.{attr}" if owner is not None else None
            case ast.Call():
                return self._resolve_call(node)
            case ast.Subscript(value=value, slice=key):
                return self._resolve_item(value, key)
        return None

    def fold(self, node: ast.AST | None) -> str | None:
        return fold(node, self.consts)

    def expanded(self, node: ast.AST, depth: int = 3) -> Iterator[ast.AST]:
        """The nodes of an expression, and of the expressions its names were bound to (a path
        built in one variable and opened through another)."""
        for inner in ast.walk(node):
            yield inner
            if depth and isinstance(inner, ast.Name) and inner.id in self.values:
                yield from self.expanded(self.values[inner.id], depth - 1)

    def template(self, node: ast.AST | None) -> str | None:
        return template(node, self.consts)

    def _resolve_call(self, node: ast.Call) -> str | None:
        callee = self.resolve(node.func)
        args = node.args
        if callee in ("importlib.import_module", "builtins.__import__") and args:
            return self.fold(args[0])
        if callee == "builtins.getattr" and len(args) >= 2:
            owner, name = self.resolve(args[0]), self.fold(args[1])
            return f"{owner}.{name}" if owner is not None and name is not None else None
        if callee in ("sys.modules.get", "sys.modules.__getitem__") and args:
            return self.fold(args[0])
        return None

    def _resolve_item(self, value: ast.AST, key: ast.AST) -> str | None:
        owner = self.resolve(value)
        name = self.fold(key)
        if name is not None and isinstance(value, ast.Call) and value.args:
            if self.resolve(value.func) == "builtins.vars":
                inner = self.resolve(value.args[0])
                return f"{inner}.{name}" if inner is not None else None
        if owner is None or name is None:
            return None
        if owner == "sys.modules":
            return name
        if owner.endswith(".__dict__"):
            return f"{owner.removesuffix('.__dict__')}.{name}"
        if owner in ("builtins.__builtins__", "builtins.__dict__"):
            return f"builtins.{name}"
        return None

    def _bind_imports(self, tree: ast.Module) -> None:
        for node in pysource.nodes(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    self.imports[local] = alias.name if alias.asname else local
            elif isinstance(node, ast.ImportFrom):
                module = self._absolute(node)
                for alias in node.names:
                    if alias.name != "*":
                        full = f"{module}.{alias.name}" if module else alias.name
                        self.imports[alias.asname or alias.name] = full

    def _absolute(self, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = self._package.split(".") if self._package else []
        parts = parts[: max(0, len(parts) - node.level + 1)]
        return ".".join([*parts, *([node.module] if node.module else [])])

    def _bind_aliases(self, tree: ast.Module) -> None:
        for node in pysource.nodes(tree):
            # A loop's name takes its values from what it walks: a path read in the loop was
            # found by that (a glob, a listing); it is followed, never folded to a constant.
            if isinstance(node, ast.For | ast.comprehension) and isinstance(node.target, ast.Name):
                self.values.setdefault(node.target.id, node.iter)
        for target, value in _bindings(tree):
            self.values.setdefault(target, value)
            if target in self.imports:
                continue
            text = self.fold(value)
            if text is not None:
                self.consts.setdefault(target, text)
                continue
            if isinstance(value, ast.Attribute | ast.Call | ast.Subscript | ast.Name):
                # A call names something only when it looks a module or attribute up
                # (import_module, getattr); `x = f()` binds a result, not a name.
                named = self.resolve(value)
                if named is not None and (not isinstance(value, ast.Name) or value.id != named):
                    self.aliases.setdefault(target, named)


def _bindings(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    for node in pysource.nodes(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                yield target.id, node.value
            elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                for t, v in zip(target.elts, node.value.elts, strict=False):
                    if isinstance(t, ast.Name):
                        yield t.id, v
        elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and isinstance(node.target, ast.Name):
            if node.value is not None:
                yield node.target.id, node.value


def literal(value: ast.AST | None) -> bool:
    """A constant value (or a list, tuple, dict or set of them): a setting, not code."""
    if value is None:
        return False
    return all(
        isinstance(n, ast.Constant | ast.List | ast.Tuple | ast.Dict | ast.Set | ast.Load)
        or (isinstance(n, ast.UnaryOp) and isinstance(n.operand, ast.Constant))
        or isinstance(n, ast.unaryop)
        for n in ast.walk(value)
    )


# What a function, class or module does, written in place: its code, defaults, namespace, class.
_INNER = frozenset(
    {"__code__", "__defaults__", "__kwdefaults__", "__call__", "__wrapped__", "__dict__"}
    | {"__class__"}
)


def whose(dotted: str | None) -> str | None:
    """The name a write in place replaces: `calc.add.__code__` is `calc.add`, `math.__class__`
    is `math`."""
    while dotted is not None and "." in dotted and dotted.rsplit(".", 1)[-1] in _INNER:
        dotted = dotted.rsplit(".", 1)[0]
    return dotted
