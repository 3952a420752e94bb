"""Python code read with `ast`: what a test replaces, what it inspects, how code ends the run."""

from __future__ import annotations

import ast

from referee.tools import pysource
from referee.tools.claims.equality import py_equalities
from referee.tools.claims.model import Claim, Role, Scope
from referee.tools.claims.pydisplay import py_displays
from referee.tools.claims.pyenvironment import inspections
from referee.tools.claims.pyescape import escapes
from referee.tools.claims.pyfile import PyFile
from referee.tools.claims.pyinstruments import instruments
from referee.tools.claims.pynames import Names
from referee.tools.claims.pypatch import replacements
from referee.tools.claims.pyreflect import reflective_writes
from referee.tools.claims.pyscope import dotted_names
from referee.tools.claims.pysituation import situations
from referee.tools.tampering.syntax import MAX_SOURCE

__all__ = ["python_claims"]


# What runs a string as code: the builtins, and the modules that time, profile or interpret one.
_RUNS_CODE = frozenset(
    {"builtins.exec", "builtins.eval", "builtins.compile", "timeit.timeit", "timeit.repeat"}
    | {"timeit.Timer", "cProfile.run", "cProfile.runctx", "profile.run", "profile.runctx"}
)
_RUNS_SOURCE = frozenset({"runsource", "runcode"})  # code.InteractiveInterpreter's methods
_NESTING = 3  # exec of a string that execs a string …: deeper than this is not followed


def python_claims(
    path: str, source: str, scope: Scope, role: Role, depth: int = 0
) -> list[Claim] | None:
    """What the Python readers find in one file; None when it does not parse."""
    if len(source) > MAX_SOURCE:
        return None
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None
    # A root `__init__.py` is imported under no name of the tree's own: it has no package.
    names = dotted_names(path) if path.endswith(".py") else []
    package = names[0].rpartition(".")[0] if names else ""
    parents = {child: node for node in pysource.nodes(tree) for child in ast.iter_child_nodes(node)}
    file = PyFile(path, tree, Names(tree, package), scope, role, parents)
    found = [*escapes(file), *situations(file), *instruments(file), *reflective_writes(file)]
    if role == "test":
        found += [*replacements(file), *inspections(file)]
    else:
        found += [*py_equalities(file), *py_displays(file)]
    return found + _executed(file, depth)


def _expects_an_error(file: PyFile, node: ast.AST) -> bool:
    for parent in file.ancestors(node):
        if isinstance(parent, ast.With | ast.AsyncWith) and any(
            "raises" in ast.unparse(i.context_expr).casefold() for i in parent.items
        ):
            return True
    return False


def _executed(file: PyFile, depth: int) -> list[Claim]:
    """What the code the file runs from a string finds (`exec("import os; os._exit(0)")`,
    `eval(compile(…))`), each at the line of the call that runs it: a string the reader can
    fold is code like any other."""
    if depth >= _NESTING:
        return []
    found: list[Claim] = []
    for call in file.calls:
        method = call.func.attr if isinstance(call.func, ast.Attribute) else ""
        runs = file.names.resolve(call.func) in _RUNS_CODE or method in _RUNS_SOURCE
        if not runs or not call.args:
            continue
        if _expects_an_error(file, call):
            continue  # `with pytest.raises(NameError): exec(…)`: the string is meant to fail
        code = file.names.fold(call.args[0])
        inner = python_claims(file.path, code, file.scope, file.role, depth + 1) if code else None
        for claim in inner or []:
            message = claim.message.removeprefix(f"{file.path}:{claim.line} ")
            at = f"{file.path}:{call.lineno}"
            found.append(
                Claim(
                    claim.kind,
                    call.lineno,
                    f"{at} {message} (in code it runs from a string)",
                    f"{claim.key}|exec",
                )
            )
    return found
