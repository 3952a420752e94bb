"""MCP adapters for aggregate and the calibration log."""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.mcpserver import Context

from referee.tools import aggregate as core
from referee.tools import calibration
from referee.tools.holdouts import holdout_source
from referee.tools.models import AggregateInput, AggregateResult
from referee.tools.store import load_contract
from referee.tools.validate_scorecard import contract_repo, current_tree

from ..annotations import READ_ONLY, RECORDS
from ..state import State
from ..tooling import ToolSpec


async def aggregate(
    ctx: Context[State, Any], roots: types.ListRootsResult, request: AggregateInput
) -> AggregateResult:
    """Decide what happens next: DELIVER, REVISE (with a revision brief), ESCALATE or PENDING.

    Call it once every evaluator's scorecard for the iteration is stored with validate_scorecard.
    Rules, in order: an evaluator of the contract without a scorecard → PENDING (missing_evaluators
    names who); any BLOCK → ESCALATE to a human (escalation.reasons: blocking evaluators, dimensions
    at 0, spec defects); all ACCEPT → DELIVER this iteration; any REVISE before the contract's
    max_iterations → REVISE with revision_brief (every asking evaluator's issues merged, duplicates
    across evaluators removed with every source listed, ordered CRITICAL > HIGH > MEDIUM > LOW, LOW
    deferred, failed visible criteria; safe to hand to the generator: no hold-outs, and an issue
    that would reveal one is withheld and listed in holdout_leaks for you alone); any REVISE at the
    last iteration → DELIVER the best iteration (delivered_iteration, best_iteration) with
    quality_notes on what still fails. Also returns the iteration's mean scores and alerts:
    not_comparable (rubric version, prompt version or evaluator model changed), regression,
    saturation, trend and recalibrate. The decision is recorded; the generator_brief prompt serves
    the latest brief.
    """
    state = ctx.request_context.lifespan_context
    contract = load_contract(state.store, request.contract_id)
    repo = contract_repo(contract, None)
    cards = request.scorecards
    tree = current_tree(repo) if cards and _states_a_tree(cards) else None
    return core.aggregate(
        request.contract_id,
        store=state.store,
        rubrics=state.rubrics(repo),
        iteration=request.iteration,
        scorecards=cards,
        now=state.now,
        tree=tree,
        holdout_files=holdout_source(state.settings, state.store.key).names(contract.id),
    )


def _states_a_tree(scorecards: list[dict[str, Any]]) -> bool:
    # Hashing the working tree costs a few git processes: only when a card has a tree to compare.
    return any(
        isinstance(c.get("target"), dict) and isinstance(c["target"].get("tree"), str)
        for c in scorecards
        if isinstance(c, dict)
    )


async def record_human_verdict(
    ctx: Context[State, Any], roots: types.ListRootsResult, request: calibration.HumanVerdictInput
) -> calibration.CalibrationRecord:
    """Log a human's verdict on a stored scorecard, for calibrating evaluators.

    Call it when a person has reviewed the work an evaluator scored. The entry records both verdicts
    and whether they agree; calibration_report sums them up per evaluator prompt version. These
    logged disagreements are the dataset for tuning the evaluator prompt.
    """
    state = ctx.request_context.lifespan_context
    return calibration.record_human_verdict(
        request.scorecard_id, request.verdict, request.note, store=state.store, now=state.now
    )


async def calibration_report(
    ctx: Context[State, Any],
    roots: types.ListRootsResult,
    request: calibration.CalibrationReportInput,
) -> calibration.CalibrationReport:
    """How often evaluators agree with humans, per evaluator prompt version (count, agreement rate,
    Cohen's kappa).

    kappa is null, with a note, when it is undefined (every verdict, human and evaluator, the same).
    """
    return calibration.calibration_report(
        ctx.request_context.lifespan_context.store, request.contract_id
    )


TOOLS: list[ToolSpec[Any]] = [
    ToolSpec("aggregate", "Aggregate verdicts", AggregateInput, aggregate, RECORDS),
    ToolSpec(
        "record_human_verdict",
        "Record a human verdict",
        calibration.HumanVerdictInput,
        record_human_verdict,
        RECORDS,
    ),
    ToolSpec(
        "calibration_report",
        "Calibration report",
        calibration.CalibrationReportInput,
        calibration_report,
        READ_ONLY,
    ),
]
