"""evaluate: run the contract's checks, the static pipeline and tamper detection; derive verdicts.

The flow: fix the target (tree hash), run independent checks concurrently, compare the tree
afterwards, derive what evidence decides, sign and store the run, return a compact result.
"""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
from pydantic import Field

from referee.tools.errors import InvalidInput, Problem
from referee.tools.evaluate.compact import compact
from referee.tools.evaluate.result import Outcomes, assemble
from referee.tools.evaluate.static import run_static
from referee.tools.evidence.capture import sessions
from referee.tools.evidence.recorder import EvidenceRecorder
from referee.tools.evidence.redact import Redactor, secret_env_values
from referee.tools.evidence.signing import sign, signing_key
from referee.tools.graders.base import GradeContext, GradeResult
from referee.tools.graders.browser import grade_browser_group
from referee.tools.graders.command import grade_command
from referee.tools.graders.static import grade_static
from referee.tools.graders.tests import grade_tests, run_suite
from referee.tools.models.checks import TestsCheck
from referee.tools.models.common import Depth, Isolation, Model, Scope
from referee.tools.models.contract import Contract, Criterion
from referee.tools.models.evaluation import Evaluation, Perturbation, TreeChanged
from referee.tools.paths import confine
from referee.tools.perturbation.copy import build_perturbed_copy
from referee.tools.repo import (
    Worktree,
    add_worktree,
    changed_files,
    commit_tree_hash,
    diff_tree_paths,
    head_commit,
    is_git_repo,
    list_files,
    remove_worktree,
    resolve_commit,
    working_tree_hash,
)
from referee.tools.rubrics import RubricSet
from referee.tools.settings import Settings
from referee.tools.static import list_files as static_files
from referee.tools.store import Store, load_contract, next_iteration, save_run, scorecards_for
from referee.tools.tampering.run import run_tampering

Progress = Callable[[float, float | None, str], Awaitable[None]]
GRADERS = {"tests": grade_tests, "command": grade_command, "static": grade_static}


class EvaluateInput(Model):
    contract_id: str = Field(description="The contract to evaluate against")
    evaluator: str | None = Field(
        default=None, description="Run only this evaluator's criteria; omitted: all"
    )
    ref: str | None = Field(
        default=None, description="A commit to evaluate (worktree); omitted: the working tree"
    )
    base: str | None = Field(
        default=None, description="Base for task scope; default the contract's base commit"
    )
    iteration: int | None = Field(default=None, ge=1, description="Default: the next iteration")
    scope: Scope = Field(
        default="task", description="task: files changed since base; project: every file"
    )
    depth: Depth = Field(default="standard", description="quick · standard · deep")
    isolation: Isolation = Field(
        default="inplace", description="inplace: the working tree; worktree: a detached checkout"
    )
    evaluator_model: str | None = Field(
        default=None, description="The judging model, recorded for comparability"
    )


@dataclass
class EvaluateDeps:
    store: Store
    settings: Settings
    rubrics: Callable[[Path], RubricSet]
    now: Callable[[], datetime]
    on_progress: Progress | None = None
    browser_pool: Any = None


@dataclass
class Target:
    repo: Path
    workdir: Path
    tree: str
    commit: str | None
    base: str | None
    changed: list[str]
    isolation: str
    warnings: list[str] = field(default_factory=list)


