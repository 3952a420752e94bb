"""MCP adapter for validate_scorecard: binds the store, the contract, the evidence and the clock."""

from __future__ import annotations

from typing import Any

import anyio.to_thread
import mcp_types as types
from mcp.server.mcpserver import Context

from referee.tools import validate_scorecard as core
from referee.tools.errors import Problem
from referee.tools.models import ValidateScorecardInput, ValidationResult

from .. import summaries
from ..annotations import RECORDS
from ..state import State
from ..tooling import ToolSpec


async def validate_scorecard(
    ctx: Context[State, Any], roots: types.ListRootsResult, request: ValidateScorecardInput
) -> ValidationResult:
    """Check a scorecard before it counts: schema, contract, arithmetic and referee's recorded
    evidence (cited ids exist, no verdict contradicts a recorded check, the tree is current).
    Every problem is listed at once (JSON pointer, code, what to fix); computed gives the scores
    and the verdict. A valid scorecard is stored as its evaluator's verdict for the iteration; an
    invalid one is a normal result with valid false.
    """
    state = ctx.request_context.lifespan_context
    # The repository is read with git (the tree is current?): in a worker thread.
    return await anyio.to_thread.run_sync(_validate, state, request)


def _validate(state: State, request: ValidateScorecardInput) -> ValidationResult:
    card = request.scorecard
    resolved = core.resolve_contract(state.store, card, request.contract_id, request.contract)
    # An inline contract's repo comes from the client: git only runs inside the allowed roots.
    repo = (
        core.stored_repo(state.store, resolved.contract, state.settings.roots)
        if resolved.stored
        else core.contract_repo(resolved.contract, state.settings.roots)
    )
    evidence = core.evidence_context(
        state.store, state.settings.home, repo, resolved.contract.id, card
    )
    result = core.validate_and_store(
        card,
        contract=resolved.contract,
        rubrics=state.rubrics_for(resolved.contract),
        format=request.format,
        evidence=evidence,
        store=state.store if resolved.stored else None,
        store_result=request.store and resolved.stored,
        now=state.now,
        variant=request.variant,
    )
    if request.store and not resolved.stored and result.valid:
        return _unstored_inline(result, resolved.contract.id)
    return result


def _unstored_inline(result: ValidationResult, contract_id: str) -> ValidationResult:
    message = (
        f"validated against an inline contract that is not stored as {contract_id}, so the "
        "scorecard was not recorded; create or import the contract first to make it count"
    )
    warning = Problem(path="/contract", code="not_stored", message=message)
    return result.model_copy(update={"warnings": [*result.warnings, warning]})


TOOLS: list[ToolSpec[Any]] = [
    ToolSpec(
        "validate_scorecard",
        "Validate scorecard",
        ValidateScorecardInput,
        validate_scorecard,
        RECORDS,
        summaries.validation,
    )
]
