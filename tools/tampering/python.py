"""Python tests (pytest, unittest) read with the standard `ast` module."""

from __future__ import annotations

import ast
import copy

from referee.tools import pysource
from referee.tools.claims.pynames import fold
from referee.tools.tampering import pyreach
from referee.tools.tampering.model import TestInfo

__all__ = ["python_tests"]

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
# The last name of a decorator's callee (`pytest.mark.skipif(…)` → skipif), never its arguments:
# `parametrize("skip", …)` skips nothing.
_SKIP_MARKS = {"skip", "skipif", "xfail", "skipIf", "skipUnless", "expectedFailure"}
# Calls by their last name, however imported (`from pytest import skip`).
_SKIP_CALLS = {"skip", "xfail", "skipTest", "importorskip"}
_SKIP_OWNERS = {"pytest", "self", "unittest", "cls"}


def python_tests(source: str) -> dict[str, TestInfo] | None:
    """Every `test*` function and method, by `Class.name`; None when the file does not parse."""
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError):
        return None
    tree = _skips_by_other_names(tree)
    tests: dict[str, TestInfo] = {}
    context = pyreach.context_of(tree)
    fixtures = _skipping_fixtures(tree)
    for node, owner, owner_skip in _functions(tree):
        if node.name.startswith("test"):
            skip_line = owner_skip or _skip_line(node) or _requests(node, fixtures)
            asserts, inert, lent = pyreach.asserts(node, context)
            tests[f"{owner}{node.name}"] = TestInfo(
                line=node.lineno,
                skipped=skip_line is not None,
                skip_line=skip_line,
                asserts=asserts,
                inert=inert,
                lent=lent,
                trivial=_trivial(node),
            )
    _rebound(tree, tests)
    return tests


def _skipping_fixtures(tree: ast.Module) -> dict[str, int]:
    """Fixtures of the module that skip outright, by name: a test that requests one skips."""
    return {
        node.name: node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and any("fixture" in ast.unparse(d) for d in node.decorator_list)
        and _skips_outright(node)
    }


def _requests(node: _FunctionNode, fixtures: dict[str, int]) -> int | None:
    named = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
    return next((fixtures[n] for n in named if n in fixtures), None)


def _rebound(tree: ast.Module, tests: dict[str, TestInfo]) -> None:
    """What the module does to a test after defining it: `test_add.__test__ = False` and
    `test_add = pytest.mark.skip(test_add)` (or `unittest.skip(…)(test_add)`) skip it, `del
    test_add` deletes it; in a class body as at the top."""
    scopes: list[tuple[str, list[ast.stmt]]] = [("", tree.body)]
    scopes += [(f"{c.name}.", c.body) for c in tree.body if isinstance(c, ast.ClassDef)]
    for owner, body in scopes:
        for node in body:
            if isinstance(node, ast.Delete):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        tests.pop(owner + target.id, None)
            for target, value in _pairs(node):
                name = _rebinding(target, value)
                test = tests.get(owner + name) if name else None
                if test is not None and not test.skipped:
                    test.skipped, test.skip_line = True, node.lineno


def _rebinding(target: ast.expr, value: ast.expr) -> str:
    """The test a binding skips: `t.__test__ = False` or `t = <skip mark>(t)`, else ''."""
    if isinstance(target, ast.Attribute) and target.attr == "__test__":
        off = isinstance(value, ast.Constant) and value.value is False
        return target.value.id if off and isinstance(target.value, ast.Name) else ""
    if not isinstance(target, ast.Name) or not isinstance(value, ast.Call):
        return ""
    wraps = [a for a in value.args if isinstance(a, ast.Name) and a.id == target.id]
    marker = value.func.func if isinstance(value.func, ast.Call) else value.func
    return target.id if wraps and _mark_name(marker) in _SKIP_MARKS else ""