async def evaluate(request: EvaluateInput, deps: EvaluateDeps) -> Evaluation:
    """Evaluate the contract's target and return the compact, signed result (also stored)."""
    contract = load_contract(deps.store, request.contract_id)
    criteria = _criteria(contract, request.evaluator)
    repo = _repo_of(contract, deps.settings)
    rubric = deps.rubrics(repo).get(contract.rubric_ref)
    if rubric is None:
        raise InvalidInput(
            [
                Problem(
                    path="/contract_id",
                    code="unknown_rubric",
                    message=f"the contract's rubric {contract.rubric_ref!r} is no longer available",
                )
            ]
        )
    iteration = request.iteration or next_iteration(deps.store, contract.id, request.evaluator)
    run_id = f"R{deps.now():%Y%m%d%H%M%S}-{uuid.uuid4().hex[:8]}"
    recorder = EvidenceRecorder(
        run_id, deps.store.run_artifacts(run_id), _redactor(deps.settings, contract), deps.now
    )
    started = anyio.current_time()
    async with _target(repo, request, contract, deps.store.home) as target:
        outcomes = await _gather(contract, criteria, target, recorder, request, deps)
        outcomes.tree_changed = await anyio.to_thread.run_sync(_tree_changed, target)
    evaluation = assemble(
        contract,
        rubric,
        criteria,
        target,
        outcomes,
        recorder,
        request=request,
        run_id=run_id,
        iteration=iteration,
        now=deps.now,
        prior=_prior(deps.store, contract, request, iteration),
    )
    evaluation.duration_s = round(anyio.current_time() - started, 3)
    evaluation.generator_evidence = [s["run_id"] for s in sessions(deps.store, str(repo))]
    return _store_and_sign(deps, evaluation, recorder)


def _criteria(contract: Contract, evaluator: str | None) -> list[Criterion]:
    if evaluator is not None and evaluator not in contract.evaluators:
        raise InvalidInput(
            [
                Problem(
                    path="/evaluator",
                    code="unknown_evaluator",
                    message=f"{evaluator!r} is not one of {contract.evaluators}",
                )
            ]
        )
    return contract.criteria_for(evaluator)


def _repo_of(contract: Contract, settings: Settings) -> Path:
    repo = confine(contract.repo or ".", settings.roots, at="/contract_id")
    if not repo.is_dir():
        raise InvalidInput(
            [
                Problem(
                    path="/contract_id",
                    code="repo_missing",
                    message=f"the contract's repository {repo} does not exist any more",
                )
            ]
        )
    return repo


def _redactor(settings: Settings, contract: Contract) -> Redactor:
    known = secret_env_values(settings.env)
    for c in contract.all_criteria():
        env = getattr(c.check, "env", None) or {}
        known += secret_env_values(env)
    if contract.serve:
        known += secret_env_values(contract.serve.env)
    return Redactor(known)


@asynccontextmanager
async def _target(
    repo: Path, request: EvaluateInput, contract: Contract, home: Path
) -> AsyncIterator[Target]:
    """Fix exactly what is evaluated; a worktree (for `ref` or worktree isolation) is always removed."""
    git = is_git_repo(repo)
    base = request.base or contract.base_commit
    if base and git:
        base = resolve_commit(repo, base, at="/base")
    if git and (request.ref or request.isolation == "worktree"):
        async with _worktree_target(repo, request, base, home) as target:
            yield target
        return
    tree = await anyio.to_thread.run_sync(working_tree_hash, repo)
    changed = changed_files(repo, base) if git and request.scope == "task" else []
    yield Target(
        repo=repo,
        workdir=repo,
        tree=tree,
        commit=head_commit(repo) if git else None,
        base=base,
        changed=changed,
        isolation="inplace",
    )


@asynccontextmanager
async def _worktree_target(
    repo: Path, request: EvaluateInput, base: str | None, home: Path
) -> AsyncIterator[Target]:
    commit = resolve_commit(repo, request.ref or "HEAD", at="/ref")
    worktree = add_worktree(repo, commit, home / "worktrees")
    warnings = ["`ref` implies worktree isolation"] if request.isolation == "inplace" else []
    try:
        changed = changed_files(repo, base, commit) if base and request.scope == "task" else []
        yield Target(
            repo=repo,
            workdir=worktree.path,
            tree=commit_tree_hash(repo, commit),
            commit=commit,
            base=base,
            changed=changed,
            isolation="worktree",
            warnings=warnings,
        )
    finally:
        with anyio.CancelScope(shield=True):
            remove_worktree(repo, worktree)


