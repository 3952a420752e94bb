"""Python code that acts for the test runner (`harness_modified`): it ends the process, prints
the runner's protocol, names the runner's report or hooks, or writes a file whose path it took
from argv or the environment (where the runner was told to write its report).

Names are resolved (pynames), so `getattr(os, "_" "exit")`, `importlib.import_module("os")._exit`
and `e = os._exit` are `os._exit`. In test code (test files and their folders) any exit counts;
in the code under test only the exits that skip every cleanup, the runner's own report writing
included (a program may call `sys.exit`, hardly `os._exit`), and only writes to a path it searched
argv for: a command-line program writes to `sys.argv[1]` as a matter of course.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from referee.tools import pysource
from referee.tools.claims import messages as M
from referee.tools.claims.model import HARNESS_MODIFIED, Claim
from referee.tools.claims.patterns import C_ENDS, names_runner, protocol_line
from referee.tools.claims.pyfile import PyFile
from referee.tools.claims.pywrites import writes

__all__ = ["escapes"]

_EXECS = ("os.exec", "os.posix_spawn", "os.spawn")
_HARD = frozenset(
    {"os._exit", "posix._exit", "os.abort", "posix.abort", "os.killpg", "signal.raise_signal"}
    | {"ctypes.pythonapi", "faulthandler._sigsegv", "faulthandler._sigabrt"}
)
_KILLS = frozenset({"os.kill", "signal.pthread_kill"})
_TEST_EXITS = frozenset(
    {"sys.exit", "builtins.exit", "builtins.quit", "pytest.exit", "_pytest.outcomes.exit"}
    | {"unittest.main"}
)
# What ends a run when raised: SystemExit, and pytest's own exit (`pytest.exit.Exception`).
_EXIT_EXCEPTIONS = frozenset(
    {"builtins.SystemExit", "pytest.exit.Exception", "_pytest.outcomes.Exit", "pytest.exit.Exit"}
)
# Where a function runs when no test is running: signal handlers, exit hooks, other threads.
_OUTSIDE_TESTS = ("signal.", "atexit.", "threading.", "_thread.", "sys.", "faulthandler.")
_SELF = frozenset({"os.getpid", "os.getppid", "os.getpgrp", "os.getpgid"})
_OUTPUT = frozenset({"print", "write", "writelines", "echo", "secho", "info", "warning"})
# `os` is the C module `posix` (`nt` on Windows) under another name.
_C_TWINS = re.compile(r"^(?:posix|nt)\.")
# The modules that end or replace the process, or reach native code that can.
# (`sys` is not among them: its exit raises SystemExit, which the runner reports as a failure.)
_PROCESS_MODULES = frozenset(
    {"os", "posix", "nt", "signal", "ctypes", "_ctypes", "_thread", "faulthandler"}
)
_LOOKUPS = frozenset({"get", "__getitem__", "__getattribute__", "pop", "setdefault"})
_REFLECTION = frozenset({"__dict__", "__getattribute__", "__getattr__"})
_NATIVE = ("ctypes", "_ctypes", "cffi", "_cffi_backend")
_LOADERS = frozenset({"CDLL", "PyDLL", "LoadLibrary", "dlopen", "find_library", "cdll", "pydll"})


def escapes(file: PyFile) -> Iterator[Claim]:
    """Every construct of the file that acts for the runner."""
    yield from _exits(file)
    yield from _looked_up(file)
    yield from _runner_names(file)
    yield from _printed(file)
    yield from writes(file)


def _exits(file: PyFile) -> Iterator[Claim]:
    test = file.role == "test"
    for node in pysource.nodes(file.tree):
        if isinstance(node, ast.Raise) and test and _raises_exit(file, node):
            yield _ended(file, node, "SystemExit")
        if not isinstance(node, ast.Name | ast.Attribute | ast.Call) or _chained(file, node):
            continue
        named = file.names.resolve(node)
        if named is None or (test and _guarded(file, node)):
            continue
        named = _C_TWINS.sub("os.", named)
        if (named in _KILLS or named == "signal.raise_signal") and _handled(file, node):
            continue  # a signal the file handles itself (`signal.signal(SIGUSR1, …)`) ends nothing
        if named in _KILLS:
            if _kills_itself(file, node):
                yield _ended(file, node, f"{named} of its own process")
        elif (
            named in _HARD
            or _native(file, node, named, test)
            or (test and (named in _TEST_EXITS or named.startswith(_EXECS)))
        ):
            yield _ended(file, node, named)


def _looked_up(file: PyFile) -> Iterator[Claim]:
    """A function of a module that can end the process, looked up by what no reader can name and
    called: the module handed to a function as a whole (`getattr(os, name)` with a name built at
    run time, `vars(os)[…]`, `functools.reduce(getattr, …, os)`, `operator.attrgetter(…)(os)`)
    or read through its `__dict__`, and what that gives called (`(…)(0)`). Naming one attribute
    (`setattr(os, "environ", …)`, `patch.object(os, "getcwd")`) is a lookup the reader follows;
    what is looked up and only read (`getattr(os, name) == …`) ends nothing."""
    for node in pysource.nodes(file.tree):
        if isinstance(node, ast.Attribute) and node.attr in _REFLECTION:
            module = _process_module(file, node.value)
            if module is not None and _called(file, node):
                yield _ended(file, node, f"{module}.{node.attr}, any of its functions")
        elif _reflected(file, node):
            yield _ended(file, node, f"{ast.unparse(node)[:40]}, any of its functions")
        elif isinstance(node, ast.Call) and not _names_an_attribute(node) and _called(file, node):
            if file.names.resolve(node.func) == "builtins.type":
                continue  # `type(os)("api")` makes a module
            for arg in node.args:
                module = _process_module(file, arg)
                if module is not None:
                    callee = ast.unparse(node.func)[:40]
                    yield _ended(file, node, f"{module} handed whole to {callee}")
                    break


def _reflected(file: PyFile, node: ast.AST) -> bool:
    """`object.__getattribute__(os, name)` called: a lookup on a process module by another
    class's slot, whatever the name."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    if node.func.attr not in _REFLECTION or not node.args:
        return False
    return _process_module(file, node.args[0]) is not None and _called(file, node)


