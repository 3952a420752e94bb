"""Which of the change's files belong to its tests: test files by path, and the data they read.

A test is its code and the values it compares with. When those values sit in a data file outside
any test folder (`data/cases.json`, `expected/output.txt`), a change that rewrites them to the
broken results edits the test without touching a test file. So a changed file that is no source
code and whose name a test file of the base or the evaluated tree spells out is test data: it
goes with the test files into every view (the base run takes the change's version, the base-tests
run puts the base's back). A data file a test finds otherwise (a name it builds, a glob, a walk)
is the tests' too when no code of either tree spells it (`_data_by_stem`): the reading is of the
code, which names what it needs, not of every way a test can find a file.

Source files count the same way when they are the tests' by what they are, not by their name: a
Rust module compiled for tests alone in a file of its own (`#[cfg(test)] #[path = "checks.rs"]
mod tests;`, tools/insource/declared.py), a module of values alone that, at base, only test
files read (data_modules.py), and a Python module that holds tests and nothing else, whatever its
name (a project's runner may collect `check_*.py`).
"""

from __future__ import annotations

import ast
import fnmatch
import posixpath
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from referee.tools import pysource
from referee.tools.evaluate.data_modules import data_names, names_in, read_by_code
from referee.tools.graders import test_patch
from referee.tools.harness import MANIFESTS, is_harness_file
from referee.tools.insource.declared import test_files_of
from referee.tools.repo import Entry, blob_texts, tree_entry_map
from referee.tools.static.paths import is_test_path, language_of

__all__ = ["change_tests"]

# Names this short or this common say nothing about which file a test reads.
_MIN_NAME = 5
# What code spells to read a data file may be short (`data/`, `de.json`): a name it reads by.
_CODE_NAME = 3
_COMMON = frozenset({"package.json", "setup.cfg", "pyproject.toml", "go.mod", "Cargo.toml"})


def change_tests(repo: Path, changed: list[str], trees: list[str]) -> list[str]:
    """The changed files a base run treats as the change's tests (see the module docstring).

    Args:
        changed: The files the change added, edited or deleted.
        trees: The trees whose test files are read for names (the base's and the evaluated one).
    """
    return list(_change_tests(repo, tuple(changed), tuple(trees)))


# Each view of an evaluation asks (base, base-tests, base-only, the edited list): the trees are
# content-addressed, so the answer for the same change and trees never differs.
@lru_cache(maxsize=16)
def _change_tests(repo: Path, changed: tuple[str, ...], trees: tuple[str, ...]) -> tuple[str, ...]:
    tests = test_patch(changed)
    sources = [p for p in changed if p not in tests and language_of(p) is not None]
    found = {
        *tests,
        *_rust_test_modules(repo, sources, trees),
        *_data_modules(repo, sources, trees),
        *_test_modules(repo, sources, trees),
    }
    others = [p for p in changed if language_of(p) is None and p not in found]
    candidates = [p for p in others if _data_file(p)]
    if not others:
        return tuple(sorted(found))
    names = {p: posixpath.basename(p) for p in candidates}
    texts = _test_texts(repo, list(trees)) if candidates else []
    read = [p for p, name in names.items() if any(name in t for t in texts)]
    read += _examples(repo, [p for p in candidates if p not in read], trees)
    rest = [p for p in others if p not in read]
    return tuple(sorted({*found, *read, *_data_by_stem(repo, rest, trees)}))


# A doctest example, as a doctest runner finds one in any text file (`pytest --doctest-glob`).
_EXAMPLE = re.compile(r"(?m)^\s*>>> ")


def _examples(repo: Path, candidates: list[str], trees: tuple[str, ...]) -> list[str]:
    """Changed files of text that hold doctest examples (`>>> ` opening a line) on either side,
    whatever their suffix (`--doctest-glob='*.doctest'`): whether a check runs them is the
    check's argv, which a change's run does not show here, and as test data they cost nothing but
    the base's version in the base-tests run."""
    sides = _sides(repo, candidates, trees)
    return [p for p in candidates if any(_EXAMPLE.search(side[p]) for side in sides if p in side)]


def _sides(repo: Path, paths: list[str], trees: tuple[str, ...]) -> list[dict[str, str]]:
    """The text of each of `paths` in each tree that has it (one dict per tree)."""
    if not paths:
        return []
    maps = [tree_entry_map(repo, tree, paths) for tree in trees]
    texts = blob_texts(repo, sorted({e[1] for found in maps for e in found.values()}))
    return [{p: texts.get(e[1], "") for p, e in found.items()} for found in maps]


