"""Does an edit of a test file only add tests? Then the base's tests in it are unchanged.

Checking edited tests against their base form costs a run of the suite. Most honest changes add
tests to an existing file and touch nothing the base had; for those the base form and the
current one run the base's tests identically, so that run can be spared. The test is strict: every
statement of the base file is still there, unchanged and in order, and everything added is a
new test or test class under a name the base did not use (Python), or a new top-level
`test`/`it`/`describe` call (JavaScript/TypeScript). A changed fixture, helper, import, decorator
or module-level statement, a redefined name, anything else: not additive, and the base form runs.
"""

from __future__ import annotations

import ast
import re

import tree_sitter as ts

from referee.tools.tampering.syntax import parse, text

__all__ = ["only_adds_tests"]

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
        before, after = ast.parse(base), ast.parse(now)
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
    return all(_new_test(s, names) for s in added)


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


def _new_test(statement: ast.stmt, taken: set[str]) -> bool:
    """A test function or class (no decorator but pytest's marks) under a name base did not use."""
    if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return False
    if statement.name in taken or not statement.name.lower().startswith("test"):
        return False
    return all(_is_mark(d) for d in statement.decorator_list)


def _is_mark(decorator: ast.expr) -> bool:
    """`@pytest.mark.parametrize(...)` and friends, but never a skip or an expected failure."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    text = ast.unparse(target)
    return text.startswith("pytest.mark.") and not any(word in text for word in ("skip", "xfail"))


def _script_additive(path: str, base: str, now: str) -> bool:
    """JS/TS: every top-level statement of base is still there, unchanged and in order, and each
    added one is a plain `test(…)`/`it(…)`/`describe(…)` call with a literal title."""
    language = "tsx" if path.endswith("x") else "typescript" if ".ts" in path[-4:] else "javascript"
    before, after = parse(language, base), parse(language, now)
    if before is None or after is None or before.has_error or after.has_error:
        return False
    old, new = [text(n) for n in before.named_children], after.named_children
    at = 0
    for node in new:
        if at < len(old) and text(node) == old[at]:
            at += 1
        elif not _test_statement(node):
            return False
    return at == len(old)


def _test_statement(node: ts.Node) -> bool:
    if node.type != "expression_statement" or not node.named_children:
        return False
    call = node.named_children[0]
    if call.type != "call_expression":
        return False
    callee = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if callee is None or callee.type != "identifier" or text(callee) not in _TEST_CALLS:
        return False  # `.skip`, `.only`, `.fails`, `.each`: the run's shape changes
    first = args.named_children[0] if args is not None and args.named_children else None
    return first is not None and first.type in ("string", "template_string")