def _tree_changed(target: Target) -> TreeChanged:
    if target.isolation != "inplace":
        return TreeChanged()
    after = working_tree_hash(target.workdir)
    if after == target.tree:
        return TreeChanged()
    return TreeChanged(
        changed=True, paths=diff_tree_paths(target.workdir, target.tree, after) or ["(unknown)"]
    )


async def _gather(
    contract: Contract,
    criteria: list[Criterion],
    target: Target,
    recorder: EvidenceRecorder,
    request: EvaluateInput,
    deps: EvaluateDeps,
) -> Outcomes:
    """Run every independent check concurrently (processes bounded by the CPU count)."""
    outcomes = Outcomes()
    total = len(criteria) + 2
    done = 0

    async def tick(what: str) -> None:
        nonlocal done
        done += 1
        if deps.on_progress:
            await deps.on_progress(done, total, what)

    with tempfile.TemporaryDirectory(prefix="referee-run-") as scratch_dir:
        scratch = Path(scratch_dir)
        ctx = _context(contract, target, recorder, request, deps, scratch, outcomes)
        try:
            await _run_checks(ctx, criteria, target, request, outcomes, recorder, deps, tick)
            if request.depth == "deep" and target.changed:
                outcomes.perturbation = await _perturbation(
                    ctx, criteria, target, outcomes, deps.store, recorder.run_id
                )
        finally:
            with anyio.CancelScope(shield=True):
                for cleanup in outcomes.cleanup:
                    cleanup()
    for criterion in criteria:
        if criterion.check is None:
            await tick(criterion.id)
    return outcomes


async def _run_checks(
    ctx: GradeContext,
    criteria: list[Criterion],
    target: Target,
    request: EvaluateInput,
    outcomes: Outcomes,
    recorder: EvidenceRecorder,
    deps: EvaluateDeps,
    tick: Callable[[str], Awaitable[None]],
) -> None:
    async with anyio.create_task_group() as group:
        group.start_soon(_static_task, ctx, outcomes, tick)
        group.start_soon(_tamper_task, ctx, target, request, outcomes, recorder, tick)
        for criterion in criteria:
            if criterion.check is not None and criterion.check.kind != "browser":
                group.start_soon(_grade_task, ctx, criterion, outcomes, tick)
        browser = [c for c in criteria if c.check is not None and c.check.kind == "browser"]
        if browser:
            group.start_soon(_browser_task, ctx, browser, outcomes, deps.browser_pool, tick)


def _context(
    contract: Contract,
    target: Target,
    recorder: EvidenceRecorder,
    request: EvaluateInput,
    deps: EvaluateDeps,
    scratch: Path,
    outcomes: Outcomes,
) -> GradeContext:
    scope_files = _scope_files(target, request.scope)
    static_once = _Once(lambda: run_static(ctx, request.scope, deps.store.home))
    base_once = _Once(lambda: _base_worktree(target, scratch, outcomes))
    ctx = GradeContext(
        contract=contract,
        repo=target.repo,
        workdir=target.workdir,
        scratch=scratch,
        recorder=recorder,
        settings=deps.settings,
        base=target.base,
        scope_files=[f for f in scope_files if (target.workdir / f).is_file()],
        static_report=static_once.get,
        base_worktree=base_once.get,
        limiter=anyio.CapacityLimiter(deps.settings.max_concurrency),
    )
    return ctx


async def _base_worktree(target: Target, scratch: Path, outcomes: Outcomes) -> Path | None:
    if target.base is None:
        return None
    worktree: Worktree = add_worktree(target.repo, target.base, scratch / "base")
    outcomes.cleanup.append(lambda: remove_worktree(target.repo, worktree))
    return worktree.path


def _scope_files(target: Target, scope: str) -> list[str]:
    """Task scope: the files changed since base; project scope (and any folder outside git): every file."""
    if not is_git_repo(target.workdir):
        return static_files(target.workdir, "project", None)
    return target.changed if scope == "task" else list_files(target.workdir)


