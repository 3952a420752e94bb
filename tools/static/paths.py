"""What a path is, judged by its name alone: language, source, test, exempt from needing a test."""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache

from referee.tools.static.embedded import EMBEDDING

# Languages with a tree-sitter grammar installed: structure checks run on these.
PARSED_LANGUAGES = {
    ".py": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".java": "java",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
}
# Code we cannot parse but still measure by lines, TODOs and duplicates.
OTHER_SOURCE = {
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".rb": "ruby",
    ".php": "php",
    ".cs": "csharp",
    ".scala": "scala",
    ".dart": "dart",
    ".lua": "lua",
    ".sh": "shell",
    ".bash": "shell",
    ".pl": "perl",
    ".ex": "elixir",
    ".exs": "elixir",
    ".vue": "vue",
    ".svelte": "svelte",
    ".m": "objc",
    ".mm": "objc",
    ".sql": "sql",
    ".r": "r",
}
# Languages whose files are expected to have tests (headers, scripts and markup are not).
TESTED_LANGUAGES = {
    "python",
    "javascript",
    "typescript",
    "tsx",
    "go",
    "java",
    "rust",
    "c",
    "cpp",
    "kotlin",
    "swift",
    "ruby",
    "php",
    "csharp",
    "scala",
    "dart",
}
_HEADERS = {".h", ".hpp", ".hh", ".hxx"}
_TEST_DIRS = {
    "test",
    "tests",
    "__tests__",
    "spec",
    "specs",
    "testing",
    "testdata",
    "fixtures",
    "__mocks__",
    "__snapshots__",
    "e2e",
}
# Files that record what tests expect (jest/vitest snapshots, syrupy's amber files, insta's).
_TEST_DATA_SUFFIXES = (".snap", ".ambr", ".approved.txt", ".received.txt")
_NO_TEST_DIRS = {
    "docs",
    "doc",
    "examples",
    "example",
    "samples",
    "benchmarks",
    "bench",
    "vendor",
    "third_party",
    "migrations",
}
_SUBJECT_DIRS = {"test", "tests", "__tests__", "spec", "specs"}
_NO_TEST_NAMES = {
    "__main__.py",
    "conftest.py",
    "setup.py",
    "noxfile.py",
    "manage.py",
    "fabfile.py",
    "settings.py",
    "config.py",
    "conf.py",
    "_version.py",
    "wsgi.py",
    "asgi.py",
    "build.rs",
    "doc.go",
    "package-info.java",
    "module-info.java",
}
_CONFIG_NAME = re.compile(r"(^|[.-])(config|conf|rc)\.[cm]?[jt]s$|\.d\.[cm]?ts$")
# Test-file name shapes; group "s" is the subject the test is about.
_TEST_STEM = re.compile(
    r"^(?:test[_-](?P<a>.+)|(?P<b>.+?)(?:_test|_tests|\.test|\.spec|_spec|-test|-spec)"
    r"|(?P<c>.+?)(?:Test|Tests)|Test(?P<d>[A-Z]\w*)|(?P<e>.+?[a-z0-9])IT|tests?)$"
)


@lru_cache(maxsize=1 << 16)
def _split(path: str) -> tuple[tuple[str, ...], str, str]:
    """Folders, stem and lower-cased suffix of a posix path.

    Plain string work, memoised: a warm run asks this several times for each of thousands of paths.
    """
    *folders, name = path.split("/")
    dot = name.rfind(".")
    if dot <= 0:
        return tuple(folders), name, ""
    return tuple(folders), name[:dot], name[dot:].lower()


def language_of(path: str) -> str | None:
    """The language of a file from its extension, or None for data, docs and unknown files."""
    suffix = _split(path)[2]
    return PARSED_LANGUAGES.get(suffix) or OTHER_SOURCE.get(suffix)


def parsed_language(path: str) -> str | None:
    """The tree-sitter language name for a path (`vue`/`svelte` for components, whose script
    blocks are parsed as JS/TS), or None when no grammar is installed."""
    suffix = _split(path)[2]
    return PARSED_LANGUAGES.get(suffix) or EMBEDDING.get(suffix)


