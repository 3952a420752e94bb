"""Test tampering: tests deleted, newly skipped or xfailed, assertions removed, bodies reduced to
`pass`.

At task scope referee compares each test file with the base commit. A generator that silences a
failing test must not earn an ACCEPT, so every finding becomes a detected antipattern.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass

TEST_DELETED = "test_deleted"
TEST_SKIPPED = "test_skipped"
ASSERTIONS_REMOVED = "assertions_removed"
TEST_EMPTIED = "test_emptied"
# A file of the evaluated tree written while the checks ran (seen in the sandbox's overlay).
TREE_MODIFIED = "tree_modified"

_TEST_FILE = re.compile(
    r"(^|/)(test_[^/]*\.py|[^/]*_test\.py|[^/]*\.(test|spec)\.[jt]sx?|[^/]*_test\.go)$"
)
_JS_SKIP = re.compile(r"\b(?:it|test|describe)\.(?:skip|todo)\s*\(|\bx(?:it|describe|test)\s*\(")
_JS_ASSERT = re.compile(r"\b(?:expect|assert)\b")


@dataclass(frozen=True)
class Tampering:
    kind: str
    path: str
    line: int
    message: str

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"


def is_test_file(path: str) -> bool:
    in_tests_folder = ("tests/" in path or path.startswith("test/")) and path.endswith(".py")
    return bool(_TEST_FILE.search(path)) or (
        in_tests_folder and "conftest" not in path and "__init__" not in path
    )


def detect(
    changed: list[str], before: Callable[[str], str | None], after: Callable[[str], str | None]
) -> list[Tampering]:
    """Compare every changed test file at base (`before`) with now (`after`)."""
    found: list[Tampering] = []
    for path in changed:
        if not is_test_file(path):
            continue
        old, new = before(path), after(path)
        if old is None:
            continue
        if new is None:
            found.append(Tampering(TEST_DELETED, path, 1, f"test file {path} was deleted"))
        elif path.endswith(".py"):
            found.extend(_python(path, old, new))
        else:
            found.extend(_script(path, old, new))
    return found


@dataclass
class _PyTest:
    line: int
    skipped: bool
    asserts: int
    trivial: bool


def _python_tests(source: str) -> dict[str, _PyTest] | None:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    tests: dict[str, _PyTest] = {}
    for node, owner in _functions(tree):
        if node.name.startswith("test"):
            tests[f"{owner}{node.name}"] = _PyTest(
                node.lineno, _skipped(node), _assert_count(node), _trivial(node)
            )
    return tests


def _functions(tree: ast.Module) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]:
    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append((node, ""))
        elif isinstance(node, ast.ClassDef):
            found.extend(
                (m, f"{node.name}.")
                for m in node.body
                if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
            )
    return found


def _skipped(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    marks = " ".join(ast.unparse(d) for d in node.decorator_list)
    if re.search(r"\b(skip|skipif|xfail)\b", marks):
        return True
    return any(_is_skip_call(n) for n in ast.walk(node))


def _is_skip_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    name = ast.unparse(node.func)
    return name in ("pytest.skip", "pytest.xfail", "self.skipTest", "unittest.skip")


def _assert_count(node: ast.AST) -> int:
    count = 0
    for sub in ast.walk(node):
        if (
            isinstance(sub, ast.Assert)
            or (
                isinstance(sub, ast.Call)
                and re.match(r"(self\.assert|pytest\.raises|pytest\.approx)", ast.unparse(sub.func))
            )
            or (
                isinstance(sub, ast.With)
                and any("raises" in ast.unparse(i.context_expr) for i in sub.items)
            )
        ):
            count += 1
    return count


def _trivial(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = [
        s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    return all(
        isinstance(s, ast.Pass)
        or (
            isinstance(s, ast.Expr)
            and isinstance(s.value, ast.Constant)
            and s.value.value is Ellipsis
        )
        for s in body
    )


def _python(path: str, old: str, new: str) -> list[Tampering]:
    before, after = _python_tests(old), _python_tests(new)
    if before is None or after is None:
        return []
    found = []
    for name, was in before.items():
        now = after.get(name)
        found.extend(_compare(path, name, was, now))
    return found


def _compare(path: str, name: str, was: _PyTest, now: _PyTest | None) -> list[Tampering]:
    if now is None:
        return [Tampering(TEST_DELETED, path, was.line, f"test {name} was removed")]
    if now.skipped and not was.skipped:
        return [Tampering(TEST_SKIPPED, path, now.line, f"test {name} is newly skipped or xfailed")]
    if now.trivial and not was.trivial:
        return [Tampering(TEST_EMPTIED, path, now.line, f"test {name} was reduced to `pass`")]
    if now.asserts < was.asserts:
        return [
            Tampering(
                ASSERTIONS_REMOVED,
                path,
                now.line,
                f"test {name} lost assertions ({was.asserts} → {now.asserts})",
            )
        ]
    return []


def _script(path: str, old: str, new: str) -> list[Tampering]:
    found = []
    old_skips, new_skips = len(_JS_SKIP.findall(old)), len(_JS_SKIP.findall(new))
    if new_skips > old_skips:
        line = _first_line(new, _JS_SKIP)
        found.append(
            Tampering(TEST_SKIPPED, path, line, f"{new_skips - old_skips} test(s) newly skipped")
        )
    old_asserts, new_asserts = len(_JS_ASSERT.findall(old)), len(_JS_ASSERT.findall(new))
    if new_asserts < old_asserts:
        found.append(
            Tampering(
                ASSERTIONS_REMOVED, path, 1, f"assertions removed ({old_asserts} → {new_asserts})"
            )
        )
    return found


def _first_line(text: str, pattern: re.Pattern[str]) -> int:
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else 1