def _functions(tree: ast.Module) -> list[tuple[_FunctionNode, str, int | None]]:
    found: list[tuple[_FunctionNode, str, int | None]] = []
    module_skip = _pytestmark(tree.body) or _autouse_skip(tree.body)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append((node, "", module_skip))
        elif isinstance(node, ast.ClassDef):
            class_skip = (
                module_skip
                or _decorator_skip(node.decorator_list)
                or _pytestmark(node.body)
                or _not_collected(node, classes)
            )
            found.extend(
                (m, f"{node.name}.", class_skip)
                for m in node.body
                if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
            )
    return found


def _pytestmark(body: list[ast.stmt]) -> int | None:
    """What skips every test of a module or class body: `pytestmark = pytest.mark.skip` (or a
    list holding one), `__test__ = False`, `__unittest_skip__ = True`, a `setUp`/`setUpClass`
    that skips."""
    bound = _bound_values(body)
    for node in body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            call = node.value  # `pytest.skip(…, allow_module_level=True)`, `pytestmark.append(…)`
            if _is_skip_call(call.func) or _marks_pytestmark(call):
                return node.lineno
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            value = node.value
            if "pytestmark" in names:
                value = bound.get(value.id, value) if isinstance(value, ast.Name) else value
                marks = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
                if any(_mark_name(m) in _SKIP_MARKS for m in marks):
                    return node.lineno
            if isinstance(value, ast.Constant) and (
                ("__test__" in names and value.value is False)
                or ("__unittest_skip__" in names and value.value is True)
            ):
                return node.lineno
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in _SETUPS:
            skip = _skip_line(node)
            if skip is not None:
                return skip
    return None


_SETUPS = {"setUp", "setUpClass", "setup_class", "setup_method"}
_SETUPS |= {"setup_module", "setUpModule", "setup_function", "setup"}


def _bound_values(body: list[ast.stmt]) -> dict[str, ast.expr]:
    """Names a body binds (the last binding wins): `LATER = [pytest.mark.skip]`."""
    return {
        t.id: node.value
        for node in body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    }


def _marks_pytestmark(call: ast.Call) -> bool:
    """`pytestmark.append(pytest.mark.skip)`, `pytestmark += […]` as a call."""
    func = call.func
    owner = func.value if isinstance(func, ast.Attribute) else None
    named = isinstance(owner, ast.Name) and owner.id == "pytestmark"
    return named and any(_mark_name(a) in _SKIP_MARKS for a in call.args)


def _not_collected(node: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> int | None:
    """A plain test class with an `__init__` or `__new__` of its own or of a class of the file it
    derives from: pytest collects none of its tests (a `unittest.TestCase` may have one)."""
    seen: set[str] = set()
    pending = [node]
    while pending:
        current = pending.pop()
        if any("TestCase" in ast.unparse(base) for base in current.bases):
            return None
        for member in current.body:
            if isinstance(member, ast.FunctionDef) and member.name in ("__init__", "__new__"):
                return member.lineno if current is node else node.lineno
        for base in current.bases:
            name = ast.unparse(base)
            if name in classes and name not in seen:
                seen.add(name)
                pending.append(classes[name])
    return None


_SKIP_NAMES = _SKIP_MARKS | _SKIP_CALLS


def _skips_by_other_names(tree: ast.Module) -> ast.Module:
    """The file read with each skip it spells under another name written as the skip: a
    module-level alias (`off = pytest.mark.skipif`, `from pytest import skip as later`) and a
    helper of the file whose body skips unconditionally (`def later(): pytest.skip()`, a method
    called through `self`), helpers of helpers included. A helper that skips on a condition is
    a fixture's concern, not a skip."""
    aliases: dict[str, ast.expr] = {}
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    for node in _module_statements([*tree.body, *(s for c in classes for s in c.body)]):
        for target, value in _pairs(node):
            wraps = isinstance(value, ast.Call) and any(
                isinstance(a, ast.Name) and a.id == getattr(target, "id", "") for a in value.args
            )  # `test_add = pytest.mark.skip(test_add)` skips test_add (_rebound), aliases nothing
            if isinstance(target, ast.Name) and _names_a_skip(value) and not wraps:
                aliases[target.id] = value
        if isinstance(node, ast.ImportFrom) and node.module in ("pytest", "unittest"):
            for alias in node.names:
                if alias.name in _SKIP_NAMES:
                    spelled = ast.Name(id=node.module, ctx=ast.Load())
                    skip = ast.Attribute(value=spelled, attr=alias.name, ctx=ast.Load())
                    aliases[alias.asname or alias.name] = skip
    tree = _Renamed(aliases, set()).visit(_Fetched().visit(tree))
    for _ in range(3):
        helpers = _skipping_helpers(tree)
        if not helpers:
            break
        tree = _Renamed({}, helpers).visit(tree)
    return tree


def _module_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """A module's statements, those under an `if` on a literal or `try` included (they run as
    the module loads)."""
    found: list[ast.stmt] = []
    for node in body:
        found.append(node)
        if isinstance(node, ast.If) and isinstance(node.test, ast.Constant):
            found += _module_statements(node.body if node.test.value else node.orelse)
        elif isinstance(node, ast.Try):
            found += _module_statements(node.body)
    return found


def _pairs(node: ast.stmt) -> list[tuple[ast.expr, ast.expr]]:
    """(target, value) of an assignment, unpacked: `off, _ = pytest.mark.skip, 1`."""
    if not isinstance(node, ast.Assign):
        return []
    pairs: list[tuple[ast.expr, ast.expr]] = []
    for target in node.targets:
        value = node.value
        if isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List):
            pairs += list(zip(target.elts, value.elts, strict=False))
        else:
            pairs.append((target, value))
    return pairs


