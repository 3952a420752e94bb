"""Does an edit of a test file only add tests? Then the base's tests in it are unchanged.

Checking edited tests against their base form costs a run of the suite. Most honest changes add
tests to an existing file and touch nothing the base had; for those the base form and the
current one run the base's tests identically, so that run can be spared. The test is strict: every
statement of the base file is still there, unchanged and in order, and everything added is a
new test or test class under a name the base did not use (Python), or a new top-level
`test`/`it`/`describe` call (JavaScript/TypeScript). What of the addition runs as the file is
imported or collected (a decorator's arguments, defaults, annotations, a class's bases and body, a
`describe` body, a title's `${…}`) must be inert data, since it runs before the base's tests. A
changed fixture, helper, import, decorator or module-level statement, a redefined name, anything
else: not additive, and the base form runs.
"""

from __future__ import annotations

import ast
import re

import tree_sitter as ts

from referee.tools import pysource
from referee.tools.tampering.syntax import parse, text

__all__ = [
    "inert_expression",
    "new_test",
    "only_adds_tests",
    "script_language",
    "test_statement",
]

_SCRIPT = re.compile(r"\.[cm]?[jt]sx?$")
_TEST_CALLS = frozenset({"test", "it", "describe", "suite", "specify", "context"})


def only_adds_tests(path: str, base: str, now: str) -> bool:
    """True when `now` is `base` plus new tests only (see the module docstring)."""
    if path.endswith(".py"):
        return _python_additive(base, now)
    if _SCRIPT.search(path):
        return _script_additive(path, base, now)
    return False


def _python_additive(base: str, now: str) -> bool:
    try:
        before, after = pysource.parse(base), pysource.parse(now)
    except (SyntaxError, ValueError, RecursionError):
        return False
    return _body_additive(before.body, after.body, top=True)


def _body_additive(before: list[ast.stmt], after: list[ast.stmt], *, top: bool) -> bool:
    dumped = [ast.dump(s) for s in after]
    names = {n for s in before for n in _bound(s)}
    at = 0
    matched: set[int] = set()
    for statement in before:
        wanted = ast.dump(statement)
        while at < len(after) and dumped[at] != wanted:
            at += 1
        if at == len(after):
            return _same_class_grown(before, after) if top else False
        matched.add(at)
        at += 1
    added = [s for i, s in enumerate(after) if i not in matched]
    return all(new_test(s, names) for s in added)


def _same_class_grown(before: list[ast.stmt], after: list[ast.stmt]) -> bool:
    """A test class that gained methods and lost nothing, everything else as above."""
    classes = {s.name: s for s in after if isinstance(s, ast.ClassDef)}
    flattened_after: list[ast.stmt] = []
    grown: dict[str, ast.ClassDef] = {}
    for statement in before:
        if isinstance(statement, ast.ClassDef) and statement.name in classes:
            other = classes[statement.name]
            header = (ast.dump(b) for b in (*statement.bases, *statement.decorator_list))
            if list(header) != [ast.dump(b) for b in (*other.bases, *other.decorator_list)]:
                return False
            if not _body_additive(statement.body, other.body, top=False):
                return False
            grown[statement.name] = other
    for statement in after:
        if isinstance(statement, ast.ClassDef) and statement.name in grown:
            flattened_after.append(_as_before(before, statement.name))
        else:
            flattened_after.append(statement)
    return _body_additive(before, flattened_after, top=False)


def _as_before(before: list[ast.stmt], name: str) -> ast.stmt:
    return next(s for s in before if isinstance(s, ast.ClassDef) and s.name == name)


def _bound(statement: ast.stmt) -> set[str]:
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {statement.name}
    found: set[str] = set()
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, ast.alias):
            found.add((node.asname or node.name).split(".")[0])
    return found


def new_test(statement: ast.stmt, taken: set[str]) -> bool:
    """A test function or class under a name base did not use, whose every part that runs as the
    module is imported (decorators, defaults, annotations, a class's bases and body) is inert."""
    if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return False
    if statement.name in taken or not statement.name.lower().startswith("test"):
        return False
    if not all(_is_mark(d) for d in statement.decorator_list):
        return False
    if isinstance(statement, ast.ClassDef):
        return _inert_class(statement)
    return _inert_signature(statement)


