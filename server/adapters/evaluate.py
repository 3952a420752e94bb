"""MCP adapter for evaluate, and the evidence:// and screenshot:// resources behind its result."""

from __future__ import annotations

import json
from typing import Annotated, Any

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from referee.tools.errors import RefereeError
from referee.tools.evaluate import EvaluateDeps, EvaluateInput
from referee.tools.evaluate import evaluate as evaluate_core
from referee.tools.evidence import full_evidence, run_change, screenshot_of
from referee.tools.models import EvaluateResult, Evaluation, StrategicAssessment
from referee.tools.report import strategic_assessment

from .. import summaries
from ..annotations import RECORDS
from ..roots import effective_settings
from ..state import State
from ..tooling import ToolSpec


async def evaluate(
    ctx: Context[State, Any], roots: types.ListRootsResult, request: EvaluateInput
) -> Annotated[Evaluation | StrategicAssessment, EvaluateResult]:
    """Ground verdicts in evidence: referee runs the contract's checks itself (tests, commands,
    browser, static analysis, tamper detection) and returns each criterion's verdict citing
    evidence ids (evidence://{run_id}/{id}; the change judged: change://{run_id}), derived
    scores, what needs judgement and a signed draft scorecard for validate_scorecard. scope
    "strategic" runs nothing: trends, risks and priorities from the stored history.
    """
    state = ctx.request_context.lifespan_context
    if request.scope == "strategic":
        return strategic_assessment(state.store, request.contract_id)

    async def progress(done: float, total: float | None, message: str) -> None:
        await ctx.report_progress(done, total, message)

    deps = EvaluateDeps(
        store=state.store,
        settings=effective_settings(state.settings, roots),
        now=state.now,
        on_progress=progress,
        browser_pool=await state.browser_pool(),
        phases=state.phases,
    )
    return await evaluate_core(request, deps)


TOOLS: list[ToolSpec[Any]] = [
    ToolSpec(
        "evaluate",
        "Evaluate against a contract",
        EvaluateInput,
        evaluate,
        RECORDS,
        summaries.evaluation,
    )
]


def register_resources(server: MCPServer[State]) -> None:
    """evidence://{run_id}/{evidence_id}, screenshot://{run_id}/{evidence_id} and
    change://{run_id}."""

    @server.resource(
        "change://{run_id}",
        name="change",
        mime_type="text/x-diff",
        description="The change a run judged: its changed files, base against the evaluated tree",
    )
    def change(run_id: str, ctx: Context[State, Any]) -> str:
        try:
            return run_change(ctx.request_context.lifespan_context.store, run_id)
        except RefereeError as exc:
            raise ResourceError(str(exc)) from exc

    @server.resource(
        "evidence://{run_id}/{evidence_id}",
        name="evidence",
        mime_type="application/json",
        description="One evidence item of an evaluation run, with its full (redacted) output",
    )
    def evidence(run_id: str, evidence_id: str, ctx: Context[State, Any]) -> str:
        try:
            item = full_evidence(ctx.request_context.lifespan_context.store, run_id, evidence_id)
        except RefereeError as exc:
            raise ResourceError(str(exc)) from exc
        return json.dumps(item, ensure_ascii=False, indent=2)

    @server.resource(
        "screenshot://{run_id}/{evidence_id}",
        name="screenshot",
        mime_type="image/png",
        description="The full-page PNG screenshot a browser check recorded as evidence",
    )
    def screenshot(run_id: str, evidence_id: str, ctx: Context[State, Any]) -> bytes:
        try:
            return screenshot_of(ctx.request_context.lifespan_context.store, run_id, evidence_id)
        except RefereeError as exc:
            raise ResourceError(str(exc)) from exc