def stem_of(path: str) -> str:
    """The file name without its last extension (`a/b.test.ts` -> `b.test`)."""
    return _split(path)[1]


def parent_name(path: str) -> str:
    """The name of the folder holding a file ('' at the root)."""
    folders = _split(path)[0]
    return folders[-1] if folders else ""


def is_test_path(path: str) -> bool:
    """Whether a path is a test, a test helper or test data (by folder or by name)."""
    folders, stem, suffix = _split(path)
    if any(part.lower() in _TEST_DIRS for part in folders):
        return True
    if path.endswith(_TEST_DATA_SUFFIXES):
        return True
    return stem + suffix == "conftest.py" or _TEST_STEM.match(stem) is not None


def test_subject(path: str) -> str | None:
    """The lower-cased name a test file is about, or None.

    `tests/test_x.py`, `x_test.go`, `x.spec.ts`, `XTest.java` and `__tests__/x.js` are about `x`;
    a bare `tests.py` is about its folder (Django's convention).
    """
    stem, parent = stem_of(path), parent_name(path)
    match = _TEST_STEM.match(stem)
    if match is not None:
        subject = next((g for g in match.groups() if g), None) or parent
        return normal_name(subject) or None
    if parent.lower() in _SUBJECT_DIRS:
        return normal_name(stem)
    return None


def normal_name(name: str) -> str:
    """A name as test conventions compare it: `_utils`, `Utils` and `utils` alike, `-` as `_`."""
    return name.lower().lstrip("_").replace("-", "_")


def needs_test(path: str) -> bool:
    """Whether a changed file is source code that should come with a test."""
    folders, stem, suffix = _split(path)
    name = stem + suffix if suffix else stem
    if language_of(path) not in TESTED_LANGUAGES or is_test_path(path):
        return False
    if (
        suffix in _HEADERS
        or name in _NO_TEST_NAMES
        or name.startswith(".")
        or _CONFIG_NAME.search(name)
    ):
        return False
    return not any(part.lower() in _NO_TEST_DIRS or part.startswith(".") for part in folders)


_MODULE_SCRIPTS = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx")


def module_key(path: str) -> str | None:
    """What a source file is imported as, where another path names the same module: Python's
    `pkg/calc.py`, `pkg/calc/__init__.py` and `src/pkg/calc.py`, Rust's `ops.rs` and
    `ops/mod.rs`, a script's `util.js`, `util.ts` and `util/index.ts`. None for a file of no such
    language."""
    stem, ext = posixpath.splitext(path)
    folder, name = posixpath.split(stem)
    kinds = {".py": ("py", "__init__"), ".rs": ("rs", "mod")}
    # A file without a suffix is a script to node's and vite's resolvers (`require('./calc')`
    # tries `calc` before `calc.js`).
    script = ext in _MODULE_SCRIPTS or (not ext and not name.startswith("."))
    kind, index = kinds.get(ext) or (("js", "index") if script else ("", ""))
    module = folder if name == index else stem
    if kind == "py":
        module = module.removeprefix("src/")  # a src layout imports `src/calc.py` as `calc`
    return f"{kind}:{module}" if kind and module else None


def same_module_paths(path: str) -> list[str]:
    """The other paths a file could be at and still be the module it is (module_key)."""
    key = module_key(path)
    if key is None:
        return []
    kind, _, stem = key.partition(":")
    prefix = f"{stem}/" if stem else ""
    if kind == "py":
        found = [f"{root}{stem}.py" for root in ("", "src/")]
        found += [f"{root}{prefix}__init__.py" for root in ("", "src/")]
    elif kind == "rs":
        found = [f"{stem}.rs", f"{prefix}mod.rs"]
    else:
        found = [stem, *(f"{stem}{e}" for e in _MODULE_SCRIPTS)]
        found += [f"{prefix}index{e}" for e in _MODULE_SCRIPTS]
    return [p for p in found if p != path]