def _inert_signature(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    # Defaults and annotations are evaluated when `def` runs, at import: a default of
    # `globals().update(add=...)` rebinds the module's names before the base's tests run. Data
    # (`tmp_path: Path`, `x: int | None = None`) is fine.
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    defaults = [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
    annotations = [a.annotation for a in every if a.annotation is not None]
    if function.returns is not None:
        annotations.append(function.returns)
    return all(inert_expression(e, calls=False) for e in (*defaults, *annotations))


def _inert_class(cls: ast.ClassDef) -> bool:
    """A class body runs at import: only methods (inert as above) and a docstring; bases are plain
    names; no keywords (a metaclass is code that runs)."""
    if cls.keywords or not all(inert_expression(b, calls=False) for b in cls.bases):
        return False
    for index, member in enumerate(cls.body):
        if index == 0 and _is_docstring(member):
            continue
        if not isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
            return False
        if not all(_is_mark(d) for d in member.decorator_list) or not _inert_signature(member):
            return False
    return True


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _is_mark(decorator: ast.expr) -> bool:
    """`@pytest.mark.parametrize(...)` and friends with inert arguments, never a skip or an
    expected failure."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    text = ast.unparse(target)
    if not text.startswith("pytest.mark.") or any(word in text for word in ("skip", "xfail")):
        return False
    if isinstance(decorator, ast.Call):
        values = [*decorator.args, *(k.value for k in decorator.keywords)]
        return all(inert_expression(v, calls=True) for v in values)
    return True


# What a mark's argument, a default, an annotation or a base may be made of: data, and names,
# attributes or items to read. No call
# but `pytest.param(…)`/`pytest.mark.…(…)`, no lambda, walrus, comprehension or f-string: any of
# those is code that runs at import.
_DATA = (
    ast.Constant,
    ast.Name,
    ast.Attribute,
    ast.Tuple,
    ast.List,
    ast.Set,
    ast.Dict,
    ast.Starred,
    ast.UnaryOp,
    ast.BinOp,
    ast.BoolOp,
    ast.Compare,
    ast.IfExp,
    ast.Subscript,
    ast.Slice,
    ast.Load,
    ast.boolop,
    ast.cmpop,
    ast.operator,
    ast.unaryop,
    ast.keyword,
)


def inert_expression(node: ast.expr, *, calls: bool) -> bool:
    for part in ast.walk(node):
        if isinstance(part, ast.Call):
            callee = ast.unparse(part.func)
            if not calls or not (callee == "pytest.param" or callee.startswith("pytest.mark.")):
                return False
        elif not isinstance(part, _DATA):
            return False
    return True


def script_language(path: str) -> str:
    """The tree-sitter grammar for a JS/TS file."""
    return "tsx" if path.endswith("x") else "typescript" if ".ts" in path[-4:] else "javascript"


def _script_additive(path: str, base: str, now: str) -> bool:
    """JS/TS: every top-level statement of base is still there, unchanged and in order, and each
    added one is a plain `test(…)`/`it(…)`/`describe(…)` call with a literal title."""
    language = script_language(path)
    before, after = parse(language, base), parse(language, now)
    if before is None or after is None or before.has_error or after.has_error:
        return False
    return _statements_additive(before.named_children, after.named_children)


def _statements_additive(old: list[ts.Node], new: list[ts.Node]) -> bool:
    """Every old statement still there in order, unchanged or a group that only grew; each
    added statement a plain test or group of tests."""
    at = 0
    for node in new:
        if at < len(old) and (text(node) == text(old[at]) or _group_grown(old[at], node)):
            at += 1
        elif not test_statement(node):
            return False
    return at == len(old)


def _group_grown(old: ts.Node, new: ts.Node) -> bool:
    """The same `describe('title', () => {…})` (callee, title and function head alike) whose body
    only gained tests: its base tests run there as they did."""
    before, after = _group(old), _group(new)
    if before is None or after is None or before[0] != after[0]:
        return False
    return _statements_additive(before[1], after[1])


def _group(node: ts.Node) -> tuple[str, list[ts.Node]] | None:
    """A group call's head (everything but its body's statements) and those statements."""
    if not test_statement_shape(node):
        return None
    call = node.named_children[0]
    callee = call.child_by_field_name("function")
    if callee is None or text(callee) not in _GROUPS:
        return None
    args = call.child_by_field_name("arguments")
    parts = [] if args is None else [a for a in args.named_children if a.type != "comment"]
    body = parts[1].child_by_field_name("body")
    if body is None or body.type != "statement_block":
        return None
    head = text(call)[: body.start_byte - call.start_byte]
    return head, [c for c in body.named_children if c.type != "comment"]


def test_statement(node: ts.Node) -> bool:
    """`test('title', () => {…})` (the body runs later, as a test), or a `describe('title', () =>
    {…})` whose block holds only such statements: jest, vitest, mocha and node's runner run a
    describe body while collecting, before any test, so anything else in it acts on the base's
    tests. A title is a plain string; the second argument a function; nothing more."""
    if not test_statement_shape(node):
        return False
    call = node.named_children[0]
    callee = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    assert callee is not None
    parts = [] if args is None else [a for a in args.named_children if a.type != "comment"]
    if text(callee) in _GROUPS:
        body = parts[1].child_by_field_name("body")
        return (
            body is not None
            and body.type == "statement_block"
            and all(test_statement(s) for s in body.named_children if s.type != "comment")
        )
    return True


def test_statement_shape(node: ts.Node) -> bool:
    """A call statement `name('plain title', function)` of a test or group name."""
    if node.type != "expression_statement" or not node.named_children:
        return False
    call = node.named_children[0]
    if call.type != "call_expression":
        return False
    callee = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if callee is None or callee.type != "identifier" or text(callee) not in _TEST_CALLS:
        return False  # `.skip`, `.only`, `.fails`, `.each`: the run's shape changes
    parts = [] if args is None else [a for a in args.named_children if a.type != "comment"]
    return len(parts) == 2 and _plain_title(parts[0]) and parts[1].type in _FUNCTIONS


_GROUPS = frozenset({"describe", "suite", "context"})
_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function"})


def _plain_title(node: ts.Node) -> bool:
    """A string literal, or a template without substitutions (`${…}` runs code)."""
    if node.type == "string":
        return True
    return node.type == "template_string" and not any(
        c.type == "template_substitution" for c in node.named_children
    )
