"""Fixing what is evaluated: the working tree as it is, or a commit.

The content is named by a tree hash before any check runs. A commit (`ref`) is written out into a
folder of referee's own, which referee reads (static analysis, test files); its checks run at the
repository's own path with the commit shown over the working tree (run.py), or in that folder
where no sandbox can show it there. The folder is always removed, however the evaluation ends
(cancellation included), and `tree_changed` says afterwards what running the checks wrote into an
in-place tree.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import anyio.to_thread

from referee.tools.environment.installed import outside_environments
from referee.tools.errors import InvalidInput, Problem
from referee.tools.models.common import Isolation, Scope
from referee.tools.models.contract import Contract
from referee.tools.models.evaluation import EvaluationTarget, TreeChanged
from referee.tools.process import Launcher
from referee.tools.repo import (
    changed_files,
    commit_tree_hash,
    diff_tree_paths,
    head_commit,
    ignored,
    is_git_repo,
    resolve_commit,
    tree_files,
    working_tree_hash,
    write_tree,
)
from referee.tools.sandbox import SandboxLauncher
from referee.tools.tampering import TREE_MODIFIED, Tampering
from referee.tools.text import shown

__all__ = ["Observed", "TargetRequest", "Workspace", "open_workspace", "tree_changed"]


@dataclass(frozen=True)
class TargetRequest:
    """What the caller asked to evaluate."""

    ref: str | None
    base: str | None
    scope: Scope
    isolation: Isolation


@dataclass
class Workspace:
    """The evaluated content (`target`) and the folder that holds it on disk (`workdir`: the
    repository, or a folder a commit was written into)."""

    target: EvaluationTarget
    workdir: Path
    isolation: Isolation
    changed_paths: list[str] = field(default_factory=list)
    """The changed files by their own names (the target names them shown, tools/text.py)."""
    warnings: list[str] = field(default_factory=list)
    disk_tree: str | None = None
    """The working tree's hash when `workdir` is not the repository (the tree a view of the
    evaluated commit is laid over)."""

    @property
    def repo(self) -> Path:
        return Path(self.target.repo)

    @property
    def base(self) -> str | None:
        return self.target.base

    @property
    def changed(self) -> list[str]:
        return self.changed_paths

    def run_root(self, launcher: Launcher) -> Path:
        """Where the checks run: the repository's own path when the launcher can show the
        evaluated commit there (the sandbox's overlay), else the folder that holds it."""
        return self.repo if not launcher.keeps_writes else self.workdir


@asynccontextmanager
async def open_workspace(
    repo: Path, request: TargetRequest, contract: Contract
) -> AsyncIterator[Workspace]:
    """Fix exactly what is evaluated, for the duration of the block.

    Args:
        repo: The contract's repository.
        request: ref, base, scope and isolation as the caller gave them.
        contract: Supplies the default base (the commit it was written against).

    Yields:
        The workspace: the target (tree hash, commit, base, changed files) and where to run.
    """
    git = is_git_repo(repo)
    if not git:
        _refuse_git_options(repo, request)
    base = request.base or contract.base_commit
    # Each step runs git: in a worker thread, never the event loop's (tools/repo/git.py).
    if base and git:
        base = await anyio.to_thread.run_sync(resolve_commit, repo, base, "/base")
    if git and (request.ref or request.isolation == "worktree"):
        async with _worktree(repo, request, base) as workspace:
            yield workspace
        return
    yield await anyio.to_thread.run_sync(_working_tree, repo, request, base, git)


def _working_tree(repo: Path, request: TargetRequest, base: str | None, git: bool) -> Workspace:
    tree = working_tree_hash(repo)
    # The change since base is the change at every scope: project scope widens what the static
    # pipeline reads, while a bug-fix criterion still proves its tests against the base.
    changed = changed_files(repo, base, tree) if git and (request.scope == "task" or base) else []
    # An in-tree virtualenv or node_modules git does not ignore is no part of the change.
    changed = outside_environments(repo, changed)
    commit = head_commit(repo) if git else None
    target = EvaluationTarget(
        repo=str(repo),
        tree=tree,
        commit=commit,
        base=base,
        changed_files=[shown(p) for p in changed],
        dirty=commit is not None and tree != commit_tree_hash(repo, commit),
    )
    return Workspace(
        target=target, workdir=repo, isolation=request.isolation, changed_paths=changed
    )


def _refuse_git_options(repo: Path, request: TargetRequest) -> None:
    """A commit, a base or a worktree of a plain folder cannot be had: said by the option that
    asked for it, rather than dropped (the working tree judged as if it were the commit) or left
    to fail inside git halfway through the run."""
    asked = [
        ("/ref", request.ref),
        ("/base", request.base),
        ("/isolation", "worktree" if request.isolation == "worktree" and not request.ref else None),
    ]
    problems = [
        Problem(
            path=path,
            code="not_a_repository",
            message=f"{value!r} needs a git repository, and {repo} is not inside one",
        )
        for path, value in asked
        if value
    ]
    if problems:
        raise InvalidInput(problems)


@asynccontextmanager
async def _worktree(
    repo: Path, request: TargetRequest, base: str | None
) -> AsyncIterator[Workspace]:
    commit = await anyio.to_thread.run_sync(resolve_commit, repo, request.ref or "HEAD", "/ref")
    # Outside the repository and outside referee's store: the checked-out code must find neither.
    folder = Path(tempfile.mkdtemp(prefix="referee-checkout-"))
    try:
        tree = await anyio.to_thread.run_sync(commit_tree_hash, repo, commit)
        await anyio.to_thread.run_sync(write_tree, repo, tree, folder)
        disk = await anyio.to_thread.run_sync(working_tree_hash, repo)
        changed = await anyio.to_thread.run_sync(changed_files, repo, base, tree) if base else []
        target = EvaluationTarget(
            repo=str(repo),
            ref=request.ref,
            tree=tree,
            commit=commit,
            base=base,
            changed_files=[shown(p) for p in changed],
        )
        yield Workspace(
            target=target,
            workdir=folder,
            isolation="worktree",
            disk_tree=disk,
            changed_paths=changed,
        )
    finally:
        # Shielded: a cancelled evaluation must still remove its folder.
        with anyio.CancelScope(shield=True):
            shutil.rmtree(folder, ignore_errors=True)


@dataclass
class Observed:
    """What running the checks wrote into the evaluated tree."""

    changed: TreeChanged = field(default_factory=TreeChanged)
    modified: list[Tampering] = field(default_factory=list)


_MAX_PATHS = 200
# Rewritten by package managers and build tools as a matter of course: a write there is reported
# in tree_changed but is not the antipattern.
_LOCKFILES = frozenset(
    {
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "Cargo.lock",
        "go.sum",
        "poetry.lock",
        "uv.lock",
        "Pipfile.lock",
        "composer.lock",
        "Gemfile.lock",
    }
)


def tree_changed(workspace: Workspace, launcher: Launcher) -> Observed:
    """What the checks wrote: read from the sandbox's overlays, or by hashing the tree again.

    In the sandbox every write is seen, even a file written and restored to its old content; a
    file of the evaluated tree written there is the antipattern `tree_modified`. In place, only a
    change that is still there afterwards can be seen (hold-out runs ran in a copy). A worktree
    is thrown away. What hold-out runs wrote is kept apart, for the evaluator (`holdout_paths`).
    """
    if isinstance(launcher, SandboxLauncher):
        observed = _from_overlay(workspace, launcher.writes.of(workspace.repo))
        hidden = _written(workspace, launcher.writes.holdout_of(workspace.repo))
        observed.changed.holdout_paths = [shown(p) for p in hidden[:_MAX_PATHS]]
        return observed
    if workspace.isolation != "inplace":
        return Observed()
    after = working_tree_hash(workspace.workdir)
    if after == workspace.target.tree:
        return Observed()
    paths = diff_tree_paths(workspace.workdir, workspace.target.tree, after) or ["(unknown)"]
    return Observed(TreeChanged(changed=True, paths=[shown(p) for p in paths]))


def _written(workspace: Workspace, writes: list[str]) -> list[str]:
    # Writes git ignores (build output such as target/, caches) are not changes to the tree.
    noise = ignored(workspace.repo, writes)
    return [p for p in writes if p not in noise]


def _from_overlay(workspace: Workspace, writes: list[str]) -> Observed:
    # Only ordinary runs' writes: a hold-out run's are the evaluator's (`holdout_paths`), and a
    # tracked file it wrote is no antipattern, which would reach the generator's brief.
    written = _written(workspace, writes)
    if not written:
        return Observed()
    tracked = set(tree_files(workspace.repo, workspace.target.tree))
    modified = [
        Tampering(
            TREE_MODIFIED,
            shown(path),
            1,
            f"{shown(path)}, a file of the evaluated tree, was written while the checks ran",
        )
        for path in written
        if path in tracked and Path(path).name not in _LOCKFILES
    ]
    paths = [shown(p) for p in written[:_MAX_PATHS]]
    return Observed(TreeChanged(changed=True, paths=paths), modified)
