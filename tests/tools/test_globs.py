"""One glob dialect (git's) for a contract's scope, a static check's paths and their exclusions."""

from __future__ import annotations

import pytest

from referee.tools.globs import Globs
from referee.tools.graders.static import matches
from referee.tools.static.exclude import in_scope

FILES = ["src/a.py", "src/pkg/b.py", "src/pkg/c.ts", "lib/src/d.py", "README.md", "docs/e.md"]

CASES = {
    "src/*.py": ["src/a.py"],
    "src/**/*.py": ["src/a.py", "src/pkg/b.py"],
    "*.py": ["src/a.py", "src/pkg/b.py", "lib/src/d.py"],
    "src/": ["src/a.py", "src/pkg/b.py", "src/pkg/c.ts", "lib/src/d.py"],
    "/src": ["src/a.py", "src/pkg/b.py", "src/pkg/c.ts"],
    "src/pkg": ["src/pkg/b.py", "src/pkg/c.ts"],
    "**/*.md": ["README.md", "docs/e.md"],
    "docs/?.md": ["docs/e.md"],
    "src/pkg/[bc].*": ["src/pkg/b.py", "src/pkg/c.ts"],
    "the login form": [],
    "[unclosed": [],
}


@pytest.mark.parametrize("pattern", sorted(CASES))
def test_scope_and_static_paths_read_a_glob_alike(pattern: str) -> None:
    expected = CASES[pattern]
    assert [f for f in FILES if Globs([pattern]).match(f)] == expected
    assert (in_scope(FILES, [pattern]) or []) == expected
    assert [f for f in FILES if matches(f, [pattern])] == expected


def test_an_exclusion_wins_wherever_it_stands() -> None:
    for patterns in (["src/**", "!src/pkg/**"], ["!src/pkg/**", "src/**"]):
        assert [f for f in FILES if matches(f, patterns)] == ["src/a.py"]


def test_exclusions_alone_keep_every_other_path() -> None:
    assert [f for f in FILES if matches(f, ["!src/**", "!*.md"])] == ["lib/src/d.py"]


def test_a_scope_of_prose_only_limits_nothing() -> None:
    assert in_scope(FILES, ["the checkout flow", "payments"]) is None
