"""MCP adapters for aggregate and the calibration log."""

from __future__ import annotations

from typing import Any

import anyio.to_thread
import mcp_types as types
from mcp.server.mcpserver import Context

from referee.tools import aggregate as core
from referee.tools import calibration
from referee.tools.holdouts import holdout_source
from referee.tools.models import AggregateInput, AggregateResult
from referee.tools.store import load_contract
from referee.tools.validate_scorecard import current_tree, stored_repo

from .. import summaries
from ..annotations import READ_ONLY, RECORDS
from ..state import State
from ..tooling import ToolSpec


async def aggregate(
    ctx: Context[State, Any], roots: types.ListRootsResult, request: AggregateInput
) -> AggregateResult:
    """Decide an iteration from its stored scorecards: an evaluator without one → PENDING; any
    BLOCK → ESCALATE; all ACCEPT → DELIVER; any REVISE → REVISE with revision_brief (issues merged,
    deduplicated, ranked, LOW deferred, no hold-outs: issues revealing one go to holdout_leaks,
    for you alone; hand it to the generator) or, at max_iterations, DELIVER the best iteration
    with quality_notes. checkout restores the delivered iteration. Also scores and alerts.
    """
    state = ctx.request_context.lifespan_context
    # The tree is hashed and the changed files read with git: in a worker thread.
    return await anyio.to_thread.run_sync(_aggregate, state, request)


def _aggregate(state: State, request: AggregateInput) -> AggregateResult:
    contract = load_contract(state.store, request.contract_id)
    repo = stored_repo(state.store, contract, state.settings.roots)
    cards = request.scorecards
    tree = current_tree(repo) if cards and _states_a_tree(cards) else None
    hidden = holdout_source(state.settings, state.store)
    return core.aggregate(
        request.contract_id,
        store=state.store,
        rubrics=state.rubrics_for(contract),
        iteration=request.iteration,
        scorecards=cards,
        now=state.now,
        tree=tree,
        holdout_files=hidden.names(contract.id),
        holdout_texts=hidden.texts(contract.id),
        usage=request.usage,
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
    """Log a person's verdict on a stored scorecard (the calibration dataset)."""
    state = ctx.request_context.lifespan_context
    return calibration.record_human_verdict(
        request.scorecard_id, request.verdict, request.note, store=state.store, now=state.now
    )


async def calibration_report(
    ctx: Context[State, Any],
    roots: types.ListRootsResult,
    request: calibration.CalibrationReportInput,
) -> calibration.CalibrationReport:
    """Agreement with humans per prompt version (rate, Cohen's kappa), and per judge: canary
    recall, stability, human agreement; flagged when recall is low."""
    state = ctx.request_context.lifespan_context
    return calibration.calibration_report(
        state.store, request.contract_id, state.settings.min_canary_recall
    )


TOOLS: list[ToolSpec[Any]] = [
    ToolSpec(
        "aggregate", "Aggregate verdicts", AggregateInput, aggregate, RECORDS, summaries.aggregate
    ),
    ToolSpec(
        "record_human_verdict",
        "Record a human verdict",
        calibration.HumanVerdictInput,
        record_human_verdict,
        RECORDS,
        summaries.human_verdict,
    ),
    ToolSpec(
        "calibration_report",
        "Calibration report",
        calibration.CalibrationReportInput,
        calibration_report,
        READ_ONLY,
        summaries.calibration,
    ),
]
