"""Python code that replaces what the tests judge with.

A test's verdict is made by its instruments: the test library's assertions (`assertEqual`,
`pytest.approx`), the comparison helpers it calls (`math.isclose`, `operator.eq`), the hook that
shows a doctest's value (`sys.displayhook`, which doctest restores from `sys.__displayhook__`
before every example). Code that puts something else there decides every comparison made after
it is imported, in the base's tests as in the change's, whatever the code computed. The class is
the write, however spelled: an attribute or item assigned (`math.isclose = …`,
`vars(math)["isclose"] = …`, `sys.modules["math"].isclose = …`), `setattr`, a namespace's
`update`. A literal value is a setting (`unittest.TestCase.maxDiff = None`), not a replacement.

In a test file it is `harness_modified` (it acts for the runner: the tests also run without
it). In code under test it is `equality_forged`, a suspicion for the judge, since a program may
have its own reasons (a REPL sets `sys.displayhook`, gettext binds `builtins._`); there the hard
check is at run time: referee's pytest guard finds the instruments replaced (runners/
pytest_guard.py). A test may rebind a builtin for itself (`builtins.input`); code under test that
rebinds one (`builtins.repr`, `builtins.isinstance`) is `equality_forged` too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from referee.tools import pysource
from referee.tools.claims.model import EQUALITY_FORGED, HARNESS_MODIFIED, Claim
from referee.tools.claims.pyfile import PyFile
from referee.tools.claims.pynames import Names, literal, whose

__all__ = ["instruments"]

# Modules that are instruments as a whole: test libraries and their assertion helpers.
_LIBRARIES = frozenset(
    {"unittest", "pytest", "_pytest", "doctest", "hypothesis", "pytest_check", "assertpy"}
    | {"hamcrest", "testtools", "nose", "nose2", "sure", "expects", "dirty_equals", "syrupy"}
    | {"snapshottest", "approvaltests", "inline_snapshot", "testfixtures", "deepdiff"}
)
_PARTS = ("numpy.testing", "pandas.testing", "pandas._testing", "operator", "_operator")
# Single names the tests compare or show values through.
_NAMES = frozenset(
    {"sys.displayhook", "sys.__displayhook__", "math.isclose", "cmath.isclose", "numpy.isclose"}
    | {"numpy.allclose", "numpy.array_equal", "numpy.array_equiv", "pprint.pformat"}
    | {"reprlib.repr", "pprint.saferepr", "difflib.ndiff", "difflib.unified_diff"}
)
# Builtins a program may rebind for itself: gettext's `_`, the interactive `help`.
_OWN_BUILTINS = frozenset({"builtins._", "builtins.help", "builtins.__import__"})


def instruments(file: PyFile) -> Iterator[Claim]:
    """Every replacement of a test instrument the file makes (a builtin's only in code under
    test)."""
    for node, dotted in _writes(file):
        if file.role == "test" and _instrument(dotted) and dotted != "sys.displayhook":
            yield file.claim(HARNESS_MODIFIED, node, _message(dotted))
        elif file.role == "source" and (_instrument(dotted) or _builtin(dotted)):
            yield file.claim(EQUALITY_FORGED, node, _message(dotted))


def _writes(file: PyFile) -> Iterator[tuple[ast.AST, str]]:
    """Each dotted name the file writes with a computed value."""
    for node in pysource.nodes(file.tree):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            if node.value is None or literal(node.value):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Attribute | ast.Subscript):
                    dotted = _module_path(file.names.resolve(target))
                    # Putting back what was saved (`sys.displayhook = before`) replaces nothing.
                    if dotted and _module_path(file.names.resolve(node.value)) != dotted:
                        yield node, whose(dotted) or dotted
        elif isinstance(node, ast.Call):
            yield from ((node, d) for d in _called(file, node))
            yield from ((node, d) for d in _run_as_code(file, node))


_RUNNERS = frozenset({"builtins.exec", "builtins.eval", "builtins.compile"})


def _run_as_code(file: PyFile, call: ast.Call) -> Iterator[str]:
    """A string the file runs (`exec("import math; math.isclose = …")`, however it was put
    together from constants) is read as the code it is, one level deep."""
    if file.names.resolve(call.func) not in _RUNNERS or not call.args:
        return
    source = file.names.fold(call.args[0])
    if not source or len(source) > 100_000:
        return
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return
    inner = PyFile(file.path, tree, Names(tree, ""), file.scope, file.role)
    for _node, dotted in _writes(inner):
        yield dotted


def _called(file: PyFile, call: ast.Call) -> Iterator[str]:
    """`setattr(owner, "name", f)` and `owner.__dict__.update(…)`/`vars(owner).update(…)`."""
    args, callee = call.args, file.names.resolve(call.func)
    # `setattr(…)`, and the same through a type's own slot (`type.__setattr__(C, …)`,
    # `object.__setattr__`, `ModuleType.__setattr__`).
    setter = callee == "builtins.setattr" or (callee or "").endswith(".__setattr__")
    if setter and len(args) == 3 and not literal(args[2]):
        owner, name = file.names.resolve(args[0]), file.names.fold(args[1])
        if owner and name:
            yield whose(_module_path(f"{owner}.{name}")) or ""
    elif isinstance(call.func, ast.Attribute) and call.func.attr == "update":
        namespace = call.func.value
        owner = file.names.resolve(namespace) or ""
        if isinstance(namespace, ast.Call) and namespace.args:
            if file.names.resolve(namespace.func) == "builtins.vars":
                owner = f"{file.names.resolve(namespace.args[0])}.__dict__"
        if owner.endswith(".__dict__") or owner in ("builtins.__builtins__", "builtins.__dict__"):
            yield _module_path(owner.rsplit(".", 1)[0]) + ".*"


def _module_path(dotted: str | None) -> str:
    """`builtins.__builtins__.repr` → `builtins.repr`; `_operator` and `operator` alike."""
    if not dotted:
        return ""
    return dotted.replace("builtins.__builtins__", "builtins", 1)


def _instrument(dotted: str) -> bool:
    if dotted.split(".", 1)[0] in _LIBRARIES:
        return True
    if any(dotted == p or dotted.startswith(p + ".") for p in _PARTS):
        return True
    return dotted in _NAMES or dotted.rstrip("*").rstrip(".") in ("sys", "math", "cmath")


def _builtin(dotted: str) -> bool:
    return dotted.startswith("builtins.") and dotted not in _OWN_BUILTINS


def _message(dotted: str) -> str:
    return (
        f"replaces `{dotted}`, which the tests judge with: every comparison made through it"
        " answers as this code says, whatever the code under test computed"
    )