def _data_by_stem(repo: Path, candidates: list[str], trees: tuple[str, ...]) -> list[str]:
    """Changed data files no code reads by name: the tests' data, however a test finds them.

    A test may read its expected values by a name it spells (`cases/addition.json`), builds
    (`KIND + '.json'`), globs (`**/*.json`) or walks to (`os.walk`, a suffix): no reading of the
    tests finds every way, so the question is asked of the code, which names what it reads in a
    string (`open("tables/rates.json")`, `files(pkg) / "locale"`), or of the configuration it
    reads. A data file is the code's when a string of non-test source without spaces (a path, a
    name; not a docstring, not a comment, not an identifier that happens to be the stem), or a
    configuration file, spells its name, its stem or its folder's name (three characters or
    more); otherwise it is the tests', wherever it lies and whatever it is called. Which code: for
    a file the base had, the base's, which the generator cannot write (a change that spells
    `expect` in its code to keep its rewritten `expect/addition.json` from the base-tests run
    gains nothing); for a new file, the new code's too, since new data is read by the code that
    comes with it. Harness files are judged as such, not as data."""
    data = [p for p in candidates if not is_harness_file(p)]
    if not data:
        return []
    base, evaluated = _code(repo, trees[0]), _code(repo, trees[-1])
    found = []
    for path in data:
        held = path in base.paths
        sides = [base] if held else [base, evaluated]
        words = [posixpath.basename(path), *(w for w in _spellings(path) if len(w) >= _CODE_NAME)]
        if not any(side.reads(path, words) for side in sides):
            found.append(path)
    return found


# A string of code: quoted, on one line, without spaces (a path or a name, not prose).
_STRING = re.compile(r""""([^"\s\\]{1,200})"|'([^'\s\\]{1,200})'|`([^`\s\\]{1,200})`""")


# Go's import paths are strings that name packages, not files (`import "example.com/calc"`).
_GO_IMPORTS = re.compile(r'(?m)^import\s*(?:\([^)]*\)|"[^"\n]*")')


@dataclass(frozen=True)
class _Code:
    """What a tree's non-test code can name a file by: its strings without spaces and its
    configuration files' text; and every path the tree holds."""

    paths: frozenset[str]
    names: tuple[str, ...]
    globs: frozenset[str]
    """The patterns among the strings (`*.csv`, `**/*.json`), by their last part."""

    def reads(self, path: str, words: list[str]) -> bool:
        """Whether this code names the file: by a word of a string, or a pattern its name fits
        (a package that loads `Path(__file__).parent.glob('*.csv')`)."""
        name = posixpath.basename(path)
        return names_in(words, self.names) or any(fnmatch.fnmatch(name, g) for g in self.globs)


def _code(repo: Path, tree: str) -> _Code:
    every = tree_entry_map(repo, tree)
    code = {p: e for p, e in every.items() if language_of(p) is not None and not is_test_path(p)}
    # Configuration the code reads; a manifest names packages and dependencies, not what is read.
    settings = {
        p: e
        for p, e in every.items()
        if language_of(p) is None and is_harness_file(p) and posixpath.basename(p) not in MANIFESTS
    }
    strings = [
        [next(g for g in m.groups() if g) for m in _STRING.finditer(_GO_IMPORTS.sub("", t))]
        for t in _texts(repo, code, list(code))
    ]
    globs = {s.rsplit("/", 1)[-1] for found in strings for s in found if "*" in s or "?" in s}
    return _Code(
        frozenset(every),
        (*("\n".join(found) for found in strings), *_texts(repo, settings, list(settings))),
        frozenset(g for g in globs if g.strip("*?")),
    )


def _stem(path: str) -> str:
    return posixpath.basename(path).split(".", 1)[0]


def _spellings(path: str) -> list[str]:
    """What a test may spell to read a data file: its stem, or its folder's name (a test that
    globs `cases/*.json` reads every file there)."""
    folder = posixpath.basename(posixpath.dirname(path))
    return [_stem(path), folder] if folder else [_stem(path)]


def _rust_test_modules(repo: Path, sources: list[str], trees: tuple[str, ...]) -> list[str]:
    """The changed Rust files that are test code by what the crate says: a module compiled for
    tests alone (declared so, or `#![cfg(test)]` in the file), a file its test code
    `include!`s, a Cargo test target's `path`."""
    rust = [p for p in sources if p.endswith(".rs")]
    if not rust:
        return []
    entries = [_entries(repo, tree, lambda p: p.endswith(".rs") or _cargo(p)) for tree in trees]
    texts = blob_texts(repo, sorted({e[1] for found in entries for e in found.values()}))
    tests: set[str] = set()
    for found in entries:
        for path, entry in found.items():
            source = texts.get(entry[1], "")
            tests |= _cargo_tests(path, source) if _cargo(path) else test_files_of(path, source)
    return [p for p in rust if p in tests]