class _Once:
    """Run an async computation once, however many tasks ask for it."""

    def __init__(self, compute: Callable[[], Awaitable[Any]]) -> None:
        self._compute, self._lock, self._done, self._value = compute, anyio.Lock(), False, None

    async def get(self) -> Any:
        async with self._lock:
            if not self._done:
                self._value = await self._compute()
                self._done = True
        return self._value


async def _static_task(
    ctx: GradeContext, outcomes: Outcomes, tick: Callable[[str], Awaitable[None]]
) -> None:
    outcomes.static = await ctx.static_report()
    await tick("static pipeline")


async def _tamper_task(
    ctx: GradeContext,
    target: Target,
    request: EvaluateInput,
    outcomes: Outcomes,
    recorder: EvidenceRecorder,
    tick: Callable[[str], Awaitable[None]],
) -> None:
    if request.scope == "task" and target.base:
        outcomes.tampering, outcomes.tampering_ids = await run_tampering(
            target.repo, target.workdir, target.base, target.changed, recorder
        )
    await tick("test tampering")


async def _grade_task(
    ctx: GradeContext,
    criterion: Criterion,
    outcomes: Outcomes,
    tick: Callable[[str], Awaitable[None]],
) -> None:
    grader = GRADERS[criterion.check.kind]  # type: ignore[union-attr]
    outcomes.results[criterion.id] = await grader(ctx, criterion)
    await tick(criterion.id)


async def _browser_task(
    ctx: GradeContext,
    criteria: list[Criterion],
    outcomes: Outcomes,
    pool: Any,
    tick: Callable[[str], Awaitable[None]],
) -> None:
    results: dict[str, GradeResult] = await grade_browser_group(ctx, criteria, pool, on_done=tick)
    outcomes.results.update(results)


async def _perturbation(
    ctx: GradeContext,
    criteria: list[Criterion],
    target: Target,
    outcomes: Outcomes,
    store: Store,
    run_id: str,
) -> Perturbation:
    """Anti-gaming: a semantically equal copy of the changed files, checked by re-running the tests on it."""
    tests = [c for c in criteria if isinstance(c.check, TestsCheck)]
    ids: list[str] = []

    async def semantics(root: Path) -> bool | None:
        return await _same_outcomes(ctx, tests, root, outcomes, ids) if tests else None

    perturbation = await build_perturbed_copy(
        target.workdir,
        target.changed,
        store.run_artifacts(run_id) / "perturbed",
        check_semantics=semantics,
    )
    perturbation.evidence_ids = ids
    return perturbation


async def _same_outcomes(
    ctx: GradeContext, tests: list[Criterion], root: Path, outcomes: Outcomes, ids: list[str]
) -> bool:
    """Run the tests checks in the perturbed copy; semantics are kept when each ends as it did on the original."""
    same = True
    for criterion in tests:
        run = await run_suite(
            ctx,
            criterion.check,
            root,
            label=f"{criterion.id}-perturbed",  # type: ignore[arg-type]
            criterion_id=criterion.id,
        )
        if run.evidence_id:
            ids.append(run.evidence_id)
        original = (
            outcomes.results[criterion.id].status if criterion.id in outcomes.results else "pass"
        )
        same = same and run.verdict.status == original
    return same


def _prior(
    store: Store, contract: Contract, request: EvaluateInput, iteration: int
) -> dict[str, Any] | None:
    if iteration < 2:
        return None
    evaluator = request.evaluator or contract.evaluators[0]
    earlier = [
        s
        for s in scorecards_for(store, contract.id)
        if s.evaluator == evaluator and s.iteration < iteration
    ]
    return earlier[-1].body if earlier else None


def _store_and_sign(
    deps: EvaluateDeps, evaluation: Evaluation, recorder: EvidenceRecorder
) -> Evaluation:
    items = recorder.items
    signature = sign(signing_key(deps.store.home), evaluation, items)
    evaluation.signature = signature
    evaluation.draft_scorecard.signature = signature
    save_run(deps.store, evaluation, items, signature, created_at=deps.now().isoformat())
    return compact(evaluation, deps.settings.result_budget)
