"""Files the static pipeline leaves alone: build output, vendored code, minified bundles and
`.gitignore`d paths, decided by path (files marked generated are found by content, per file, in
`analyse.py`).

Nobody writes these files by hand, so their findings are noise: a hashed bundle in `dist/` has
functions hundreds of lines long that no one can shorten. They are counted in the report
(`excluded`), never analysed, never expected to have tests, never one side of a duplicate.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from referee.tools.globs import Globs
from referee.tools.repo.git import git_many

BUILD_OUTPUT = frozenset({"dist", "build", "out", ".next", ".nuxt", ".svelte-kit", "coverage"})
VENDORED = frozenset({"vendor", "node_modules", "bower_components"})
_MINIFIED_SUFFIXES = (".min.js", ".min.mjs", ".min.css", ".bundle.js", ".js.map", ".css.map")


@dataclass
class Selection:
    """The files to analyse, and why each other one was left out."""

    kept: list[str]
    reasons: dict[str, str] = field(default_factory=dict)

    def counts(self, files: Sequence[str]) -> dict[str, int]:
        """How many of ``files`` were left out, per reason."""
        found = Counter(self.reasons[f] for f in files if f in self.reasons)
        return dict(sorted(found.items()))


def path_reason(path: str) -> str | None:
    """Why a path is not analysed, judged by its name alone, or None."""
    *folders, name = path.split("/")
    if folders and folders[0] == ".referee":
        return "referee's folder"
    if any(part in BUILD_OUTPUT for part in folders):
        return "build output"
    if any(part in VENDORED for part in folders):
        return "vendored"
    if name.lower().endswith(_MINIFIED_SUFFIXES):
        return "minified"
    return None


def select(repo: Path, files: Sequence[str]) -> Selection:
    """Drop build output, vendored and minified files, and tracked files `.gitignore` names."""
    ignored = _ignored_tracked(repo)
    selection = Selection(kept=[])
    for name in files:
        reason = path_reason(name) or ("ignored by .gitignore" if name in ignored else None)
        if reason is None:
            selection.kept.append(name)
        else:
            selection.reasons[name] = reason
    return selection


def in_scope(files: Sequence[str], patterns: Sequence[str]) -> list[str] | None:
    """The files a contract's `scope.in_scope` names, or None when it names none of them.

    Each entry is read in git's glob dialect (`referee.tools.globs`): a path, a folder, or a glob
    (`src/**/*.vue`); entries that are prose ("the login form") match nothing. When no entry
    matches any file, the scope is prose only and limits nothing (None).
    """
    globs = Globs(patterns)
    chosen = [f for f in files if globs.match(f)]
    return chosen or None


def _ignored_tracked(repo: Path) -> set[str]:
    """Tracked files that a `.gitignore` names (committed build output, most of the time)."""
    out = git_many(repo, ["ls-files", "-z", "--cached", "--ignored", "--exclude-standard"])[0]
    return {os.fsdecode(p) for p in (out or b"").split(b"\0") if p}