def _called(file: PyFile, node: ast.AST) -> bool:
    """Whether what `node` gives is called: at once (`f(…)(0)`), after a lookup in it
    (`vars(os)[k](0)`, `d.get(k)(0)`), or through a name it is bound to that the file calls."""
    while True:
        parent = file.parents.get(node)
        if isinstance(parent, ast.Call) and parent.func is node:
            return True
        if isinstance(parent, ast.Subscript) and parent.value is node:
            node = parent
        elif isinstance(parent, ast.Attribute) and parent.attr in _LOOKUPS:
            call = file.parents.get(parent)
            if not isinstance(call, ast.Call) or call.func is not parent:
                return False
            node = call
        elif isinstance(parent, ast.Assign | ast.NamedExpr) and parent.value is node:
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            return not names.isdisjoint(file.called_names)
        else:
            return False


def _process_module(file: PyFile, node: ast.AST) -> str | None:
    if not isinstance(node, ast.Name | ast.Attribute | ast.Subscript | ast.Call):
        return None
    named = file.names.resolve(node)
    return named if named in _PROCESS_MODULES else None


def _names_an_attribute(call: ast.Call) -> bool:
    """A call that names the attributes it wants: a constant after the object (`setattr(os,
    "environ", …)`), or keywords (`patch.multiple(os, getcwd=…)`); the reader resolves those."""
    return bool(call.keywords) or any(
        isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.isidentifier()
        for a in call.args[1:2]
    )


def _chained(file: PyFile, node: ast.AST) -> bool:
    """Part of a longer name (`os` in `os._exit`), or the callee of a call already resolved."""
    parent = file.parents.get(node)
    if isinstance(parent, ast.Attribute):
        return True
    return (
        isinstance(parent, ast.Call)
        and parent.func is node
        and file.names.resolve(parent) is not None
    )


def _raises_exit(file: PyFile, node: ast.Raise) -> bool:
    raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    named = file.names.resolve(raised)
    if named == "builtins.SystemExit" and _within_a_test(file, node):
        return False
    return named in _EXIT_EXCEPTIONS and not _guarded(file, node)


