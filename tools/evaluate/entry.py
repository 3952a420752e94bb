"""evaluate: run the contract's checks, the static pipeline and tamper detection; derive verdicts.

The flow, in one direction: fix the target (target.py), run every check concurrently (run.py,
through the graders), see what the checks wrote, build the evaluation and its draft scorecard
(result.py), sign and store the run with its evidence, and return a compact result (compact.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from referee.tools.create_contract import contract_rubrics
from referee.tools.errors import InvalidInput, Problem
from referee.tools.evaluate.compact import compact
from referee.tools.evaluate.isolation import choose_isolation
from referee.tools.evaluate.iteration import iteration_for
from referee.tools.evaluate.result import assemble
from referee.tools.evaluate.run import Progress, RunPlan, run_checks
from referee.tools.evaluate.secrets import learn_tree_secrets, redact_run
from referee.tools.evaluate.target import TargetRequest, open_workspace, tree_changed
from referee.tools.evidence import (
    EvidenceRecorder,
    Redactor,
    secret_env_values,
    sessions,
    sign,
)
from referee.tools.holdouts import holdout_source
from referee.tools.models.contract import Contract, Criterion
from referee.tools.models.evaluation import EvaluateInput, Evaluation
from referee.tools.paths import confine
from referee.tools.repo import GitError, pin_tree
from referee.tools.settings import Settings
from referee.tools.store import (
    Store,
    clone_of,
    load_config,
    load_contract,
    release_claim,
    save_run,
    scorecards_for,
    url_secrets,
)

if TYPE_CHECKING:
    from referee.tools.browser.pool import BrowserPool

__all__ = ["EvaluateDeps", "EvaluateInput", "evaluate"]


@dataclass
class EvaluateDeps:
    """What evaluate needs from its caller: the store, settings, clock and browser (the rubric
    comes with the contract)."""

    store: Store
    settings: Settings
    now: Callable[[], datetime]
    on_progress: Progress | None = None
    browser_pool: BrowserPool | None = None


async def evaluate(request: EvaluateInput, deps: EvaluateDeps) -> Evaluation:
    """Evaluate the contract's target and return the compact, signed result (also stored).

    Raises:
        InvalidInput: unknown contract, evaluator, ref or base; the repository or rubric is gone;
            an `iteration` that is not the tree's (`iteration_mismatch`); a new tree past
            `max_iterations` (`loop_exhausted`).
    """
    claimed: list[tuple[str, str]] = []
    try:
        return await _evaluate(request, deps, claimed)
    except BaseException:
        # An evaluation that stored no run gives its iteration back, so the next tree takes it.
        for contract_id, tree in claimed:
            release_claim(deps.store, contract_id, tree)
        raise


async def _evaluate(
    request: EvaluateInput, deps: EvaluateDeps, claimed: list[tuple[str, str]]
) -> Evaluation:
    if request.scope == "strategic":
        raise InvalidInput(
            [
                Problem(
                    path="/scope",
                    code="no_checks_at_strategic_scope",
                    message="scope 'strategic' runs no checks: read it with strategic_assessment",
                )
            ]
        )
    contract = load_contract(deps.store, request.contract_id)
    criteria = _criteria(contract, request.evaluator)
    repo = _repo_of(contract, deps.settings, deps.store)
    rubric = contract_rubrics(deps.store, contract).get(contract.rubric_ref)
    if rubric is None:
        raise InvalidInput(
            [
                Problem(
                    path="/contract_id",
                    code="unknown_rubric",
                    message=(
                        f"the contract's rubric {contract.rubric_ref!r} is no longer available"
                    ),
                )
            ]
        )
    run_id = f"R{deps.now():%Y%m%d%H%M%S}-{uuid.uuid4().hex[:8]}"
    redactor = _redactor(deps.settings, contract, deps.store.key)
    recorder = EvidenceRecorder(
        run_id,
        deps.store.run_artifacts(run_id),
        redactor,
        deps.now,
        # A hold-out's logs and reports never enter the repository's store (store/sealed.py).
        sealed=(deps.store.sealed / run_id, {c.id for c in contract.all_criteria() if c.holdout}),
    )
    started = anyio.current_time()
    isolated = choose_isolation(request, contract, deps.settings)
    wanted = TargetRequest(
        ref=request.ref, base=request.base, scope=request.scope, isolation=isolated.isolation
    )
    async with open_workspace(repo, wanted, contract) as workspace:
        # Decided once the tree is fixed and before anything runs: a refused loop runs nothing.
        claim = iteration_for(deps.store, contract, workspace.target.tree, request.iteration)
        iteration = claim.iteration
        if claim.new:
            claimed.append((contract.id, workspace.target.tree))
        outcomes = await run_checks(
            RunPlan(
                contract=contract,
                criteria=criteria,
                workspace=workspace,
                recorder=recorder,
                settings=deps.settings,
                home=deps.store.home,
                scope=request.scope,
                depth=request.depth,
                launcher=isolated.launcher,
                browser_pool=deps.browser_pool,
                on_progress=deps.on_progress,
                holdouts=holdout_source(deps.settings, deps.store.key),
                config=load_config(deps.store, contract),
            )
        )
        observed = await anyio.to_thread.run_sync(tree_changed, workspace, isolated.launcher)
        await anyio.to_thread.run_sync(
            learn_tree_secrets, redactor, workspace.workdir, outcomes.static
        )
        outcomes.tree_changed = observed.changed
        outcomes.tampering += observed.modified
        workspace.warnings += isolated.warnings
    evaluation = assemble(
        contract,
        rubric,
        criteria,
        workspace,
        outcomes,
        recorder,
        request=request,
        run_id=run_id,
        iteration=iteration,
        now=deps.now,
        prior=_prior(deps.store, contract, request, iteration),
    )
    evaluation.sandbox = isolated.sandbox
    evaluation.duration_s = round(anyio.current_time() - started, 3)
    evaluation.generator_evidence = [s["run_id"] for s in sessions(deps.store, str(repo))]
    await anyio.to_thread.run_sync(_pin, repo, evaluation, deps.now())
    evaluation = await anyio.to_thread.run_sync(redact_run, evaluation, recorder, redactor)
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


def _repo_of(contract: Contract, settings: Settings, store: Store) -> Path:
    # A clone of the contract's history here (another machine, a CI job), when it has one; the
    # clone is confined to the roots as the contract's own path would be.
    clone = clone_of(store, contract, settings.roots)
    repo = confine(str(clone or contract.repo or "."), settings.roots, at="/contract_id")
    if not repo.is_dir():
        raise InvalidInput(
            [
                Problem(
                    path="/contract_id",
                    code="repo_missing",
                    message=(f"the contract's repository {repo} does not exist any more"),
                )
            ]
        )
    return repo


def _redactor(settings: Settings, contract: Contract, key: bytes) -> Redactor:
    """Every secret the checks could print: the server's and the checks' secret-looking env values,
    the signing key itself and the team store's URL and password (out of reach in the sandbox;
    redacted should they ever leak)."""
    known = [key.decode("utf-8", "replace"), *secret_env_values(settings.env)]
    known += url_secrets(settings.store_url)
    for criterion in contract.all_criteria():
        known += secret_env_values(getattr(criterion.check, "env", None) or {})
    if contract.serve:
        known += secret_env_values(contract.serve.env)
    return Redactor(known)


def _prior(store: Store, contract: Contract, request: EvaluateInput, iteration: int) -> str | None:
    if iteration < 2:
        return None
    evaluator = request.evaluator or contract.evaluators[0]
    earlier = [
        s
        for s in scorecards_for(store, contract.id)
        if s.evaluator == evaluator and s.iteration < iteration
    ]
    return f"scorecard://{earlier[-1].id}" if earlier else None


def _pin(repo: Path, evaluation: Evaluation, when: datetime) -> None:
    """Keep the evaluated tree under refs/referee/<contract>/<iteration>: restorable, and kept by
    git's garbage collection."""
    target = evaluation.target
    if target.tree.startswith("dir:"):
        return  # outside git there is no object to pin
    try:
        evaluation.pin = pin_tree(
            repo, evaluation.contract_ref, evaluation.iteration, target.tree, target.commit, when
        )
    except GitError as exc:
        evaluation.warnings.append(f"the evaluated tree could not be pinned: {exc}")


def _store_and_sign(
    deps: EvaluateDeps, evaluation: Evaluation, recorder: EvidenceRecorder
) -> Evaluation:
    items = recorder.items
    signature = sign(deps.store.key, evaluation, items)
    evaluation.signature = signature
    evaluation.draft_scorecard.signature = signature
    save_run(deps.store, evaluation, items, signature, created_at=deps.now().isoformat())
    return compact(evaluation, deps.settings.result_budget)
