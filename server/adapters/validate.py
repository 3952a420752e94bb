"""MCP adapter for validate_scorecard: binds the store, the contract, the evidence and the clock."""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.mcpserver import Context

from referee.tools import validate_scorecard as core
from referee.tools.errors import Problem
from referee.tools.models import ValidateScorecardInput, ValidationResult

from ..annotations import RECORDS
from ..state import State
from ..tooling import ToolSpec


async def validate_scorecard(
    ctx: Context[State, Any], roots: types.ListRootsResult, request: ValidateScorecardInput
) -> ValidationResult:
    """Check an evaluator's scorecard before it counts: schema, contract, arithmetic and recorded
    evidence.

    Call it with each scorecard an evaluator produced, after `evaluate`. All problems are listed at
    once in `errors` (each with a JSON pointer into the scorecard, a stable code and what to fix)
    and
    `warnings`; fix them and call again. `computed` gives the weighted score, the 0–100 normalized
    score and the verdict (ACCEPT · REVISE · BLOCK) that the scores, criteria, antipatterns and
    spec_defect imply. Evidence rules: cited evidence ids must exist in referee's recorded run, a
    criterion verdict must not contradict referee's check ("contradicts E3: exit code 1"), and a
    scorecard of another tree than the current one is `stale`. A valid scorecard is stored as that
    evaluator's verdict for its iteration (`stored`, `scorecard_id`; `replaced` when it supersedes
    an
    earlier one), which `aggregate` then uses. An invalid scorecard is a normal result with
    `valid: false`; only an unknown or missing contract is a tool error.
    """
    state = ctx.request_context.lifespan_context
    card = request.scorecard
    resolved = core.resolve_contract(state.store, card, request.contract_id, request.contract)
    # An inline contract's repo comes from the client: git only runs inside the allowed roots.
    repo = core.contract_repo(resolved.contract, None if resolved.stored else state.settings.roots)
    evidence = core.evidence_context(
        state.store, state.settings.home, repo, resolved.contract.id, card
    )
    result = core.validate_and_store(
        card,
        contract=resolved.contract,
        rubrics=state.rubrics(repo),
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
    )
]
