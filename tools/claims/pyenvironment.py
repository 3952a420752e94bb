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
import fnmatch
import posixpath
from collections.abc import Iterator

from referee.tools import pysource
from referee.tools.claims import messages as M
from referee.tools.claims.model import TEST_INSPECTS_ENVIRONMENT, Claim
from referee.tools.claims.patterns import names_source, reveals_environment
from referee.tools.claims.pyfile import PyFile
from referee.tools.claims.pyvarying import Varying

__all__ = ["inspections"]

_READS = frozenset(
    {"builtins.open", "io.open", "codecs.open", "tokenize.open", "os.open", "io.FileIO"}
    | {"linecache.getline", "linecache.getlines", "runpy.run_path", "py_compile.compile"}
    # A file's size and times change with its bytes: a stat is a read of them.
    | {"os.stat", "os.lstat", "os.path.getsize", "os.path.getmtime", "os.path.getctime"}
    | {"filecmp.cmp", "shutil.copy", "shutil.copyfile", "shutil.copy2", "hashlib.file_digest"}
)
_READ_METHODS = frozenset({"read_text", "read_bytes", "open", "stat", "lstat", "get_data"})
# A module's own record of where its code came from: naming it in a test looks at the file.
_ORIGINS = frozenset({"__file__", "__spec__", "__loader__", "__cached__"})
_GLOBS = frozenset({"glob.glob", "glob.iglob", "fnmatch.filter"})
_GLOB_METHODS = frozenset({"glob", "rglob"})
_RUNS = frozenset(
    {"subprocess.run", "subprocess.check_output", "subprocess.Popen", "subprocess.call"}
    | {"subprocess.check_call", "os.system", "os.popen"}
)
# git commands that tell the state of the repository they run in.
_GIT_READS = frozenset(
    {"status", "diff", "log", "show", "rev-parse", "rev-list", "ls-files", "ls-tree", "describe"}
    | {"branch", "worktree", "cat-file", "blame", "grep", "config", "symbolic-ref", "reflog"}
    | {"for-each-ref", "name-rev", "stash", "tag", "remote", "diff-index", "diff-files"}
)
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
        yield from _git(file, call)
    varies = Varying(file)
    for node in pysource.nodes(file.tree):
        if isinstance(node, ast.Attribute) and node.attr in ("__loader__", "__spec__"):
            owner = file.target(file.names.resolve(node.value))
            if owner is not None and not owner.rest:
                yield file.claim(
                    TEST_INSPECTS_ENVIRONMENT, node, M.reads(f"the loader of `{owner}`")
                )
        elif isinstance(node, ast.Attribute) and node.attr in _CODE:
            owner = file.target(file.names.resolve(node.value))
            if owner is not None:
                yield file.claim(
                    TEST_INSPECTS_ENVIRONMENT, node, M.reads(f"the bytecode of `{owner}`")
                )
        elif isinstance(node, ast.If | ast.IfExp | ast.While) and _decides(file, node):
            yield from _condition(file, node, varies)
        elif isinstance(node, ast.Assert | ast.Call) and (found := varies.assertion(node)):
            yield found
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
        if isinstance(node, ast.Attribute) and node.attr in _ORIGINS:
            owner = file.target(file.names.resolve(node.value))
            if owner is not None and not owner.rest:
                return owner.module.path
        globbed = _globbed(file, node)
        if globbed is not None:
            return globbed
    bare = path.args[0] if isinstance(path, ast.Call) and len(path.args) == 1 else path
    if isinstance(bare, ast.Name) and bare.id == "__file__":
        return "its own source file"
    return None


def _globbed(file: PyFile, node: ast.AST) -> str | None:
    """A source file of the project a glob pattern finds (`glob.glob('c*.py')`,
    `Path('.').rglob('*.py')`, `Path(__file__).parent.glob('*.py')`): files read by a pattern
    are read all the same. A folder the reader cannot place (`tmp_path.glob(…)`) finds none."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    callee = file.names.resolve(node.func) or ""
    pattern = file.names.fold(node.args[0])
    if not pattern:
        return None
    if callee in _GLOBS:
        where = ""  # relative to the working folder: the tree's root
    elif isinstance(node.func, ast.Attribute) and node.func.attr in _GLOB_METHODS:
        owner = node.func.value
        origins = [
            file.target(file.names.resolve(n.value))
            for n in ast.walk(owner)
            if isinstance(n, ast.Attribute) and n.attr in _ORIGINS
        ]
        module = next((t.module.path for t in origins if t is not None), None)
        if module is not None:
            where = posixpath.dirname(module)  # next to a module of the code
        elif any(isinstance(n, ast.Name) and n.id == "__file__" for n in ast.walk(owner)):
            where = posixpath.dirname(file.path)
        else:
            folded = file.names.fold(owner)
            if folded is None:
                return None
            where = posixpath.normpath(folded).removeprefix(".")
    else:
        return None
    wanted = posixpath.join(where, pattern.removeprefix("./")) if where else pattern
    return next((m.path for m in file.scope.modules if fnmatch.fnmatch(m.path, wanted)), None)


def _git(file: PyFile, call: ast.Call) -> Iterator[Claim]:
    """git asked about the evaluated tree (run with no `cwd` or `-C` of its own): what changed,
    which commit, whether this is a worktree, told to the test. Making a repository elsewhere
    (`git clone URL DIR`, `git init DIR`) asks nothing."""
    callee = file.names.resolve(call.func) or ""
    if callee not in _RUNS or not call.args:
        return
    if any(k.arg == "cwd" for k in call.keywords):
        return
    first = call.args[0]
    if isinstance(first, ast.List | ast.Tuple):
        words = [file.names.fold(e) or "" for e in first.elts[:2]]
    else:
        words = (file.names.fold(first) or "").split()[:2]
    if len(words) == 2 and posixpath.basename(words[0]) == "git" and words[1] in _GIT_READS:
        yield file.claim(TEST_INSPECTS_ENVIRONMENT, call, M.looks_at("the repository, by git"))


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


def _condition(
    file: PyFile, node: ast.If | ast.IfExp | ast.While, varies: Varying
) -> Iterator[Claim]:
    found = varies.condition(node)
    if found is not None:
        yield found
        return
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