def _names_a_skip(value: ast.expr) -> bool:
    """`pytest.mark.skipif`, `pytest.skip`, `pytest.mark.skip(reason=…)`: a mark or a skip
    function; not what a skip function returns (`pytest.importorskip("x")` is a module)."""
    if isinstance(value, ast.Call) and ast.unparse(value.func).endswith("partial"):
        return bool(value.args) and _names_a_skip(value.args[0])  # partial(pytest.skip, "x")
    if isinstance(value, ast.Call):
        return "mark" in ast.unparse(value.func) and _mark_name(value) in _SKIP_MARKS
    if isinstance(value, ast.Lambda):
        return isinstance(value.body, ast.Call) and _is_skip_call(value.body.func)
    return isinstance(value, ast.Name | ast.Attribute) and _mark_name(value) in _SKIP_NAMES


def _skipping_helpers(tree: ast.Module) -> set[str]:
    """Module functions (`name`) and methods (`Class.name`) that skip outright."""
    found = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _skips_outright(node):
            found.add(node.name)
        elif isinstance(node, ast.ClassDef):
            found |= {
                f"{node.name}.{m.name}"
                for m in node.body
                if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef) and _skips_outright(m)
            }
    return found


def _skips_outright(node: _FunctionNode) -> bool:
    """A function (not a test) whose own statements call a skip, not under any condition."""
    if node.name.startswith("test"):
        return False
    return any(_skip_statement(s) for s in node.body)


def _skip_statement(statement: ast.stmt) -> bool:
    """A statement that skips outright: a skip call (not `importorskip`, which skips only where
    the module is missing) or a raised skip exception."""
    if isinstance(statement, ast.Raise):
        return statement.exc is not None and _raises_skip(statement.exc)
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
        return False
    call = statement.value
    return _is_skip_call(call.func) and _mark_name(call) != "importorskip"


def _autouse_skip(body: list[ast.stmt]) -> int | None:
    """An autouse fixture of the module that skips outright: every test skips."""
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _skips_outright(node):
            if any(
                "autouse" in ast.unparse(d) and "fixture" in ast.unparse(d)
                for d in node.decorator_list
            ):
                return node.lineno
    return None


