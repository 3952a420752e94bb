"""Test existence: each changed source file should have a test somewhere in the project.

A path heuristic, no parsing: `src/x.py` is tested by `tests/test_x.py`, `test_x.py` or `x_test.py`
anywhere; `x.ts` by `x.test.ts` / `x.spec.js` / `__tests__/x.js`; `x.go` by `x_test.go` or any
`_test.go` in its package folder; `X.java` by `XTest.java`; a Rust file by a `#[cfg(test)]`
module in it or `tests/x.rs`. A test named after a folder (`tests/test_static.py`) covers the
files of that folder, as a package's tests do.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Sequence
from pathlib import Path

from referee.tools.static.model import Item
from referee.tools.static.paths import (
    is_test_path,
    language_of,
    needs_test,
    parent_name,
    stem_of,
    test_subject,
)

_RUST_TEST_MARK = b"#[cfg(test)]"
_EXAMPLES = {
    "python": "tests/test_{stem}.py",
    "javascript": "{stem}.test{ext}",
    "typescript": "{stem}.test{ext}",
    "tsx": "{stem}.test{ext}",
    "go": "{stem}_test.go",
    "java": "{stem}Test.java",
    "rust": "a #[cfg(test)] module or tests/{stem}.rs",
    "kotlin": "{stem}Test.kt",
    "csharp": "{stem}Tests.cs",
}


def missing_test_items(
    repo: Path, changed: Sequence[str], all_files: Collection[str]
) -> list[tuple[str, Item]]:
    """(path, finding) for each changed source file that no test in `all_files` covers."""
    tests = [p for p in all_files if is_test_path(p)]
    subjects = {s for s in map(test_subject, tests) if s}
    go_packages = {posixpath.dirname(p) for p in tests if p.endswith("_test.go")}
    found: list[tuple[str, Item]] = []
    for path in changed:
        if needs_test(path) and not _is_tested(repo, path, subjects, go_packages):
            found.append((path, Item("test_existence", 1, _message(path))))
    return found


def _is_tested(repo: Path, path: str, subjects: set[str], go_packages: set[str]) -> bool:
    if stem_of(path).lower() in subjects or parent_name(path).lower() in subjects:
        return True
    if path.endswith(".go"):
        return posixpath.dirname(path) in go_packages
    if path.endswith(".rs"):
        return _has_rust_tests(repo / path)
    return False


def _has_rust_tests(path: Path) -> bool:
    try:
        return _RUST_TEST_MARK in path.read_bytes()
    except OSError:
        return False


def _message(path: str) -> str:
    name = posixpath.basename(path)
    stem, ext = posixpath.splitext(name)
    shape = _EXAMPLES.get(language_of(path) or "", "a test named after {stem}")
    return f"no test found for {name} (expected e.g. {shape.format(stem=stem, ext=ext)})"