def _within_a_test(file: PyFile, node: ast.AST) -> bool:
    """Raised by a function a test defines (a fake command it hands to the code under test): it
    runs while the test does, and a SystemExit that reaches the runner from a test is reported as
    that test's failure (pytest and unittest catch it; pytest's own `Exit` they do not). Not when
    the function is installed where it runs outside any test (a signal handler, an exit hook)."""
    functions = [
        a for a in file.ancestors(node) if isinstance(a, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    if len(functions) < 2 or not functions[-1].name.startswith("test"):
        return False
    inner = functions[0].name
    for call in file.calls:
        callee = file.names.resolve(call.func) or ""
        given = [*call.args, *(k.value for k in call.keywords)]
        handed = any(isinstance(a, ast.Name) and a.id == inner for a in given)
        if handed and callee.startswith(_OUTSIDE_TESTS):
            return False
    return True


def _guarded(file: PyFile, node: ast.AST) -> bool:
    """Under `if __name__ == "__main__":` (never run by a test runner), or inside a block that
    expects the exit (`pytest.raises(SystemExit)`, `assertRaises(SystemExit)`)."""
    for parent in file.ancestors(node):
        if isinstance(parent, ast.If) and "__main__" in ast.unparse(parent.test):
            return True
        if isinstance(parent, ast.With | ast.AsyncWith):
            if any("SystemExit" in ast.unparse(i.context_expr) for i in parent.items):
                return True
    return False


def _handled(file: PyFile, node: ast.AST) -> bool:
    """A signal sent whose handler the file installs (`signal.signal(signal.SIGUSR1, on_usr1)`),
    one a handler can catch (not SIGKILL or SIGSTOP)."""
    call = file.parents.get(node)
    if not isinstance(call, ast.Call) or not call.args:
        return False
    sent = ast.unparse(call.args[-1])
    if "SIGKILL" in sent or "SIGSTOP" in sent:
        return False
    return any(
        file.names.resolve(c.func) == "signal.signal" and c.args and ast.unparse(c.args[0]) == sent
        for c in file.calls
    )


def _kills_itself(file: PyFile, node: ast.AST) -> bool:
    call = file.parents.get(node)
    if not isinstance(call, ast.Call) or not call.args:
        return False
    pid = call.args[0]
    if isinstance(pid, ast.Constant) and pid.value in (0, -1):
        return True
    if isinstance(pid, ast.Name) and pid.id in file.names.aliases:
        return False
    inner = pid.func if isinstance(pid, ast.Call) else pid
    return (file.names.resolve(inner) or "") in _SELF | {
        "threading.get_ident",
        "threading.main_thread",
    }


def _native(file: PyFile, node: ast.AST, named: str, test: bool) -> bool:
    """A native library loaded: any ctypes or cffi in test code; in the code under test, the C
    library itself (`CDLL(None)`, `CDLL("libc.so.6")`), whose `_exit` skips every cleanup."""
    if not named.startswith(_NATIVE):
        return False
    if test:
        return True
    call = file.parents.get(node)
    if named.rsplit(".", 1)[-1] not in _LOADERS or not isinstance(call, ast.Call):
        return False
    first = call.args[0] if call.args else None
    library = file.names.fold(first) if first is not None else None
    none = isinstance(first, ast.Constant) and first.value is None
    c_library = none or first is None or (library is not None and _libc(library))
    return c_library and _looks_up_an_exit(file)


def _looks_up_an_exit(file: PyFile) -> bool:
    """The C library loaded, and something of it that ends the process asked for: an exit's name
    as an attribute or a string (`libc._exit`, `getattr(libc, "_exit")`), or a name built at run
    time. pip's `CDLL(None).gnu_get_libc_version` asks for the glibc version only."""
    for node in pysource.nodes(file.tree):
        if isinstance(node, ast.Attribute) and node.attr in C_ENDS:
            if (file.names.resolve(node.value) or "") not in ("os", "sys", "signal"):
                return True
        elif isinstance(node, ast.Constant) and node.value in C_ENDS:
            return True
        elif isinstance(node, ast.Call) and file.names.resolve(node.func) == "builtins.getattr":
            if len(node.args) > 1 and file.names.fold(node.args[1]) is None:
                return True
    return False


def _libc(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return base in ("c", "libc", "msvcrt") or base.startswith(("libc.", "libc-"))


def _ended(file: PyFile, node: ast.AST, named: str) -> Claim:
    return file.claim(
        HARNESS_MODIFIED,
        node,
        M.ended(named),
    )


def _runner_names(file: PyFile) -> Iterator[Claim]:
    found: list[tuple[ast.AST, str]] = [(n, v) for n, v in file.strings()]
    for node in pysource.nodes(file.tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append((node, node.name))
        elif isinstance(node, ast.Attribute):
            found.append((node, node.attr))
    for node, value in found:
        named = names_runner(value)
        if named is not None:
            key = node.name if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else None
            claim = file.claim(
                HARNESS_MODIFIED,
                node,
                M.runner(named),
            )
            yield (
                claim if key is None else Claim(claim.kind, claim.line, claim.message, f"def|{key}")
            )


def _printed(file: PyFile) -> Iterator[Claim]:
    for call in file.calls:
        callee = (file.names.resolve(call.func) or ast.unparse(call.func)).rsplit(".", 1)[-1]
        if callee not in _OUTPUT:
            continue
        for arg in [*call.args, *(k.value for k in call.keywords)]:
            value = file.names.template(arg)
            line = protocol_line(value) if value else None
            if line is not None:
                yield file.claim(
                    HARNESS_MODIFIED,
                    call,
                    M.printed(line),
                )
                break
