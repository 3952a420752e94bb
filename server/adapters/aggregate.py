"""MCP adapters for aggregate and the calibration log, and the revision brief for generator_brief."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import Context
from pydantic import Field

from referee.tools import aggregate as core
from referee.tools import calibration
from referee.tools.models import AggregateResult
from referee.tools.store import load_contract

from ..annotations import READ_ONLY, RECORDS
from ..state import State
from .validate import contract_repo, current_tree

if TYPE_CHECKING:
    from ..app import RefereeServer


async def aggregate(
    ctx: Context[State, Any],
    contract_id: Annotated[
        str, Field(description="The contract whose evaluators' verdicts are combined")
    ],
    iteration: Annotated[
        int | None,
        Field(
            ge=1,
            description=(
                "The iteration to decide; default the latest with a stored scorecard (or the inline"
                " scorecards')"
            ),
        ),
    ] = None,
    scorecards: Annotated[
        list[dict[str, Any]] | None,
        Field(
            description=(
                "Scorecards to use for this call only, for the iteration being aggregated:"
                " validated like "
                "validate_scorecard does, never stored; each replaces a stored one of the same"
                " evaluator"
            )
        ),
    ] = None,
) -> AggregateResult:
    """Decide what happens next: DELIVER, REVISE (with a revision brief), ESCALATE or PENDING.

    Call it once every evaluator's scorecard for the iteration is stored with validate_scorecard.
    Rules, in order: an evaluator of the contract without a scorecard → PENDING (missing_evaluators
    names who); any BLOCK → ESCALATE to a human (escalation.reasons: blocking evaluators, dimensions
    at 0, spec defects); all ACCEPT → DELIVER this iteration; any REVISE before the contract's
    max_iterations → REVISE with revision_brief (every asking evaluator's issues merged, duplicates
    across evaluators removed with every source listed, ordered CRITICAL > HIGH > MEDIUM > LOW, LOW
    deferred, failed visible criteria; safe to hand to the generator: no hold-outs); any REVISE at the
    last iteration → DELIVER the best iteration (delivered_iteration, best_iteration) with
    quality_notes on what still fails. Also returns the iteration's mean scores and alerts:
    not_comparable (rubric version, prompt version or evaluator model changed), regression,
    saturation, trend and recalibrate. The decision is recorded; the generator_brief prompt serves
    the latest brief.
    """
    state = ctx.request_context.lifespan_context
    contract = load_contract(state.store, contract_id)
    repo = contract_repo(contract, None)
    tree = current_tree(repo) if scorecards and _states_a_tree(scorecards) else None
    return core.aggregate(
        contract_id,
        store=state.store,
        rubrics=state.rubrics(repo),
        iteration=iteration,
        scorecards=scorecards,
        now=state.now,
        tree=tree,
    )


def _states_a_tree(scorecards: list[dict[str, Any]]) -> bool:
    # Hashing the working tree costs a few git processes: only when a scorecard has a tree to compare.
    return any(
        isinstance(c.get("target"), dict) and isinstance(c["target"].get("tree"), str)
        for c in scorecards
        if isinstance(c, dict)
    )


async def record_human_verdict(
    ctx: Context[State, Any],
    scorecard_id: Annotated[
        int, Field(description="The stored scorecard (validate_scorecard's scorecard_id)")
    ],
    verdict: Annotated[
        Literal["ACCEPT", "REVISE", "BLOCK"], Field(description="What the human decides")
    ],
    note: Annotated[str, Field(description="Why: what the evaluator missed or over-weighted")] = "",
) -> calibration.CalibrationRecord:
    """Log a human's verdict on a stored scorecard, for calibrating evaluators.

    Call it when a person has reviewed the work an evaluator scored. The entry records both verdicts
    and whether they agree; calibration_report sums them up per evaluator prompt version. These
    logged disagreements are the dataset for tuning the evaluator prompt.
    """
    state = ctx.request_context.lifespan_context
    return calibration.record_human_verdict(
        scorecard_id, verdict, note, store=state.store, now=state.now
    )


async def calibration_report(
    ctx: Context[State, Any],
    contract_id: Annotated[
        str | None, Field(description="Only this contract's scorecards; default all")
    ] = None,
) -> calibration.CalibrationReport:
    """How often evaluators agree with humans, per evaluator prompt version (count, agreement rate, Cohen's kappa).

    kappa is null, with a note, when it is undefined (every verdict, human and evaluator, the same).
    """
    return calibration.calibration_report(ctx.request_context.lifespan_context.store, contract_id)


def latest_brief(state: State, contract_id: str) -> dict[str, Any] | None:
    """Return the contract's latest revision brief for the generator_brief prompt, or None.

    Args:
        state: The server's state.
        contract_id: The contract.

    Returns:
        The brief of the latest decided aggregate when it asked for a revision, else None.
    """
    return core.latest_brief(state.store, contract_id)


def register(server: RefereeServer) -> None:
    """Add aggregate, record_human_verdict and calibration_report to the server."""
    server.add_tool(aggregate, title="Aggregate verdicts", annotations=RECORDS)
    server.add_tool(record_human_verdict, title="Record a human verdict", annotations=RECORDS)
    server.add_tool(calibration_report, title="Calibration report", annotations=READ_ONLY)
