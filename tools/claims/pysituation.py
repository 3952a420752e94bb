"""Python code that asks whether it runs under test (`code_detects_tests`), read with `ast`.

Every run referee makes of a change (the change itself, the base form of edited tests, hold-outs,
mutants) runs under a test runner, so code under test that looks for one answers right only where
it is checked. An expression is a finding where it reads the process's situation (the loaded
modules, the environment, argv, the stack, what can be imported, the files on disk) and names a
tell (tools/claims/tells.py): `'pytest' in sys.modules`, `environ.get('PYTEST_' + 'CURRENT_TEST')`,
`any('_pytest' in f.filename for f in inspect.stack())`, `tests.glob('test_*.py')`. A name bound
from either (`m = sys.modules`, a parameter defaulting to it, `TEST = join(…, 'test_calc.py')`, a
function returning it) carries it into the expression that uses it.

The code under test reading its own bytes (`open(__file__)`, `inspect.getsource(add)`,
`add.__code__`) tells a mutant from itself: a finding too. Test code always runs under its runner;
there only reading the tests' own files counts (its other reads are `test_inspects_environment`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from referee.tools import pysource
from referee.tools.claims import messages as M
from referee.tools.claims.model import CODE_DETECTS_TESTS, Claim
from referee.tools.claims.patterns import names_source
from referee.tools.claims.pyfile import PyFile
from referee.tools.claims.tells import Read, Tell, paired, situated, tell_of

__all__ = ["bindings", "situations"]

# What a process can learn about how it was started and what runs it.
_PROCESS = (
    "sys.modules",
    "sys.argv",
    "sys.orig_argv",
    "os.environ",
    "os.getenv",
    "inspect.stack",
    "inspect.currentframe",
    "inspect.getouterframes",
    "inspect.trace",
    "sys._getframe",
    "sys._current_frames",
    "traceback.",
    "importlib.util.find_spec",
    "importlib.find_loader",
    "importlib.import_module",
    "builtins.__import__",
    "pkgutil.",
    "importlib.metadata.",
    "pkg_resources.",
    "__main__",
)
# `os` is the C module `posix` (`nt` on Windows) under another name: `posix.environ` is environ.
_C_TWINS = re.compile(r"^(?:posix|nt)\.")
# A frame, however reached (a traceback's `tb_frame`, a generator's `gi_frame`): the stack.
_FRAMES = frozenset(
    {"tb_frame", "f_back", "f_code", "f_globals", "f_locals", "gi_frame", "cr_frame", "ag_frame"}
)
# What the process holds that a runner may have put there: the interpreter's state (its streams,
# import hooks, path hooks), the loggers and their handlers, the collector's objects, the threads,
# the warning filters. Reads of that state, not calls that act (`atexit.register`, `logging.info`).
_OBJECTS = (
    "sys.",
    "gc.get_",
    "threading.enumerate",
    "threading.current_thread",
    "threading.main_thread",
    "logging.getLogger",
    "logging.root",
    "logging.Logger.manager",
    "warnings.filters",
)
_STREAM_USES = frozenset({"write", "writelines", "flush", "fileno", "isatty", "encoding"})
# And what it finds on disk.
_FILES = (
    "builtins.open",
    "io.open",
    "os.open",
    "codecs.open",
    "tokenize.open",
    "os.path.exists",
    "os.path.isfile",
    "os.path.isdir",
    "os.path.lexists",
    "os.listdir",
    "os.scandir",
    "os.walk",
    "os.stat",
    "os.lstat",
    "os.access",
    "glob.",
    "linecache.",
)
_READ_METHODS = frozenset(
    {"read_text", "read_bytes", "open", "exists", "is_file", "is_dir", "iterdir", "glob", "rglob"}
)
_OWN_READS = frozenset({"builtins.open", "io.open", "codecs.open", "tokenize.open", "io.FileIO"})
_PATH_WRAPPERS = frozenset(
    {"os.path.abspath", "os.path.realpath", "pathlib.Path", "os.fspath", "builtins.str"}
)
_SOURCE_OF = frozenset({"getsource", "getsourcelines", "getsourcefile", "findsource", "getfile"})
_CODE = frozenset({"__code__", "co_code", "co_consts", "co_names"})
_HASHES = ("hashlib.", "zlib.crc32", "zlib.adler32", "builtins.hash")


@dataclass
class _Carried:
    """What the names of a file carry: reads of the situation and tells."""

    reads: dict[str, list[Read]] = field(default_factory=dict)
    tells: dict[str, list[Tell]] = field(default_factory=dict)


_NOTHING = _Carried()


def situations(file: PyFile) -> Iterator[Claim]:
    """Every expression of the file that asks whether it runs under test."""
    carried, seen = _carried(file), set()
    for node in pysource.nodes(file.tree):
        if not isinstance(node, ast.expr) or id(unit := _unit(file, node)) in seen:
            continue
        if _tells(file, node, _NOTHING) or _reads(file, node, _NOTHING):
            seen.add(id(unit))
            found = _asked(file, unit, carried)
            if found is not None:
                yield file.claim(CODE_DETECTS_TESTS, unit, M.detects(found[0].text, found[1].text))
    if file.role == "source":
        yield from _own_source(file)


def _unit(file: PyFile, node: ast.AST) -> ast.AST:
    """The whole expression a node belongs to: up to the statement that holds it."""
    while isinstance(file.parents.get(node), ast.expr | ast.comprehension | ast.keyword):
        node = file.parents[node]
    return node


def _tells(file: PyFile, node: ast.AST, carried: _Carried) -> list[Tell]:
    if isinstance(node, ast.Name) and node.id in carried.tells:
        return carried.tells[node.id]
    if not isinstance(node, ast.Constant | ast.BinOp | ast.JoinedStr | ast.Call | ast.Name):
        return []
    value = file.names.fold(node)
    tell = (
        tell_of(value, file.scope.edited_tests if file.role == "test" else None) if value else None
    )
    return [tell] if tell is not None else []


def _reads(file: PyFile, node: ast.AST, carried: _Carried) -> list[Read]:
    if isinstance(node, ast.Name) and node.id in carried.reads:
        return carried.reads[node.id]
    if isinstance(node, ast.Attribute) and node.attr in _FRAMES:
        return [Read("process", f"the stack (.{node.attr})")]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in _READ_METHODS:
            return [Read("file", f".{node.func.attr}()")]
    if isinstance(node, ast.Name | ast.Attribute | ast.Call | ast.Subscript):
        named = _C_TWINS.sub("os.", file.names.resolve(node) or "")
        if named.startswith(_PROCESS):
            return [Read("process", named)]
        if named.startswith(_FILES):
            return [Read("file", named)]
        if named.startswith(_OBJECTS) and not _written_to(file, node, named):
            return [Read("objects", named)]
    return []


def _written_to(file: PyFile, node: ast.AST, named: str) -> bool:
    """A stream used as one (`sys.stdout.write(…)`, `print(…, file=sys.stderr)`): output, not a
    look at what the stream is."""
    if named.rsplit(".", 1)[-1] in _STREAM_USES:
        return True
    parent = file.parents.get(node)
    if isinstance(parent, ast.Attribute) and parent.attr in _STREAM_USES | {"buffer"}:
        return True
    return isinstance(parent, ast.keyword) and parent.arg == "file"


def _asked(file: PyFile, unit: ast.AST, carried: _Carried) -> tuple[Tell, Read] | None:
    """A tell and a read of the situation that ask together, one of them written here (a unit
    that only uses names carrying both was found where the names were bound)."""
    nodes = list(ast.walk(unit))
    tells, reads = situated(
        [t for n in nodes for t in _tells(file, n, _NOTHING)],
        [r for n in nodes for r in _reads(file, n, _NOTHING)],
    )
    if not tells and not reads:
        return None
    tells = tells or [t for n in nodes for t in _tells(file, n, carried)]
    reads = reads or [r for n in nodes for r in _reads(file, n, carried)]
    return paired(tells, reads)


def _carried(file: PyFile) -> _Carried:
    """Names bound from a read of the situation or a tell, a few bindings deep."""
    carried = _Carried()
    binds = list(bindings(file.tree))
    for _ in range(3):
        grew = False
        for names, value in binds:
            nodes = list(ast.walk(value))
            tells, reads = situated(
                [t for n in nodes for t in _tells(file, n, carried)],
                [r for n in nodes for r in _reads(file, n, carried)],
            )
            tells, reads = tells[:4], reads[:4]
            for name in names:
                if reads and name not in carried.reads:
                    carried.reads[name] = reads
                    grew = True
                if tells and name not in carried.tells:
                    carried.tells[name] = tells
                    grew = True
        if not grew:
            break
        # Only a value that reads a name can carry more on another pass.
        binds = [(n, v) for n, v in binds if any(isinstance(x, ast.Name) for x in ast.walk(v))]
    return carried


def bindings(tree: ast.Module) -> Iterator[tuple[list[str], ast.AST]]:
    for node in pysource.nodes(tree):
        match node:
            case ast.Assign(targets=targets, value=value):
                yield [n for t in targets for n in _names(t)], value
            case (
                ast.AugAssign(target=target, value=value)
                | ast.NamedExpr(target=target, value=value)
            ):
                yield _names(target), value
            case ast.AnnAssign(target=target, value=value) if value is not None:
                yield _names(target), value
            case (
                ast.For(target=target, iter=source) | ast.comprehension(target=target, iter=source)
            ):
                yield _names(target), source
            case ast.withitem(context_expr=source, optional_vars=target) if target is not None:
                yield _names(target), source
            case ast.FunctionDef() | ast.AsyncFunctionDef() | ast.Lambda():
                yield from _parameters(node)
    for node in pysource.nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Return) and inner.value is not None:
                    yield [node.name], inner.value


def _parameters(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
) -> Iterator[tuple[list[str], ast.AST]]:
    """A parameter carries what its default holds (`def add(a, b, _m=sys.modules)`)."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaulted = positional[len(positional) - len(args.defaults) :]
    for arg, default in zip(defaulted, args.defaults, strict=True):
        yield [arg.arg], default
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=False):
        if kw_default is not None:
            yield [arg.arg], kw_default


