"""Python test code whose expectation follows what differs between referee's runs: the clock
(every run is made at another time) and what the tree holds (the base's view leaves out the
change's new files, a hold-out's run has one more).

A condition that picks a value by such a read, or an assertion on the code under test whose
expected side carries one (through a name bound from it, a function of the file returning it, a
table lookup, arithmetic), is `test_inspects_environment`. What is handed to the code under test
is the test's input, not its expectation (`naturaltime(now - 3 s)`), and a read the assertion
measures alone (`assert elapsed < 1`) calls no code under test: both stay quiet, as does a loop
that waits on the clock.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Iterator, Mapping
from typing import Literal

from referee.tools import pysource
from referee.tools.claims import messages as M
from referee.tools.claims.model import TEST_INSPECTS_ENVIRONMENT, Claim, Scope
from referee.tools.claims.pyfile import PyFile
from referee.tools.claims.pynames import Names
from referee.tools.claims.pyscope import dotted_names
from referee.tools.claims.pysituation import bindings
from referee.tools.tampering.syntax import MAX_SOURCE

__all__ = ["Varying", "varying_helpers"]

# The clocks: wall, monotonic, boot, process and thread time, and a file's times (a file made now
# is dated now).
_CLOCKS = frozenset(
    {"time.time", "time.time_ns", "time.monotonic", "time.monotonic_ns", "time.perf_counter"}
    | {"time.perf_counter_ns", "time.process_time", "time.process_time_ns", "time.thread_time"}
    | {"time.thread_time_ns", "time.clock_gettime", "time.clock_gettime_ns", "time.localtime"}
    | {"time.gmtime", "time.ctime", "time.asctime", "time.strftime", "os.times", "os.fstat"}
    | {"datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today"}
    | {"datetime.date.today", "os.path.getmtime", "os.path.getctime", "os.path.getatime"}
    # The process's own counters (CPU time, page faults: a cold file read faults, a warm one
    # does not, so they count runs through the host's page cache as a clock would).
    | {"resource.getrusage"}
)
# Listings of a folder of the tree: where the path is relative, built from the test's own
# `__file__` or the working folder (a `tmp_path` the test made is its own). A look for one path
# (`os.path.exists('x')`) is left out: tests that moved into a folder of their own ask it of
# their own files all the time.
_LISTINGS = frozenset({"os.listdir", "os.scandir", "os.walk", "glob.glob", "glob.iglob"})
_LIST_METHODS = frozenset({"iterdir", "glob", "rglob"})
_HERE = frozenset({"os.getcwd", "pathlib.Path.cwd"})
# The clock asked of another program (`date +%s`, `uptime`).
_RUNS = frozenset(
    {"subprocess.run", "subprocess.check_output", "subprocess.Popen", "subprocess.getoutput"}
    | {"subprocess.getstatusoutput", "os.popen"}
)
_CLOCK_PROGRAMS = frozenset({"date", "uptime"})
_ROUNDS = 4

Kind = Literal["clock", "tree"]


class Varying:
    """A test file's reads of what differs between runs, and the names bound from them."""

    def __init__(self, file: PyFile) -> None:
        self.file = file
        self.reads = any(_direct(file, c) for c in file.calls)
        self.names: dict[str, Kind] = _carried(file) if self.reads else {}

    def condition(self, node: ast.If | ast.IfExp | ast.While) -> Claim | None:
        """A condition that picks a value or an assertion by such a read (a loop waits)."""
        if isinstance(node, ast.While) or not self.reads:
            return None
        found = _read(self.file, node.test, self.names)
        return None if found is None else self._claim(node.test, found)

    def assertion(self, node: ast.Assert | ast.Call) -> Claim | None:
        """An assertion on the code under test whose expected side carries such a read."""
        if not self.reads:
            return None
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if not name.startswith("assert"):
                return None
        calls = [n for n in ast.walk(node) if isinstance(n, ast.Call) and _of_code(self.file, n)]
        if not calls:
            return None
        # A value handed to the code and expected back relative to itself (`delta(value,
        # now=now) == (now - 90 s, …)`) is the test's input on both sides.
        given = {n.id for c in calls for n in ast.walk(c) if isinstance(n, ast.Name)}
        carried = {k: v for k, v in self.names.items() if k not in given}
        found = _read(self.file, node, carried)
        return None if found is None else self._claim(node, found)

    def _claim(self, node: ast.AST, found: tuple[Kind, str]) -> Claim:
        kind, named = found
        message = M.clock(named) if kind == "clock" else M.listing(named)
        return self.file.claim(TEST_INSPECTS_ENVIRONMENT, node, message)


