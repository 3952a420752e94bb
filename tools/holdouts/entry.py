"""add_holdout_files: move a hold-out criterion's tests out of the generator's reach.

The files are copied into the vault (vault.py); a file read from the working tree is then removed
from it (the vault's copy is what runs, and `referee holdout export` gives it back), unless the
caller keeps it. What the generator could still read — a kept file, a file in the repository's
history where `git log -p` shows it — is named in a warning, so that the orchestrator deals with it
before the generator starts.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.tools.errors import InvalidInput, Problem, pointer
from referee.tools.holdouts.vault import HoldoutFile, HoldoutVault, tree_path
from referee.tools.models.contract import Contract
from referee.tools.models.holdouts import (
    AddHoldoutFilesInput,
    AddHoldoutFilesResult,
    HoldoutFileInfo,
)
from referee.tools.paths import confine
from referee.tools.repo import last_commits

__all__ = ["add_holdout_files", "holdout_problems"]

MAX_FILE = 1024 * 1024  # a hold-out is a test file, not a data set
MAX_TOTAL = 16 * 1024 * 1024
MAX_FILES = 1000


def add_holdout_files(
    request: AddHoldoutFilesInput,
    *,
    contract: Contract,
    vault: HoldoutVault,
    repo: Path,
    roots: Sequence[Path],
    now: Callable[[], str],
) -> AddHoldoutFilesResult:
    """Store the request's files as hold-outs of `contract`.

    Args:
        request: The files (paths to read, or inline contents) and where they lie in the tree.
        contract: The stored contract; it must have a hold-out criterion.
        vault: This store's vault.
        repo: The repository the contract is about (paths inside it keep their path).
        roots: Where paths may be read from (the server's roots; the CLI allows any path).
        now: The clock.

    Raises:
        InvalidInput: every problem of the request at once (no hold-out criterion, a path outside
            the roots or the tree, a file too large …); nothing is stored then.
    """
    gathered = _gather(request, contract, repo, roots)
    stamp = now()
    added, total = vault.add(
        contract.id, [(i.path, i.data) for i in gathered], request.criterion, stamp
    )
    removed = [] if request.keep else _remove_originals(repo.resolve(), gathered)
    return AddHoldoutFilesResult(
        contract_id=contract.id,
        files=[_info(entry, replaced) for entry, replaced in added],
        stored=total,
        removed=removed,
        warnings=_exposed(repo, [i.path for i in gathered]),
    )


@dataclass(frozen=True)
class _Gathered:
    path: str
    """Where it lies in the tree when its check runs."""
    data: bytes
    source: Path | None = None
    """The file it was read from, when that is in the working tree."""


def _remove_originals(repo: Path, gathered: list[_Gathered]) -> list[str]:
    """Delete from the working tree the files just stored, and the folders that leaves empty.

    Only files whose bytes are the stored ones go: one changed since it was read stays (and is
    named by a warning).
    """
    removed = []
    for item in gathered:
        source = item.source
        if source is None or not source.is_file() or source.is_symlink():
            continue
        try:
            if source.read_bytes() != item.data:
                continue
            source.unlink()
        except OSError:
            continue
        removed.append(source.relative_to(repo).as_posix())
        parent = source.parent
        while parent != repo and repo in parent.parents and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent
    return removed


def holdout_problems(contract: Contract, criterion: str | None) -> list[Problem]:
    """Why the contract cannot take hold-out files (for `criterion`, when named)."""
    holdouts = [c.id for c in contract.all_criteria() if c.holdout]
    if not holdouts:
        return [
            Problem(
                path="/contract_id",
                code="no_holdout_criterion",
                message=(
                    f"contract {contract.id} has no hold-out criterion: mark one `holdout: true`"
                    " (its check then runs with these files)"
                ),
            )
        ]
    if criterion is not None and criterion not in holdouts:
        return [
            Problem(
                path="/criterion",
                code="not_a_holdout",
                message=(
                    f"{criterion} is not a hold-out criterion of {contract.id}"
                    f" ({', '.join(holdouts)})"
                ),
            )
        ]
    return []


def _gather(
    request: AddHoldoutFilesInput, contract: Contract, repo: Path, roots: Sequence[Path]
) -> list[_Gathered]:
    problems = holdout_problems(contract, request.criterion)
    found: list[_Gathered] = []
    if not request.paths and not request.files:
        problems.append(
            Problem(path="/paths", code="required", message="name at least one path or file")
        )
    to = _folder(request.to)
    if request.to and to is None:
        problems.append(_bad_tree_path("/to", request.to))
    for index, raw in enumerate(request.paths):
        try:
            source = confine(raw, roots, base=repo, at=pointer("paths", index))
        except InvalidInput as exc:
            problems += exc.problems
            continue
        found += _read_path(source, repo.resolve(), to, pointer("paths", index), problems)
    for index, item in enumerate(request.files):
        path = tree_path(item.path)
        if path is None:
            problems.append(_bad_tree_path(pointer("files", index, "path"), item.path))
            continue
        found.append(_Gathered(path, item.content.encode("utf-8")))
    problems += _limits(found)
    if problems:
        raise InvalidInput(problems)
    return found


def _read_path(
    source: Path, repo: Path, to: str | None, at: str, problems: list[Problem]
) -> list[_Gathered]:
    if not source.exists():
        problems.append(Problem(path=at, code="not_found", message=f"{source} does not exist"))
        return []
    inside = source == repo or repo in source.parents
    if to is None and not inside:
        problems.append(
            Problem(
                path=at,
                code="outside_repository",
                message=(
                    f"{source} is outside the repository {repo}: say where it lies in the tree"
                    " with `to`"
                ),
            )
        )
        return []
    files = _files_under(source) if source.is_dir() else [source]
    anchor = source if source.is_dir() else source.parent
    found = []
    for file in files:
        rel = (
            f"{to}/{file.relative_to(anchor).as_posix()}".removeprefix("/")
            if to is not None
            else file.relative_to(repo).as_posix()
        )
        path = tree_path(rel)
        if path is None:
            problems.append(_bad_tree_path(at, rel))
            continue
        try:
            found.append(_Gathered(path, file.read_bytes(), file if inside else None))
        except OSError as exc:
            problems.append(Problem(path=at, code="unreadable", message=f"{file}: {exc.strerror}"))
    return found


def _folder(raw: str | None) -> str | None:
    """The tree folder `to` names ("" for the tree's root: `.`, `./`, or an empty string), None
    when none was named or it may not be one."""
    if raw is None:
        return None
    if raw.replace("\\", "/").strip() in ("", ".", "./"):
        return ""  # Go tests, say, live beside the code at the module's root
    return tree_path(raw)


def _files_under(folder: Path) -> list[Path]:
    found = []
    for current, dirs, names in os.walk(folder):  # symlinks are not followed out of the folder
        dirs[:] = sorted(d for d in dirs if d not in (".git", ".referee", "__pycache__"))
        found += [Path(current, n) for n in sorted(names) if not Path(current, n).is_symlink()]
    return found


def _limits(found: list[_Gathered]) -> list[Problem]:
    big = [i.path for i in found if len(i.data) > MAX_FILE]
    problems = [
        Problem(path="/paths", code="too_large", message=f"{p} is larger than {MAX_FILE} bytes")
        for p in big
    ]
    if len(found) > MAX_FILES:
        problems.append(
            Problem(path="/paths", code="too_large", message=f"more than {MAX_FILES} files")
        )
    elif sum(len(i.data) for i in found) > MAX_TOTAL:
        problems.append(
            Problem(path="/paths", code="too_large", message=f"more than {MAX_TOTAL} bytes in all")
        )
    return problems


def _bad_tree_path(at: str, raw: str) -> Problem:
    return Problem(
        path=at,
        code="bad_tree_path",
        message=(
            f"{raw!r} is not a path inside the tree (relative, no '..', not .git/ or .referee/)"
        ),
    )


def _info(entry: HoldoutFile, replaced: bool) -> HoldoutFileInfo:
    return HoldoutFileInfo(
        path=entry.path,
        sha256=entry.sha256,
        size=entry.size,
        criterion=entry.criterion,
        added_at=entry.added_at,
        replaced=replaced,
    )


def _exposed(repo: Path, paths: list[str]) -> list[Problem]:
    """Where the generator could still read a hold-out: the working tree, the git history."""
    warnings = [
        Problem(
            path="/paths",
            code="holdout_in_tree",
            message=(
                f"{p} is still in the working tree, where the generator can read it; delete it"
                " (its copy in the vault is what runs)"
            ),
        )
        for p in paths
        if (repo / p).exists()
    ]
    for path, commit in last_commits(repo, paths).items():
        warnings.append(
            Problem(
                path="/paths",
                code="holdout_in_history",
                message=(
                    f"{path} is in the repository's history (commit {commit}), where the"
                    " generator can read it with git log; a hold-out should never be committed"
                    " to a branch the generator works on"
                ),
            )
        )
    return warnings