def _cargo(path: str) -> bool:
    return posixpath.basename(path) == "Cargo.toml"


def _cargo_tests(path: str, source: str) -> set[str]:
    """The files of a manifest's `[[test]]` targets (`path = "checks/sums.rs"`)."""
    try:
        manifest = tomllib.loads(source)
    except (tomllib.TOMLDecodeError, ValueError):
        return set()
    folder = posixpath.dirname(path)
    targets = manifest.get("test")
    found = set()
    for target in targets if isinstance(targets, list) else []:
        where = target.get("path") if isinstance(target, dict) else None
        if isinstance(where, str):
            found.add(posixpath.normpath(posixpath.join(folder, where)))
    return found


def _data_modules(repo: Path, sources: list[str], trees: tuple[str, ...]) -> list[str]:
    """The changed source files that defined no behaviour at base, that a test file of the base
    named and no non-test source of its language read (the base tree is the first of `trees`)."""
    base = _entries(repo, trees[0], lambda p: language_of(p) is not None)
    # Configuration in a script (`babel.config.js`) is harness, judged as such.
    held = [p for p in sources if p in base and not is_harness_file(p)]
    texts = blob_texts(repo, sorted({base[p][1] for p in held}))
    candidates = {p: data_names(p, texts.get(base[p][1], "")) for p in held}
    candidates = {p: names for p, names in candidates.items() if names}
    if not candidates:
        return []
    # Every text of the base a candidate's language has, read once (a candidate is rare).
    languages = {language_of(p) for p in candidates}
    same = [p for p in base if language_of(p) in languages]
    every = blob_texts(repo, sorted({base[p][1] for p in same}))
    read = []
    for path, names in candidates.items():
        others = [p for p in same if p != path and language_of(p) == language_of(path)]
        tests = [every.get(base[p][1], "") for p in others if is_test_path(p)]
        code = [(p, every.get(base[p][1], "")) for p in others if not is_test_path(p)]
        if names_in(names, tests) and not any(read_by_code(path, names, p, t) for p, t in code):
            read.append(path)
    return read


def _test_modules(repo: Path, sources: list[str], trees: tuple[str, ...]) -> list[str]:
    """The changed Python files that hold tests and nothing else, on every side they exist on,
    whatever their name: a project's runner may collect any name (`python_files = check_*.py`),
    and what such a file does as its tests run acts on the base's tests as a `test_*.py` would."""
    python = [p for p in sources if p.endswith(".py") and not is_harness_file(p)]
    sides = _sides(repo, python, trees)
    return [
        p
        for p in python
        if any(p in side for side in sides)
        and all(_only_tests(side[p]) for side in sides if p in side)
    ]


def _only_tests(source: str) -> bool:
    """A module whose functions are all tests or fixtures and whose classes are all test
    classes, with at least one test: nothing in it is code a test could be about."""
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return False
    tests = 0
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            if statement.name.startswith("test"):
                tests += 1
            elif not any("fixture" in ast.unparse(d) for d in statement.decorator_list):
                return False
        elif isinstance(statement, ast.ClassDef):
            if not statement.name.startswith("Test"):
                return False
            tests += 1
    return tests > 0


def _entries(repo: Path, tree: str, keep: Callable[[str], bool]) -> dict[str, Entry]:
    return {p: e for p, e in tree_entry_map(repo, tree).items() if keep(p)}


def _texts(repo: Path, entries: dict[str, Entry], paths: list[str]) -> list[str]:
    return list(blob_texts(repo, sorted({entries[p][1] for p in paths})).values())


def _data_file(path: str) -> bool:
    name = posixpath.basename(path)
    return (
        language_of(path) is None
        and len(name) >= _MIN_NAME
        and name not in _COMMON
        and not name.startswith(".")
    )


def _test_texts(repo: Path, trees: list[str]) -> list[str]:
    shas: set[str] = set()
    for tree in trees:
        entries = tree_entry_map(repo, tree)
        shas |= {e[1] for p, e in entries.items() if is_test_path(p) and language_of(p)}
    return list(blob_texts(repo, sorted(shas)).values())
