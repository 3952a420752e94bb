"""aggregate: several evaluators' verdicts become one decision.

DELIVER, REVISE with a revision brief, ESCALATE with reasons, or PENDING naming who has not scored
yet. The decision rules live in aggregation/rules.py, the brief in aggregation/brief.py (with the
duplicate test in aggregation/dedupe.py), and the history (comparability, gaming, iteration scores,
alerts, proxy-true correlation) in aggregation/history.py, alerts.py and correlation.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from referee.tools.aggregate.alerts import (
    dimension_changes,
    not_comparable_alerts,
    regression_alerts,
    saturation_alerts,
    trend_alerts,
)
from referee.tools.aggregate.baselines import keep_delivered_baselines
from referee.tools.aggregate.brief import build_brief
from referee.tools.aggregate.budget import loop_budget
from referee.tools.aggregate.correlation import recalibrate_alerts
from referee.tools.aggregate.history import (
    Gaming,
    IterationScore,
    best_of,
    gaming_checks,
    iteration_scores,
    series_of,
    version_changes,
)
from referee.tools.aggregate.holdouts import HoldoutGuard, holdout_guard
from referee.tools.aggregate.notes import (
    bound_notes,
    change_notes,
    escalation_reasons,
    gaming_notes,
)
from referee.tools.aggregate.records import (
    CardRecord,
    inline_records,
    stored_records,
    verified_records,
)
from referee.tools.aggregate.rules import Ruling, Situation, decide
from referee.tools.errors import InvalidInput, Problem
from referee.tools.models.aggregate import (
    AggregateResult,
    Alert,
    BestIteration,
    Escalation,
    GamingIndicator,
    HoldoutLeak,
    RevisionBrief,
    Scores,
)
from referee.tools.models.budget import Usage
from referee.tools.models.common import BLOCK, REVISE
from referee.tools.models.contract import Contract
from referee.tools.repo import checkout_command
from referee.tools.rubrics import RubricSet
from referee.tools.store import Store, latest_iteration, load_contract
from referee.tools.store.aggregates import latest_decided, save_aggregate
from referee.tools.store.budget import save_usage
from referee.tools.store.canaries import real_runs
from referee.tools.text import agrees, counted

__all__ = ["aggregate", "decision_at_bound", "latest_brief"]


def aggregate(
    contract_id: str,
    *,
    store: Store,
    rubrics: RubricSet,
    iteration: int | None = None,
    scorecards: Sequence[Any] | None = None,
    now: Callable[[], datetime],
    tree: str | None = None,
    holdout_files: Sequence[str] = (),
    holdout_texts: Sequence[str] = (),
    usage: Usage | None = None,
) -> AggregateResult:
    """Turn the evaluators' scorecards for one iteration into a decision, and store it (unless
    inline scorecards took part: that result is for this call only).

    Args:
        contract_id: The contract.
        iteration: The iteration to aggregate; default the latest with a scorecard (or the inline
        ones').
        scorecards: Scorecards to use for this call only: validated first, never stored; they take
            the place of stored scorecards of the same evaluator and iteration.
        store: The store (scorecards, runs; the result is recorded in `aggregates`).
        rubrics: The rubrics available, to validate inline scorecards.
        now: The clock.
        tree: The repository's current tree hash, so that stale inline scorecards are refused; None
            skips that check (a warning of validation, not an error).
        holdout_files: The contract's hold-out files, whose names the brief must not reveal.
        holdout_texts: What those files say, which the brief must not quote.
        usage: The generator's usage for the iteration, as the client reports it (the budget).

    Returns:
        The decision with its reason, verdicts, brief or escalation, scores, notes and alerts.

    Raises:
        NotFound: The contract is not stored.
        InvalidInput: An inline scorecard is invalid (pointers under /scorecards/<i>), or the
        iteration is below 1.
    """
    if iteration is not None and iteration < 1:
        raise InvalidInput(
            [Problem(path="/iteration", code="out_of_range", message="iterations start at 1")]
        )
    contract = load_contract(store, contract_id)
    inline = (
        inline_records(
            list(scorecards),
            contract=contract,
            rubrics=rubrics,
            store=store,
            iteration=iteration,
            tree=tree,
        )
        if scorecards
        else []
    )
    target = _target_iteration(store, contract.id, iteration, inline)
    context = _context(store, contract, target, inline, _Hidden(holdout_files, holdout_texts))
    result = _result(context)
    if usage is not None and not inline:
        save_usage(
            store,
            contract_id=contract.id,
            iteration=target,
            role="generator",
            body=usage.model_dump(mode="json", exclude_none=True),
            at=now().astimezone(UTC).isoformat(),
        )
    result.budget = loop_budget(store, contract, target, result.decision)
    if inline:
        return result  # a what-if for this call: never a decision reports, briefs or prompts use
    save_aggregate(
        store,
        contract_id=contract.id,
        iteration=target,
        decision=result.decision,
        body=result.model_dump(mode="json", by_alias=True),
        created_at=now().astimezone(UTC).isoformat(),
    )
    if result.decision == "DELIVER":
        delivered = result.delivered_iteration or target
        keep_delivered_baselines(store, contract, delivered, now().astimezone(UTC).isoformat())
    return result


def decision_at_bound(store: Store, contract: Contract) -> AggregateResult:
    """What aggregate decides for the contract's last iteration, from the stored scorecards, without
    storing anything (evaluate's `loop_exhausted` names the iteration it delivers)."""
    return _result(_context(store, contract, contract.max_iterations, [], _Hidden()))


def latest_brief(store: Store, contract_id: str) -> dict[str, Any] | None:
    """Return the revision brief of the contract's latest decided aggregate, when that asked for a
    revision.

    Args:
        store: The store.
        contract_id: The contract.

    Returns:
        The brief as JSON (generator-safe: no hold-outs), or None when the latest decision is not
        REVISE.
    """
    stored = latest_decided(store, contract_id)
    if stored is None or stored.decision != "REVISE":
        return None
    brief = stored.body.get("revision_brief")
    return brief if isinstance(brief, dict) else None


@dataclass(frozen=True)
class _Hidden:
    """The contract's hold-out files: their tree paths and what they say."""

    files: Sequence[str] = ()
    texts: Sequence[str] = ()


@dataclass(frozen=True)
class _Context:
    contract: Contract
    iteration: int
    history: list[CardRecord]
    """Scorecards of every iteration up to this one (inline ones in place of stored ones)."""
    current: list[CardRecord]
    """This iteration's scorecards, in the contract's evaluator order."""
    inline: list[CardRecord]
    gaming: dict[tuple[str, int], Gaming]
    store: Store
    refused: list[str] = field(default_factory=list)
    """Stored scorecards that no longer rest on a recorded run, and why."""
    guard: HoldoutGuard | None = None
    """What reveals a hold-out; None: the contract has none to reveal."""


def _target_iteration(
    store: Store, contract_id: str, iteration: int | None, inline: list[CardRecord]
) -> int:
    if iteration is not None:
        return iteration
    if inline:
        return inline[0].iteration
    stored = [r.iteration for r in stored_records(store, contract_id)]
    return max(stored) if stored else max(latest_iteration(store, contract_id), 1)


def _context(
    store: Store,
    contract: Contract,
    iteration: int,
    inline: list[CardRecord],
    hidden: _Hidden,
) -> _Context:
    replaced = {(r.evaluator, r.iteration) for r in inline}
    verified = verified_records(store, contract.id)
    stored = [
        r
        for r in verified.records
        if r.iteration <= iteration and (r.evaluator, r.iteration) not in replaced
    ]
    named = set(contract.evaluators)
    history = sorted([*stored, *inline], key=lambda r: r.iteration)
    history = [r for r in history if r.evaluator in named]
    now = {r.evaluator: r for r in history if r.iteration == iteration}
    current = [now[e] for e in contract.evaluators if e in now]
    gaming = gaming_checks(history, stored_records(store, contract.id, variant="perturbed"))
    guard = holdout_guard(store, contract, iteration, hidden.files, hidden.texts)
    return _Context(
        contract, iteration, history, current, inline, gaming, store, verified.refused, guard
    )


def _ruling(ctx: _Context) -> Ruling:
    verdicts = {r.evaluator: r.verdict for r in ctx.current}
    missing = [e for e in ctx.contract.evaluators if e not in verdicts]
    return decide(Situation(ctx.iteration, ctx.contract.max_iterations, verdicts, missing))


def _result(ctx: _Context) -> AggregateResult:
    ruling = _ruling(ctx)
    scores = iteration_scores(ctx.history, ctx.contract.evaluators, ctx.iteration, ctx.gaming)
    current = next((s for s in scores if s.iteration == ctx.iteration), None)
    best = best_of(scores)
    delivered = _delivered(ruling, ctx.iteration, best)
    series = series_of(ctx.history)
    changes = version_changes(series, ctx.iteration)
    verdicts = {r.evaluator: r.verdict for r in ctx.current}
    brief, leaks = _brief(ctx, ruling)
    return AggregateResult(
        contract_ref=ctx.contract.id,
        iteration=ctx.iteration,
        decision=ruling.decision,
        reason=_reason(ruling, delivered, best),
        evaluator_verdicts=verdicts,
        missing_evaluators=[e for e in ctx.contract.evaluators if e not in verdicts],
        revision_brief=brief,
        holdout_leaks=leaks,
        escalation=_escalation(ctx, ruling),
        delivered_iteration=delivered,
        best_iteration=(
            BestIteration(iteration=best.iteration, weighted_score=best.weighted) if best else None
        ),
        scores=(
            Scores(weighted=current.weighted, normalized=current.normalized)
            if current
            else _NO_SCORES
        ),
        quality_notes=_notes(ctx, ruling, scores, best, delivered) + _leak_notes(leaks),
        alerts=_alerts(ctx, scores),
        comparable=not changes,
        checkout=checkout_command(ctx.contract.id, delivered) if delivered else None,
        **_optional_fields(ctx),
    )


_NO_SCORES = Scores(weighted=None, normalized=None)


def _delivered(ruling: Ruling, iteration: int, best: IterationScore | None) -> int | None:
    if ruling.decision != "DELIVER":
        return None
    if ruling.rule == "deliver_best_at_bound" and best is not None:
        return best.iteration
    return iteration


def _reason(ruling: Ruling, delivered: int | None, best: IterationScore | None) -> str:
    if ruling.rule == "deliver_best_at_bound" and best is not None:
        return f"{ruling.reason} (iteration {delivered}, score {best.normalized:g}/100)"
    return ruling.reason


def _brief(ctx: _Context, ruling: Ruling) -> tuple[RevisionBrief | None, list[HoldoutLeak]]:
    # When escalating, the blocking evaluators' issues
    # come along as context for the person deciding.
    asking = {"REVISE": (REVISE,), "ESCALATE": (REVISE, BLOCK)}.get(ruling.decision)
    if asking is None:
        return None, []
    verdicts = {r.evaluator: r.verdict for r in ctx.current}
    names = [e for e, v in verdicts.items() if v in asking]
    guard = ctx.guard or HoldoutGuard(ctx.contract)
    return build_brief(ctx.contract, ctx.iteration, ctx.current, verdicts, names, guard)


def _escalation(ctx: _Context, ruling: Ruling) -> Escalation | None:
    if ruling.decision != "ESCALATE":
        return None
    return Escalation(
        reasons=escalation_reasons(ctx.current, {r.evaluator: r.verdict for r in ctx.current})
    )


def _leak_notes(leaks: list[HoldoutLeak]) -> list[str]:
    if not leaks:
        return []
    return [
        f"holdout_leak: {counted(len(leaks), 'issue')} withheld from the revision brief because"
        f" {agrees(len(leaks), 'it reveals', 'they reveal')} a hold-out (listed in holdout_leaks;"
        " never hand them to the generator)"
    ]


def _alerts(ctx: _Context, scores: list[IterationScore]) -> list[Alert]:
    series = series_of(ctx.history)
    runs = real_runs(ctx.store, ctx.contract.id)
    return [
        *not_comparable_alerts(version_changes(series, ctx.iteration)),
        *regression_alerts(series, ctx.iteration),
        *saturation_alerts(series, ctx.iteration),
        *trend_alerts(scores, ctx.iteration),
        *recalibrate_alerts(series, runs, ctx.contract),
    ]


def _notes(
    ctx: _Context,
    ruling: Ruling,
    scores: list[IterationScore],
    best: IterationScore | None,
    delivered: int | None,
) -> list[str]:
    notes: list[str] = list(ctx.refused)
    notes += [f"{r.evaluator} overrides referee: {m}" for r in ctx.current for m in r.overrides]
    if ruling.rule == "deliver_best_at_bound" and best is not None:
        last = next((s for s in scores if s.iteration == ctx.iteration), None)
        notes += bound_notes(best, last, [r for r in ctx.history if r.iteration == delivered])
        notes += _incomparable_note(ctx, scores)
    notes += gaming_notes(g for (_, k), g in sorted(ctx.gaming.items()) if k == ctx.iteration)
    notes += change_notes(dimension_changes(series_of(ctx.history), ctx.iteration))
    if ctx.inline:
        names = ", ".join(r.evaluator for r in ctx.inline)
        notes.append(
            f"inline scorecards ({names}) were validated and used for this call only; they and this"
            " decision are not stored"
        )
    return notes


def _incomparable_note(ctx: _Context, scores: list[IterationScore]) -> list[str]:
    complete = {
        k
        for k in {r.iteration for r in ctx.history}
        if {r.evaluator for r in ctx.history if r.iteration == k} >= set(ctx.contract.evaluators)
    }
    left_out = sorted(complete - {s.iteration for s in scores})
    if not left_out:
        return []
    return [
        f"{agrees(len(left_out), 'iteration', 'iterations')} {', '.join(map(str, left_out))}"
        f" {agrees(len(left_out), 'was', 'were')} not considered for delivery: an evaluator's"
        " rubric version, prompt version or model changed since, so"
        f" {agrees(len(left_out), 'its scores are', 'their scores are')} not comparable;"
        f" re-score {agrees(len(left_out), 'it', 'them')} to compare"
    ]


def _optional_fields(ctx: _Context) -> dict[str, Any]:
    gaming = {
        g.evaluator: GamingIndicator(
            g=g.g, status=g.status, original=g.original, perturbed=g.perturbed
        )
        for (_, k), g in sorted(ctx.gaming.items())
        if k == ctx.iteration
    }
    return {
        "gaming": gaming,
        "dimension_changes": dimension_changes(series_of(ctx.history), ctx.iteration),
    }
