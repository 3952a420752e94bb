"""evaluate: run the contract's checks, the static pipeline and tamper detection; derive verdicts.

The flow, in one direction: fix the target (target.py), run every check concurrently (run.py,
through the graders), see what the checks wrote, build the evaluation and its draft scorecard
(result.py), sign and store the run with its evidence, and return a compact result (compact.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from referee.tools.browser.baselines import store_baselines
from referee.tools.create_contract import contract_rubrics
from referee.tools.errors import InvalidInput, Problem
from referee.tools.evaluate.canary import Disguise, plan_canary, record_canary
from referee.tools.evaluate.compact import compact
from referee.tools.evaluate.isolation import choose_isolation
from referee.tools.evaluate.iteration import iteration_for
from referee.tools.evaluate.phases import PhaseGate
from referee.tools.evaluate.progress import live_progress
from referee.tools.evaluate.result import assemble
from referee.tools.evaluate.run import Progress, RunPlan, run_checks
from referee.tools.evaluate.secrets import learn_tree_secrets, redact_run
from referee.tools.evaluate.target import TargetRequest, Workspace, open_workspace, tree_changed
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
from referee.tools.repo import GitError, pin_tree, working_tree_hash
from referee.tools.settings import Settings
from referee.tools.store import (
    Store,
    clone_of,
    latest_iteration,
    load_config,
    load_contract,
    load_run,
    release_claim,
    save_run,
    scorecards_for,
    url_secrets,
)
from referee.tools.store.canaries import pending_canary

if TYPE_CHECKING:
    from referee.tools.browser.pool import BrowserPool

__all__ = ["EvaluateDeps", "EvaluateInput", "evaluate"]


@dataclass
class EvaluateDeps:
    """What evaluate needs from its caller: the store, settings, clock and browser (the rubric
    comes with the contract), and the gate that keeps every hold-out phase alone among the
    server's evaluations (one per server; a fresh one orders this evaluation alone)."""

    store: Store
    settings: Settings
    now: Callable[[], datetime]
    on_progress: Progress | None = None
    browser_pool: BrowserPool | None = None
    phases: PhaseGate = field(default_factory=PhaseGate)


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
    # `referee view` shows the evaluations running now: the same messages as MCP's progress.
    with live_progress(deps.store.home, request.contract_id, request.evaluator, deps.now) as live:
        relayed = replace(deps, on_progress=live.relay(deps.on_progress))
        return await _evaluate_live(request, relayed, claimed)


async def _evaluate_live(
    request: EvaluateInput, deps: EvaluateDeps, claimed: list[tuple[str, str]]
) -> Evaluation:
    started = anyio.current_time()
    contract = load_contract(deps.store, request.contract_id)
    if request.canary and request.evaluator is None:
        # A canary measures one judge: the first, as a draft without an evaluator is the first's.
        request = request.model_copy(update={"evaluator": contract.evaluators[0]})
    criteria = _criteria(contract, request.evaluator)
    # Every step that reads the repository runs git: in a worker thread, never the event loop's.
    repo = await anyio.to_thread.run_sync(_repo_of, contract, deps.settings, deps.store)
    served = await _served_canary(deps, contract, repo, request)
    if served is not None:
        await _paced(deps, served, criteria, started)
        return served
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
    isolated = choose_isolation(request, contract, deps.settings)
    disguise = (
        await anyio.to_thread.run_sync(plan_canary, deps.store, contract, repo, request, deps.now())
        if request.canary
        else None
    )
    wanted = TargetRequest(
        ref=disguise.commit if disguise else request.ref,
        base=request.base,
        scope=request.scope,
        isolation="worktree" if disguise else isolated.isolation,
    )
    async with open_workspace(repo, wanted, contract) as workspace:
        # Decided once the tree is fixed and before anything runs: a refused loop runs nothing.
        if disguise:
            iteration = disguise.iteration
        else:
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
                holdouts=holdout_source(deps.settings, deps.store),
                config=load_config(deps.store, contract),
                baselines=store_baselines(deps.store),
                phases=deps.phases,
            )
        )
        observed = await anyio.to_thread.run_sync(tree_changed, workspace, isolated.launcher)
        await anyio.to_thread.run_sync(
            learn_tree_secrets, redactor, workspace.workdir, outcomes.static
        )
        outcomes.tree_changed = observed.changed
        outcomes.tampering += observed.modified
        workspace.warnings += isolated.warnings
    if disguise:
        _disguise(workspace, disguise)
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
    if disguise:
        evaluation.isolation, evaluation.pin = disguise.isolation, disguise.pin
    else:
        await anyio.to_thread.run_sync(_pin, repo, evaluation, deps.now())
    evaluation = await anyio.to_thread.run_sync(redact_run, evaluation, recorder, redactor)
    result = _store_and_sign(deps, evaluation, recorder)
    if disguise:
        record_canary(deps.store, result, disguise, deps.now())
    return result


async def _served_canary(
    deps: EvaluateDeps, contract: Contract, repo: Path, request: EvaluateInput
) -> Evaluation | None:
    """The canary the orchestrator asked for, when its judge now evaluates the iteration it
    copies: the judge calls evaluate as for any iteration and gets the canary's stored run."""
    if request.canary or request.ref or request.scope != "task" or request.evaluator is None:
        return None
    iteration = request.iteration or latest_iteration(deps.store, contract.id)
    pending = pending_canary(deps.store, contract.id, request.evaluator, iteration)
    if pending is None:
        return None
    source = load_run(deps.store, pending.source_run_id).evaluation
    planted = load_run(deps.store, pending.run_id).evaluation
    if planted.depth != request.depth:
        return None  # it would answer another depth than asked: the orchestrator's to match
    tree = await anyio.to_thread.run_sync(working_tree_hash, repo)
    if tree != source.target.tree:
        return None  # the working tree moved on: this is another iteration's evaluation
    # The draft names the model the judge said it is, as its own evaluate would have (the
    # signature does not cover it: it is the judge's claim).
    planted.draft_scorecard.evaluator_model = request.evaluator_model
    return compact(planted, deps.settings.result_budget)


async def _paced(
    deps: EvaluateDeps, served: Evaluation, criteria: list[Criterion], started: float
) -> None:
    """Answer as a run of the checks would: after about as long as the canary's own run took,
    reporting the same steps on the way."""
    steps = [*(c.id for c in criteria), "static pipeline", "test tampering"]
    spent = anyio.current_time() - started
    pause = max(0.0, served.duration_s - spent) / len(steps) if deps.settings.pace_canaries else 0
    for done, what in enumerate(steps, 1):
        await anyio.sleep(pause)
        if deps.on_progress:
            await deps.on_progress(done, len(steps), what)


def _disguise(workspace: Workspace, disguise: Disguise) -> None:
    """Show a canary's run as the iteration it copies: its commit, ref and isolation (the
    evaluated tree stays the canary's own, which its card must name)."""
    workspace.target = disguise.shown.model_copy(update={"tree": workspace.target.tree})
    workspace.isolation = disguise.isolation


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
