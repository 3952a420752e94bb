"""Test existence: each changed source file should have a test somewhere in the project.

A path heuristic: `src/x.py` is tested by `tests/test_x.py`, `test_x.py` or `x_test.py` anywhere;
`x.ts` by `x.test.ts` / `x.spec.js` / `__tests__/x.js` / `test/x.js`, and `lib/x.js` by a test
whose dotted name has `x` as a part (`test/api.x.js`); names compare without case, leading
underscores or the `-`/`_` difference (`src/_utils.ts` ↔ `test/utils.test.ts`); `x.go` by
`x_test.go` or any `_test.go` in its package folder; `X.java` by `XTest.java`, `TestX.java` or
`XIT.java` (under `src/test/`); a Rust file by a `#[cfg(test)]` module in it or `tests/x.rs`. A
test named after a folder (`tests/test_static.py`) covers the files of that folder, as a
package's tests do, and a JS/TS `index` file is covered by any script test under its folder (the
tests import the package). Files with nothing to test are skipped: `.d.ts`, types-only modules and
re-exporting barrels, Python modules without logic (a plain `__init__.py`). A test whose name says
nothing of its subject (a bare `test.py`) or that the same change edits covers what it imports.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Sequence
from pathlib import Path

from referee.tools.static.declarations import declaration_only
from referee.tools.static.model import Item
from referee.tools.static.paths import (
    is_test_path,
    language_of,
    needs_test,
    normal_name,
    parent_name,
    stem_of,
    test_subject,
)

_RUST_TEST_MARK = b"#[cfg(test)]"
_SCRIPT_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
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
    subjects = _subjects(tests)
    go_packages = {posixpath.dirname(p) for p in tests if p.endswith("_test.go")}
    importing = _importing_tests(repo, tests, changed)
    found: list[tuple[str, Item]] = []
    for path in changed:
        if not needs_test(path) or _is_tested(repo, path, subjects, go_packages):
            continue
        if _entry_point_tested(path, tests) or _imported(path, importing):
            continue
        entry = _reexported(repo, path)
        if entry is not None and _imported(entry, importing):
            continue
        if not declaration_only(path, _read(repo / path)):
            found.append((path, Item("test_existence", 1, _message(path))))
    return found


def _importing_tests(repo: Path, tests: Sequence[str], changed: Sequence[str]) -> list[str]:
    """The text of the tests whose names say nothing of their subject but whose imports do: a
    test file changed in the same diff, a bare `test.py`/`tests.py` (python-slugify's)."""
    chosen = [t for t in tests if t in set(changed) or test_subject(t) is None]
    texts = (_read(repo / t) for t in chosen[:_MAX_READ])
    return [t[:_MAX_TEXT].decode("utf-8", "replace") for t in texts if t]


_MAX_READ = 200
_MAX_TEXT = 256 * 1024


def _imported(path: str, texts: Sequence[str]) -> bool:
    stem = stem_of(path)
    folder = posixpath.basename(posixpath.dirname(path))
    # A package's entry is imported by the folder's name (`import pkg`, `from "../src"`), an
    # index file by its own name too (`from "../src/index"`).
    names = [folder] if stem == "__init__" else [stem, folder] if stem == "index" else [stem]
    return any(_imports(name, texts) for name in names if name)


def _imports(name: str, texts: Sequence[str]) -> bool:
    # `import x`, `from x import`, `from pkg.x import`, `require('./x')`, `from '../src/x'`.
    pattern = re.compile(
        rf"(?:\bimport\s+(?:[\w.]+\.)?{re.escape(name)}\b|\bfrom\s+(?:[\w.]+\.)?"
        rf"{re.escape(name)}\s+import\b|['\"](?:[^'\"\n]*/)?{re.escape(name)}(?:\.\w+)?['\"])"
    )
    return any(pattern.search(text) for text in texts)


_JS_ENTRIES = ("index.ts", "index.tsx", "index.mts", "index.js", "index.mjs", "index.cjs")
_JS_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def _reexported(repo: Path, path: str) -> str | None:
    """The entry of the module's package when it imports from the module: a Python package's
    `__init__.py` (`from ._manager import PluginManager`), a JS/TS folder's index (`export *
    from "./utils"`). A test that imports the package (`from pluggy import PluginManager`,
    `from "../src"`) imports the module too."""
    folder, stem = posixpath.dirname(path), re.escape(stem_of(path))
    if path.endswith(".py") and stem_of(path) != "__init__":
        package = re.escape(posixpath.basename(folder))
        shape = rf"^\s*from\s+(?:\.|(?:[\w.]+\.)?{package}\.){stem}\s+import\b"
        entries: tuple[str, ...] = ("__init__.py",)
    elif path.endswith(_JS_SUFFIXES) and stem_of(path) != "index":
        shape = rf"^\s*(?:export|import)\b[^;]*?\bfrom\s*['\"]\./{stem}(?:\.\w+)?['\"]"
        entries = _JS_ENTRIES
    else:
        return None
    for name in entries:
        entry = posixpath.join(folder, name)
        text = _read(repo / entry)
        if text and re.search(shape.encode(), text[:_MAX_TEXT], re.MULTILINE):
            return entry
    return None


def _subjects(tests: Sequence[str]) -> set[str]:
    """What the tests are about; a dotted name counts for each part too (`test/api.picomatch.js`
    tests `picomatch`)."""
    found: set[str] = set()
    for subject in filter(None, map(test_subject, tests)):
        found.add(subject)
        found.update(part for part in subject.split(".") if part)
    return found


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _is_tested(repo: Path, path: str, subjects: set[str], go_packages: set[str]) -> bool:
    if normal_name(stem_of(path)) in subjects or normal_name(parent_name(path)) in subjects:
        return True
    if path.endswith(".go"):
        return posixpath.dirname(path) in go_packages
    if path.endswith(".rs"):
        return _has_rust_tests(repo / path)
    return False


def _entry_point_tested(path: str, tests: Sequence[str]) -> bool:
    """A JS/TS package's `index` file is what its tests import (`require('..')`): any script test
    under its folder covers it."""
    if stem_of(path) != "index" or language_of(path) not in _SCRIPT_LANGUAGES:
        return False
    folder = posixpath.dirname(path)
    prefix = f"{folder}/" if folder else ""
    return any(t.startswith(prefix) and language_of(t) in _SCRIPT_LANGUAGES for t in tests)


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
