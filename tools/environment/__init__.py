"""What the tree holds outside git, checked: installed environments and compiled modules.

installed   packages of in-tree virtualenvs and node_modules with files written after the
            contract was created
compiled    untracked compiled Python modules that Python would import instead of the source
ignored     code, settings and data files git ignores, written after the contract was created
interpreters  the environments outside the tree of the interpreters the checks name

Each becomes the antipattern `environment_modified`, with the path, for the judge.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from referee.tools.environment.compiled import compiled_modules
from referee.tools.environment.ignored import ignored_files
from referee.tools.environment.installed import bytecode_after, changed_environments
from referee.tools.environment.interpreters import interpreter_environments, outside_changes
from referee.tools.tampering.model import Tampering
from referee.tools.text import agrees, counted

__all__ = [
    "ENVIRONMENT_MODIFIED",
    "bytecode_after",
    "environment_findings",
    "interpreter_environments",
]

ENVIRONMENT_MODIFIED = "environment_modified"


def environment_findings(
    tree: Path,
    tracked: Collection[str],
    anchor: float | None,
    changed: Collection[str] = (),
    outside: Collection[Path] = (),
) -> list[Tampering]:
    """Findings for the tree's environment; `anchor` is the contract's creation (POSIX time),
    None where the environment is known to be the runner's own (CI installed it); `changed`, the
    change's files (the folders they name are searched too, ignored.py)."""
    found = [
        Tampering(
            ENVIRONMENT_MODIFIED,
            item.path,
            1,
            f"{item.path} is a compiled module outside git"
            + (
                f" that Python imports instead of {item.shadows}"
                if item.shadows
                else ", written after the contract was created"
            ),
        )
        for item in compiled_modules(tree, tracked, anchor)
    ]
    if anchor is None:
        return found
    compiled = {t.location for t in found}
    for path in ignored_files(tree, tracked, anchor, _texts(tree, changed)):
        if path in compiled:
            continue
        found.append(
            Tampering(
                ENVIRONMENT_MODIFIED,
                path,
                1,
                f"{path} is a file git ignores, written after the contract was created: the"
                " checks ran with it, yet it is in no diff and no reader saw it",
            )
        )
    for package in [*changed_environments(tree, anchor), *outside_changes(list(outside), anchor)]:
        more = " (the walk stopped early)" if package.truncated else ""
        found.append(
            Tampering(
                ENVIRONMENT_MODIFIED,
                package.path,
                1,
                f"{counted(package.files, 'file')} of the installed {package.path}"
                f" {agrees(package.files, 'was', 'were')} written after the"
                f" contract was created (e.g. {package.example}): a dependency installed or an"
                f" installed file edited during the work; the checks ran with them{more}",
            )
        )
    return found


_MOST = 1 << 20  # of one changed file: the folder names a path spells are near its top anyway
_MOST_IN_ALL = 4 << 20


def _texts(tree: Path, paths: Collection[str]) -> dict[str, str]:
    """The changed files' texts, up to what ignored.py reads of them in all."""
    found, left = {}, _MOST_IN_ALL
    for path in paths:
        if left <= 0:
            break
        try:
            with (tree / path).open("rb") as file:
                found[path] = file.read(min(_MOST, left)).decode("utf-8", errors="replace")
        except OSError:
            continue
        left -= len(found[path])
    return found
