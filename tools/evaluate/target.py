"""Fixing what is evaluated: the working tree as it is, or a commit in a detached worktree.

The content is named by a tree hash before any check runs. A worktree is always removed, however
the evaluation ends (cancellation included), and `tree_changed` says afterwards what running the
checks wrote into an in-place tree.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import anyio.to_thread

from referee.tools.models.common import Isolation, Scope
from referee.tools.models.contract import Contract
from referee.tools.models.evaluation import EvaluationTarget, TreeChanged
from referee.tools.repo import (
    add_worktree,
    changed_files,
    commit_tree_hash,
    diff_tree_paths,
    head_commit,
    is_git_repo,
    remove_worktree,
    resolve_commit,
    working_tree_hash,
)

__all__ = ["TargetRequest", "Workspace", "open_workspace", "tree_changed"]


@dataclass(frozen=True)
class TargetRequest:
    """What the caller asked to evaluate."""

    ref: str | None
    base: str | None
    scope: Scope
    isolation: Isolation


@dataclass
class Workspace:
    """The evaluated content (`target`) and the folder the checks run in (`workdir`)."""

    target: EvaluationTarget
    workdir: Path
    isolation: Isolation
    warnings: list[str] = field(default_factory=list)

    @property
    def repo(self) -> Path:
        return Path(self.target.repo)

    @property
    def base(self) -> str | None:
        return self.target.base

    @property
    def changed(self) -> list[str]:
        return self.target.changed_files


@asynccontextmanager
async def open_workspace(
    repo: Path, request: TargetRequest, contract: Contract, home: Path
) -> AsyncIterator[Workspace]:
    """Fix exactly what is evaluated, for the duration of the block.

    Args:
        repo: The contract's repository.
        request: ref, base, scope and isolation as the caller gave them.
        contract: Supplies the default base (the commit it was written against).
        home: The store's folder; worktrees go under it and are always removed.

    Yields:
        The workspace: the target (tree hash, commit, base, changed files) and where to run.
    """
    git = is_git_repo(repo)
    base = request.base or contract.base_commit
    if base and git:
        base = resolve_commit(repo, base, at="/base")
    if git and (request.ref or request.isolation == "worktree"):
        async with _worktree(repo, request, base, home) as workspace:
            yield workspace
        return
    tree = await anyio.to_thread.run_sync(working_tree_hash, repo)
    changed = changed_files(repo, base) if git and request.scope == "task" else []
    commit = head_commit(repo) if git else None
    target = EvaluationTarget(
        repo=str(repo),
        tree=tree,
        commit=commit,
        base=base,
        changed_files=changed,
        dirty=commit is not None and tree != commit_tree_hash(repo, commit),
    )
    yield Workspace(target=target, workdir=repo, isolation="inplace")


@asynccontextmanager
async def _worktree(
    repo: Path, request: TargetRequest, base: str | None, home: Path
) -> AsyncIterator[Workspace]:
    commit = resolve_commit(repo, request.ref or "HEAD", at="/ref")
    worktree = add_worktree(repo, commit, home / "worktrees")
    warnings = ["`ref` implies worktree isolation"] if request.isolation == "inplace" else []
    try:
        changed = changed_files(repo, base, commit) if base and request.scope == "task" else []
        target = EvaluationTarget(
            repo=str(repo),
            tree=commit_tree_hash(repo, commit),
            commit=commit,
            base=base,
            changed_files=changed,
        )
        yield Workspace(
            target=target, workdir=worktree.path, isolation="worktree", warnings=warnings
        )
    finally:
        # Shielded: a cancelled evaluation must still unregister its worktree.
        with anyio.CancelScope(shield=True):
            remove_worktree(repo, worktree)


def tree_changed(workspace: Workspace) -> TreeChanged:
    """What running the checks wrote into an in-place tree (a worktree is thrown away)."""
    if workspace.isolation != "inplace":
        return TreeChanged()
    after = working_tree_hash(workspace.workdir)
    if after == workspace.target.tree:
        return TreeChanged()
    paths = diff_tree_paths(workspace.workdir, workspace.target.tree, after) or ["(unknown)"]
    return TreeChanged(changed=True, paths=paths)
