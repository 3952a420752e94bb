"""Code under test that defines an equality which never looks at what it is compared with
(`equality_forged`).

A test's verdict is its comparisons. A value whose equality answers without reading the other
operand (`__eq__` returning True, `equals(Object o)` that ignores `o`, a Rust `PartialEq::eq`
whose `other` is `_`, a jest/vitest `asymmetricMatch` that accepts anything, a Go `Equal` that
go-cmp calls) passes every assertion made on it, in the base's tests as in the change's, whatever
the code computed. The class is the operand left out of the answer, not a list of return values:
`return True`, `return 1`, `return not False`, `return self.ok` alike (Python follows the operand
through local assignments; the other languages ask whether the body reads it at all). An
equality that only declines (`return NotImplemented`) or refuses (raises, panics) gives no answer
and is left alone. Read in the code
under test only: a test's own `ANY`-style helper is the test's choice.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

import tree_sitter as ts

from referee.tools.claims.model import EQUALITY_FORGED, Claim
from referee.tools.claims.pyfile import PyFile
from referee.tools.claims.tsfile import TsFile
from referee.tools.tampering.syntax import descendants, text

__all__ = ["py_equalities", "ts_equalities"]

# Comparisons an assertion makes: equality and the orderings (`assert x <= 3`).
_PY_DUNDERS = frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__cmp__"})

PyFunction = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


def _message(name: str) -> str:
    return (
        f"defines `{name}` without reading what it is compared with: a value of it passes every"
        " assertion made on it, whatever the code computed"
    )


def py_equalities(file: PyFile) -> Iterator[Claim]:
    """Python: comparison methods by `def` in a class, and a lambda or module function bound to
    one (`__eq__ = lambda s, o: True`, `setattr(C, "__eq__", f)`,
    `type("S", (int,), {"__eq__": f})`)."""
    functions = {
        n.name: n for n in file.tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    for node, name, function in _py_bound(file.tree, functions):
        if _py_ignores(function):
            yield file.claim(EQUALITY_FORGED, node, _message(name))


def _py_bound(
    tree: ast.Module, functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
) -> Iterator[tuple[ast.AST, str, PyFunction]]:
    def function_of(value: ast.AST | None) -> PyFunction | None:
        if isinstance(value, ast.Lambda):
            return value
        if isinstance(value, ast.Name):
            return functions.get(value.id)
        return None

    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    if item.name in _PY_DUNDERS:
                        yield item, item.name, item
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", "")
                found = function_of(node.value)
                if name in _PY_DUNDERS and found is not None:
                    yield node, name, found
        elif isinstance(node, ast.Call):
            yield from _py_call_bound(node, function_of)
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                name = key.value if isinstance(key, ast.Constant) else None
                found = function_of(value)
                if name in _PY_DUNDERS and found is not None:
                    yield node, str(name), found


def _py_call_bound(
    call: ast.Call, function_of: Callable[[ast.AST | None], PyFunction | None]
) -> Iterator[tuple[ast.AST, str, PyFunction]]:
    """`setattr(C, "__eq__", f)` and `dict(__eq__=f)`-style keywords."""
    args = call.args
    if len(args) == 3 and isinstance(args[1], ast.Constant) and args[1].value in _PY_DUNDERS:
        found = function_of(args[2])
        if found is not None:
            yield call, str(args[1].value), found
    for keyword in call.keywords:
        found = function_of(keyword.value)
        if keyword.arg in _PY_DUNDERS and found is not None:
            yield call, str(keyword.arg), found


def _py_ignores(function: PyFunction) -> bool:
    """No answer the function gives is computed from its second parameter (or its `*args`):
    every value it returns, other than NotImplemented, reads neither the operand nor a name
    assigned from it."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    if len(positional) >= 2:
        other = positional[1].arg
    elif arguments.vararg is not None:
        other = arguments.vararg.arg
    else:
        other = ""  # no operand at all: nothing can depend on it
    if isinstance(function, ast.Lambda):
        return not _not_implemented(function.body) and not _py_reads(function.body, {other})
    tainted = _tainted(function, other)
    answers = [
        r.value
        for r in ast.walk(function)
        if isinstance(r, ast.Return) and r.value is not None and not _not_implemented(r.value)
    ]
    return bool(answers) and not any(_py_reads(a, tainted) for a in answers)


_ASSIGNMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)


def _tainted(function: ast.FunctionDef | ast.AsyncFunctionDef, other: str) -> set[str]:
    """The operand's name and every local assigned from an expression that reads one of them
    (`same = self.a == other.a; return same`)."""
    tainted = {other} if other else set()
    assignments = [n for n in ast.walk(function) if isinstance(n, _ASSIGNMENTS)]
    grew = True
    while grew:
        grew = False
        for node in assignments:
            if node.value is None or not _py_reads(node.value, tainted):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            if names - tainted:
                tainted |= names
                grew = True
    return tainted


def _py_reads(node: ast.AST, names: set[str]) -> bool:
    return any(
        isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names
        for n in ast.walk(node)
    )