class _Fetched(ast.NodeTransformer):
    """Writes an attribute fetched by a constant string as the attribute:
    `getattr(pytest.mark, "sk" + "ip")` and `pytest.mark.__getattr__("skip")` are
    `pytest.mark.skip`, `getattr(self, "skipTest")` is `self.skipTest`."""

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        func, args = node.func, node.args
        owner: ast.expr | None = None
        if isinstance(func, ast.Name) and func.id == "getattr" and len(args) == 2:
            owner, name = args[0], fold(args[1])
        elif isinstance(func, ast.Attribute) and func.attr == "__getattr__" and len(args) == 1:
            owner, name = func.value, fold(args[0])
        if owner is None or not name or not name.isidentifier():
            return node
        return ast.copy_location(ast.Attribute(value=owner, attr=name, ctx=ast.Load()), node)


class _Renamed(ast.NodeTransformer):
    """Writes aliases of skips as what they alias, and calls of skipping helpers as
    `pytest.skip()` (at the call's line)."""

    def __init__(self, aliases: dict[str, ast.expr], helpers: set[str]) -> None:
        self.aliases, self.helpers = aliases, helpers
        self.owner = ""  # the class whose body is being read: `self.later()` is its method

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:
        outer, self.owner = self.owner, node.name
        self.generic_visit(node)
        self.owner = outer
        return node

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if isinstance(node.ctx, ast.Load) and node.id in self.aliases:
            return ast.copy_location(copy.deepcopy(self.aliases[node.id]), node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        func = node.func
        called = func.id if isinstance(func, ast.Name) else ""
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            mine = func.value.id in ("self", "cls") and self.owner
            called = f"{self.owner}.{func.attr}" if mine else ""
        if called in self.helpers:
            skip = ast.Attribute(value=ast.Name(id="pytest", ctx=ast.Load()), attr="skip")
            node.func = ast.copy_location(skip, func)
        return node


def _mark_name(node: ast.expr) -> str:
    """The last name of a mark or decorator: `pytest.mark.skipif(True)` → `skipif`."""
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute):
        return target.attr
    return target.id if isinstance(target, ast.Name) else ""


def _decorator_skip(decorators: list[ast.expr]) -> int | None:
    return next((d.lineno for d in decorators if _mark_name(d) in _SKIP_MARKS or _no_rows(d)), None)


def _no_rows(decorator: ast.expr) -> bool:
    """`@pytest.mark.parametrize("a", [])`: a test declared once per row of an empty table,
    which pytest skips."""
    if not isinstance(decorator, ast.Call) or _mark_name(decorator) != "parametrize":
        return False
    rows = [k.value for k in decorator.keywords if k.arg == "argvalues"] + decorator.args[1:2]
    return bool(rows) and pyreach.rows(rows[0], pyreach.Context()) == 0


def _skip_line(node: _FunctionNode) -> int | None:
    marked = _decorator_skip(node.decorator_list)
    if marked is not None:
        return marked
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and _is_skip_call(sub.func):
            return sub.lineno
        if isinstance(sub, ast.Raise) and sub.exc is not None and _raises_skip(sub.exc):
            return sub.lineno
    return None


def _is_skip_call(func: ast.expr) -> bool:
    """`pytest.skip(…)`, `self.skipTest(…)`: a skip function on its module or the test case (a
    bare `skip(…)` imported from pytest is written `pytest.skip` by _skips_by_other_names; any
    other `skip` is the file's or a cursor's own)."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.attr in _SKIP_CALLS and func.value.id in _SKIP_OWNERS
    if isinstance(func, ast.Call) and ast.unparse(func.func).endswith("partial") and func.args:
        return _is_skip_call(func.args[0])  # `functools.partial(pytest.skip, "x")()`
    return False


def _raises_skip(exc: ast.expr) -> bool:
    """`raise unittest.SkipTest(…)`, `raise pytest.skip.Exception`, `raise SkipTest`."""
    return "SkipTest" in ast.unparse(exc) or "skip.Exception" in ast.unparse(exc)


def _trivial(node: _FunctionNode) -> bool:
    body = [
        s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    return all(
        isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        for s in body
    )
