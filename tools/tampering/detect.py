"""Test tampering: tests deleted, newly skipped or focused, assertions removed, bodies emptied.

At task scope referee compares each changed test file with the base commit, per ecosystem
(Python through `ast`; JS/TS, Go, Rust and Java through tree-sitter). A generator that silences
a failing test must not earn an ACCEPT, so every finding becomes a detected antipattern.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable
from functools import partial

from referee.tools.static.paths import module_key
from referee.tools.tampering.golang import go_tests
from referee.tools.tampering.java import java_tests
from referee.tools.tampering.javascript import script_tests
from referee.tools.tampering.model import TEST_DELETED, Tampering, TestInfo, compare
from referee.tools.tampering.php import php_tests
from referee.tools.tampering.python import python_tests
from referee.tools.tampering.rust import rust_tests

__all__ = ["Tampering", "detect", "is_test_file"]

Reader = Callable[[str], dict[str, TestInfo] | None]

_JS = r"[cm]?[jt]sx?"
_TEST_FILE = re.compile(
    r"(^|/)(test_[^/]*\.py|[^/]*_test\.py|[^/]*\.(test|spec)\." + _JS + r"|[^/]*_test\.go"
    r"|[^/]*Tests?\.java|Test[^/]*\.java|[^/]*IT\.java|[^/]*Test\.php)$"
)
_TEST_FOLDER = re.compile(r"(^|/)(tests?|__tests__|spec)/")
_READERS: dict[str, Reader] = {
    ".py": python_tests,
    ".js": partial(script_tests, language="javascript"),
    ".jsx": partial(script_tests, language="javascript"),
    ".mjs": partial(script_tests, language="javascript"),
    ".cjs": partial(script_tests, language="javascript"),
    ".ts": partial(script_tests, language="typescript"),
    ".mts": partial(script_tests, language="typescript"),
    ".cts": partial(script_tests, language="typescript"),
    ".tsx": partial(script_tests, language="tsx"),
    ".go": go_tests,
    ".rs": rust_tests,
    ".java": java_tests,
    ".php": php_tests,
}


def _reader(path: str) -> Reader | None:
    dot = path.rfind(".")
    return _READERS.get(path[dot:]) if dot > path.rfind("/") else None


def is_test_file(path: str) -> bool:
    """A file whose tests referee compares with base (Rust: any .rs file, tests live in src/)."""
    if _reader(path) is None or path.rsplit("/", 1)[-1] in ("conftest.py", "__init__.py"):
        return False
    if path.endswith(".rs") or _TEST_FILE.search(path):
        return True
    return bool(_TEST_FOLDER.search(path)) and not path.endswith(".go")


def detect(
    changed: list[str], before: Callable[[str], str | None], after: Callable[[str], str | None]
) -> list[Tampering]:
    """Compare every changed test file at base (`before`) with now (`after`)."""
    # Each side is read once however many questions ask for it (at base: a git call per file).
    before, after = functools.cache(before), functools.cache(after)
    found: list[Tampering] = []
    moved = _moved_away(changed, before, after)
    for path in changed:
        reader = _reader(path)
        if reader is None or path in moved:
            continue
        if not is_test_file(path):
            found.extend(_in_source_deleted(path, before, after))
            continue
        old = before(path)
        if old is None:
            found.extend(_new_file(path, after(path), reader))
            continue
        new = after(path)
        if new is None:
            # A deleted .rs file counts only when it held tests: most Rust files hold none.
            if not path.endswith(".rs") or reader(old):
                found.append(Tampering(TEST_DELETED, path, 1, f"test file {path} was deleted"))
            continue
        tests_before, tests_now = reader(old), reader(new)
        if tests_before is not None and tests_now is not None:
            found.extend(compare(path, tests_before, tests_now))
    return found


def _moved_away(
    changed: list[str], before: Callable[[str], str | None], after: Callable[[str], str | None]
) -> set[str]:
    """Deleted files the change moved to another path of the same module (`ops.rs` to
    `ops/mod.rs`): their tests went along, and the base-tests run checks them as they were."""
    # Only files that share their module with another changed file can be a move: only those
    # are read here, however large the change.
    keys = {p: key for p in changed if (key := module_key(p)) is not None}
    counts = Counter(keys.values())
    shared = [p for p, key in keys.items() if counts[key] > 1]
    new = {keys[p] for p in shared if before(p) is None and after(p) is not None}
    return {p for p in shared if keys[p] in new and after(p) is None}


def _in_source_deleted(
    path: str, before: Callable[[str], str | None], after: Callable[[str], str | None]
) -> list[Tampering]:
    """A deleted source file that held the base's in-source tests (a vitest `import.meta.vitest`
    block): they are deleted with it, as a test file's would be."""
    if not path.endswith(_SCRIPTS) or after(path) is not None:
        return []
    old = before(path)
    if old is None or "import.meta.vitest" not in old:
        return []
    return [Tampering(TEST_DELETED, path, 1, f"the in-source tests of {path} were deleted with it")]


_SCRIPTS = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx")


def _new_file(path: str, text: str | None, reader: Reader) -> list[Tampering]:
    """A new test file can still focus its tests (and so skip every other test of the run)."""
    tests = reader(text) if text is not None else None
    return compare(path, {}, tests or {})