def _not_implemented(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "NotImplemented"


# The tree-sitter languages: the method names a comparison calls, and where the operand is.
_TS_NAMES = {
    "java": frozenset({"equals", "compareTo", "compare"}),
    "rust": frozenset({"eq", "ne", "partial_cmp", "cmp", "lt", "le", "gt", "ge"}),
    "go": frozenset({"Equal", "Equals"}),
    "script": frozenset({"asymmetricMatch", "equals"}),
}
_FUNCTIONS = {
    "java": frozenset({"method_declaration"}),
    "rust": frozenset({"function_item"}),
    "go": frozenset({"method_declaration"}),
    "script": frozenset(
        {"method_definition", "pair", "assignment_expression", "function_declaration"}
    ),
}
_DECLINES = frozenset({"throw_statement", "panic", "unimplemented", "todo", "unreachable"})


def ts_equalities(
    file: TsFile, language: str, inside_tests: Callable[[ts.Node], bool] | None = None
) -> Iterator[Claim]:
    """Java `equals`/`compareTo`, Rust `PartialEq`/`Ord` methods, Go `Equal`, a JS/TS
    `asymmetricMatch` or `equals`: each whose operand its body never reads."""
    family = "script" if language in ("javascript", "typescript", "tsx") else language
    names = _TS_NAMES.get(family)
    if names is None:
        return
    for node in file.nodes(*_FUNCTIONS[family]):
        if inside_tests is not None and inside_tests(node):
            continue
        found = _function(node, family)
        if found is None:
            continue
        name, parameters, body = found
        if name not in names or body is None:
            continue
        operands = _operands(parameters, family)
        skipped = 1 if family == "rust" else 0  # Rust's `&self` is the first parameter
        operand = operands[skipped] if len(operands) > skipped else None
        if (operand is None and family != "script") or _declines(body) or not _answers(body):
            continue
        if operand is None or not _reads(body, operand):
            yield file.claim(EQUALITY_FORGED, node, _message(name))


def _function(node: ts.Node, family: str) -> tuple[str, ts.Node | None, ts.Node | None] | None:
    """A function's name, parameter list and body, where `node` defines one."""
    if node.type in ("pair", "assignment_expression"):
        key = node.child_by_field_name("key" if node.type == "pair" else "left")
        value = node.child_by_field_name("value" if node.type == "pair" else "right")
        if key is None or value is None or "function" not in value.type:
            return None
        name = text(key).rsplit(".", 1)[-1].strip("'\"")
        parameters = value.child_by_field_name("parameters") or value.child_by_field_name(
            "parameter"
        )
        return name, parameters, value.child_by_field_name("body")
    parent = node.parent.parent if node.parent is not None else None
    if family == "rust" and (parent is None or parent.type != "impl_item"):
        return None  # a free function named `eq` is no trait's comparison
    name = text(node.child_by_field_name("name"))
    return name, node.child_by_field_name("parameters"), node.child_by_field_name("body")


def _operands(parameters: ts.Node | None, family: str) -> list[str]:
    """Each parameter's name, in order (`_` or a `_`-led Rust name stays: never read)."""
    if parameters is None:
        return []
    if parameters.type == "identifier":  # `x => true`
        return [text(parameters)]
    found = []
    for parameter in parameters.named_children:
        if "comment" in parameter.type:
            continue
        if parameter.type == "self_parameter":
            found.append("self")
            continue
        pattern = (
            parameter.child_by_field_name("pattern")
            or parameter.child_by_field_name("name")
            or parameter
        )
        names = [n for n in [pattern, *descendants(pattern)] if n.type == "identifier"]
        found.append(text(names[0]) if names else "_")
    return found


def _reads(body: ts.Node, name: str) -> bool:
    if name == "_":
        return False
    return any(n.type == "identifier" and text(n) == name for n in [body, *descendants(body)])


def _answers(body: ts.Node) -> bool:
    """The function returns a value: an expression body (an arrow's, a Rust block's tail) or a
    `return` with one. An empty `equals() {}` answers undefined, which equals nothing."""
    if body.type not in ("statement_block", "block"):
        return True
    if body.named_children and body.named_children[-1].type not in ("expression_statement",):
        last = body.named_children[-1]
        if "statement" not in last.type and "declaration" not in last.type:
            return True  # a Rust block's tail expression
    returns = descendants(body, frozenset({"return_statement", "return_expression"}))
    return any(r.named_children for r in returns)


def _declines(body: ts.Node) -> bool:
    """The body only throws or panics (`throw new UnsupportedOperationException()`,
    `unimplemented!()`)."""
    statements = [c for c in body.named_children if "comment" not in c.type]
    if len(statements) != 1:
        return False
    only = statements[0]
    if only.type in _DECLINES:
        return True
    macro = only if only.type == "macro_invocation" else None
    if macro is None and only.type == "expression_statement" and only.named_children:
        macro = (
            only.named_children[0] if only.named_children[0].type == "macro_invocation" else None
        )
    if macro is not None:
        return text(macro.child_by_field_name("macro")) in _DECLINES
    return False