def varying_helpers(path: str, source: str) -> dict[str, Kind]:
    """The top-level functions of a Python test helper (`tests/timing.py`) that return the time
    or a listing of the tree, by every dotted name a test may import them under
    (`tests.timing.phase`, `timing.phase`): each file is read alone, so a clock read in a helper
    would otherwise reach the test as a plain value."""
    if len(source) > MAX_SOURCE:
        return {}
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    parents = {child: node for node in pysource.nodes(tree) for child in ast.iter_child_nodes(node)}
    file = PyFile(path, tree, Names(tree, ""), Scope(), "test", parents)
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    carried = _carried(file) if any(_direct(file, c) for c in file.calls) else {}
    return {
        f"{module}.{name}": kind
        for name, kind in carried.items()
        if name in defined
        for module in dotted_names(path)
    }


def _carried(file: PyFile) -> dict[str, Kind]:
    """The names bound from a read, or from a name so bound, and the functions that return one
    (`now = time.time()`, `slot = int(now // 15)`, `def _slot(): return …`), a few steps deep.
    Names are the file's, not a scope's: a test file is small, and a name bound from the clock in
    one test and used in another's condition is read as the clock all the same."""
    binds = list(bindings(file.tree))
    found: dict[str, Kind] = {}
    for _ in range(_ROUNDS):
        grew = False
        for names, value in binds:
            if _iterated(file, value):
                continue  # `for name in os.listdir(…)`: each name is data, not a count
            read = _read(file, value, found)
            if read is None:
                continue
            for name in set(names) - {"self", "cls"}:  # `self.start = time()` dates one field
                if name not in found:
                    found[name] = read[0]
                    grew = True
        if not grew:
            break
    return found


def _iterated(file: PyFile, value: ast.AST) -> bool:
    parent = file.parents.get(value)
    return isinstance(parent, ast.For | ast.AsyncFor | ast.comprehension) and parent.iter is value


def _read(file: PyFile, node: ast.AST, carried: Mapping[str, Kind]) -> tuple[Kind, str] | None:
    """The read (or the name carrying one) the expression holds outside the calls of the code
    under test: what is handed to the code is the test's input, and what the code returns is
    what is checked, not what is expected."""
    for part in _outside_code(file, node):
        if isinstance(part, ast.Call) and (direct := _direct(file, part)):
            return direct
        if isinstance(part, ast.Name) and part.id in carried:
            return carried[part.id], part.id
    return None


def _direct(file: PyFile, call: ast.Call) -> tuple[Kind, str] | None:
    callee = file.names.resolve(call.func) or ""
    if callee in _CLOCKS:
        return "clock", callee
    helper = (
        next((kind for name, kind in file.scope.varying if name == callee), None)
        if file.scope.varying
        else None
    )
    if helper is not None:
        return ("clock" if helper == "clock" else "tree"), callee
    if callee in _RUNS and call.args and (program := _program(file, call.args[0])):
        return ("clock", f"`{program}`") if program in _CLOCK_PROGRAMS else None
    method = call.func.attr if isinstance(call.func, ast.Attribute) else ""
    if callee in _LISTINGS:
        where: ast.AST | None = call.args[0] if call.args else None
    elif method in _LIST_METHODS and isinstance(call.func, ast.Attribute):
        where = call.func.value
        callee = f".{method}()"
    else:
        return None
    return ("tree", callee) if where is None or _of_tree(file, where) else None


def _program(file: PyFile, argv: ast.AST) -> str | None:
    """The program a command runs: the first word of a string, the first item of a list."""
    first = argv.elts[0] if isinstance(argv, ast.List | ast.Tuple) and argv.elts else argv
    words = (file.names.fold(first) or "").split()
    return posixpath.basename(words[0]) if words else None


def _of_tree(file: PyFile, path: ast.AST) -> bool:
    """Whether a path names a place in the tree: relative, or built from the test's own file or
    the working folder."""
    for node in file.names.expanded(path):
        if isinstance(node, ast.Name) and node.id == "__file__":
            return True
        if isinstance(node, ast.Call) and file.names.resolve(node.func) in _HERE:
            return True
    folded = file.names.fold(path)
    if folded is None and isinstance(path, ast.Call) and path.args:
        if file.names.resolve(path.func) == "pathlib.Path":
            folded = file.names.fold(path.args[0])
    return folded is not None and not folded.startswith(("/", "~"))


def _outside_code(file: PyFile, node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of an expression outside every call of the code under test."""
    stack = [node]
    while stack:
        part = stack.pop()
        if isinstance(part, ast.Call) and _of_code(file, part):
            continue
        yield part
        stack.extend(ast.iter_child_nodes(part))


def _of_code(file: PyFile, call: ast.Call) -> bool:
    return file.target(file.names.resolve(call.func)) is not None
