"""Python test code that chooses its expectation from its surroundings
(`test_inspects_environment`).

referee runs one tree several ways (the current code, the base, mutants, the base harness). A test
that can tell them apart can pass or fail on purpose: it reads or hashes the source it tests (a
mutant changes the bytes), looks at `.git` (a base checkout is a worktree, whose `.git` is a
file), `/proc`, the mounts or the process tree, or lets its own path, the working folder, argv or
the environment decide what it expects. Each is a suspicion for the judge, with its line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from referee.tools import pysource
from referee.tools.claims import messages as M
from referee.tools.claims.model import TEST_INSPECTS_ENVIRONMENT, Claim
from referee.tools.claims.patterns import names_source, reveals_environment
from referee.tools.claims.pyfile import PyFile

__all__ = ["inspections"]

_READS = frozenset(
    {"builtins.open", "io.open", "codecs.open", "tokenize.open", "os.open", "io.FileIO"}
    | {"linecache.getline", "linecache.getlines", "runpy.run_path", "py_compile.compile"}
)
_READ_METHODS = frozenset({"read_text", "read_bytes", "open"})
_SOURCE_OF = frozenset(
    {"getsource", "getsourcelines", "getfile", "getsourcefile", "findsource", "getcomments"}
)
_CODE = frozenset({"__code__", "co_code", "co_consts", "co_names", "co_lines", "co_positions"})
_PROCESS_TREE = ("os.getppid", "os.getpgrp", "os.getsid", "psutil")
# What differs between two runs of one tree, and so must not decide what a test expects.
_SURROUNDINGS = frozenset(
    {"os.environ", "os.environb", "os.getenv", "os.getenvb", "sys.argv", "sys.orig_argv"}
    | {"os.getcwd", "os.getcwdb", "pathlib.Path.cwd", "os.getpid", "os.getppid", "sys.executable"}
    | {"socket.gethostname", "platform.node", "os.uname", "getpass.getuser", "os.getlogin"}
    | {"__file__", "sys.prefix", "site.getsitepackages", "os.stat", "os.lstat"}
)


def inspections(file: PyFile) -> Iterator[Claim]:
    """Every place the test reads what it should not decide by."""
    for node, value in file.strings():
        where = reveals_environment(value)
        if where is not None:
            yield file.claim(TEST_INSPECTS_ENVIRONMENT, node, M.looks_at(where))
    for call in file.calls:
        yield from _read(file, call)
    for node in pysource.nodes(file.tree):
        if isinstance(node, ast.Attribute) and node.attr in _CODE:
            owner = file.target(file.names.resolve(node.value))
            if owner is not None:
                yield file.claim(
                    TEST_INSPECTS_ENVIRONMENT, node, M.reads(f"the bytecode of `{owner}`")
                )
        elif isinstance(node, ast.If | ast.IfExp | ast.While) and _decides(file, node):
            yield from _condition(file, node)
        elif isinstance(node, ast.Name | ast.Attribute) and _process_tree(file, node):
            yield file.claim(TEST_INSPECTS_ENVIRONMENT, node, M.process_tree())


def _read(file: PyFile, call: ast.Call) -> Iterator[Claim]:
    callee = file.names.resolve(call.func) or ""
    method = call.func.attr if isinstance(call.func, ast.Attribute) else ""
    if callee.rsplit(".", 1)[-1] in _SOURCE_OF and callee.startswith("inspect."):
        subject = call.args[0] if call.args else None
        named = file.target(file.names.resolve(subject))
        if named is not None:
            yield file.claim(TEST_INSPECTS_ENVIRONMENT, call, M.source_of(str(named)))
        return
    if callee in _READS:
        paths: list[ast.expr] = call.args[:1]
    elif method in _READ_METHODS and isinstance(call.func, ast.Attribute):
        paths = [call.func.value]
    else:
        return
    source = next((s for p in paths if (s := _source_path(file, p)) is not None), None)
    if source is not None:
        yield file.claim(TEST_INSPECTS_ENVIRONMENT, call, M.reads(source))


def _source_path(file: PyFile, path: ast.AST) -> str | None:
    """The project source a path expression names: a string naming it, `module.__file__`, or
    the test's own `__file__` read whole."""
    for node in file.names.expanded(path):
        value = file.names.fold(node)
        module = names_source(value, file.scope, file.path) if value else None
        if module is not None:
            return module.path
        if isinstance(node, ast.Attribute) and node.attr == "__file__":
            owner = file.target(file.names.resolve(node.value))
            if owner is not None:
                return owner.module.path
    bare = path.args[0] if isinstance(path, ast.Call) and len(path.args) == 1 else path
    if isinstance(bare, ast.Name) and bare.id == "__file__":
        return "its own source file"
    return None


def _decides(file: PyFile, node: ast.If | ast.IfExp | ast.While) -> bool:
    """A condition that picks a value (a conditional expression) or guards an assertion or an
    assignment; one that only skips the test is the skip's business, not this one's, and one that
    only puts the environment back (`os.environ[k] = old`) chooses no expectation."""
    if isinstance(node, ast.IfExp):
        return True
    inner = [n for s in [*node.body, *node.orelse] for n in ast.walk(s)]
    chosen = [
        n
        for n in inner
        if isinstance(n, ast.Assign | ast.AugAssign)
        and not all(
            (file.names.resolve(t) or "").startswith("os.environ")
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
        )
    ]
    return (
        bool(chosen)
        or any(isinstance(n, ast.Assert | ast.Return) for n in inner)
        or any(
            isinstance(n, ast.Call) and ast.unparse(n.func).split(".")[-1].startswith("assert")
            for n in inner
        )
    )


def _condition(file: PyFile, node: ast.If | ast.IfExp | ast.While) -> Iterator[Claim]:
    for part in ast.walk(node.test):
        if isinstance(part, ast.Name | ast.Attribute | ast.Call):
            named = file.names.resolve(part.func if isinstance(part, ast.Call) else part) or ""
            if named in _SURROUNDINGS or named.startswith(("os.environ.", "sys.argv.")):
                yield file.claim(
                    TEST_INSPECTS_ENVIRONMENT,
                    node.test,
                    M.decides(named),
                )
                return


def _process_tree(file: PyFile, node: ast.Name | ast.Attribute) -> bool:
    if isinstance(file.parents.get(node), ast.Attribute):
        return False  # the outermost name of a chain is read once
    named = file.names.resolve(node) or ""
    return named.startswith(_PROCESS_TREE) and (named == "psutil" or "." in named)