def _names(target: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


# The code under test reading its own bytes


def _own_source(file: PyFile) -> Iterator[Claim]:
    for call in file.calls:
        callee = file.names.resolve(call.func) or ""
        method = call.func.attr if isinstance(call.func, ast.Attribute) else ""
        if callee in _OWN_READS and call.args and _own_file(file, call.args[0]):
            yield file.claim(CODE_DETECTS_TESTS, call, M.own("its own source file"))
        elif method in ("read_text", "read_bytes", "open") and isinstance(call.func, ast.Attribute):
            if _own_file(file, call.func.value):
                yield file.claim(CODE_DETECTS_TESTS, call, M.own("its own source file"))
        elif callee.startswith("inspect.") and callee.rsplit(".", 1)[-1] in _SOURCE_OF:
            subject = file.target(file.names.resolve(call.args[0])) if call.args else None
            if subject is not None:
                yield file.claim(CODE_DETECTS_TESTS, call, M.own(f"the source of `{subject}`"))
        elif callee.startswith(_HASHES):
            hashed = _hashed_source(file, call)
            if hashed is not None:
                yield file.claim(CODE_DETECTS_TESTS, call, M.own(f"and hashes {hashed}"))
    for node in pysource.nodes(file.tree):
        if isinstance(node, ast.Attribute) and node.attr in _CODE:
            owner = file.target(file.names.resolve(node.value))
            if owner is not None and not isinstance(file.parents.get(node), ast.Attribute):
                yield file.claim(CODE_DETECTS_TESTS, node, M.own(f"the bytecode of `{owner}`"))


def _own_file(file: PyFile, path: ast.AST) -> bool:
    """`__file__`, however wrapped (`Path(__file__).resolve()`, `os.path.abspath(__file__)`)."""
    while True:
        if isinstance(path, ast.Name):
            return path.id == "__file__"
        if not isinstance(path, ast.Call):
            return False
        func = path.func
        method = func.attr if isinstance(func, ast.Attribute) else ""
        if method in ("resolve", "absolute") and isinstance(func, ast.Attribute) and not path.args:
            path = func.value
        elif len(path.args) == 1 and file.names.resolve(func) in _PATH_WRAPPERS:
            path = path.args[0]
        else:
            return False


def _hashed_source(file: PyFile, call: ast.Call) -> str | None:
    for node in ast.walk(call):
        value = file.names.fold(node) if isinstance(node, ast.Constant | ast.BinOp) else None
        module = names_source(value, file.scope, file.path) if value else None
        if module is not None:
            return module.path
    return None
