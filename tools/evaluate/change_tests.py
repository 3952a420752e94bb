"""Which of the change's files belong to its tests: test files by path, and the data they read.

A test is its code and the values it compares with. When those values sit in a data file outside
any test folder (`data/cases.json`, `expected/output.txt`), a change that rewrites them to the
broken results edits the test without touching a test file. So a changed file that is no source
code and whose name a test file of the base or the evaluated tree spells out is test data: it
goes with the test files into every view (the base run takes the change's version, the base-tests
run puts the base's back). A name built at run time escapes this reading; the base's own form of
the tests still runs whenever a test file is edited.
"""

from __future__ import annotations

import posixpath
from functools import lru_cache
from pathlib import Path

from referee.tools.graders import test_patch
from referee.tools.repo import blob_texts, tree_entry_map
from referee.tools.static.paths import is_test_path, language_of

__all__ = ["change_tests"]

# Names this short or this common say nothing about which file a test reads.
_MIN_NAME = 5
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
    candidates = [p for p in changed if _data_file(p) and p not in tests]
    if not candidates:
        return tuple(tests)
    names = {p: posixpath.basename(p) for p in candidates}
    texts = _test_texts(repo, list(trees))
    read = [p for p, name in names.items() if any(name in t for t in texts)]
    return tuple(sorted({*tests, *read}))


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
