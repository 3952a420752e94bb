"""MCP adapter for evaluate, and the evidence:// resource behind its compact result."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError
from pydantic import Field

from referee.tools.errors import RefereeError
from referee.tools.evaluate import EvaluateDeps, EvaluateInput
from referee.tools.evaluate import evaluate as evaluate_core
from referee.tools.evidence import full_evidence, screenshot_of
from referee.tools.models import Depth, Evaluation, Isolation, Scope
from referee.tools.rubrics import load_rubrics

from ..annotations import RECORDS
from ..roots import ClientRoots, effective_settings
from ..state import State

if TYPE_CHECKING:
    from ..app import RefereeServer


async def evaluate(
    ctx: Context[State, Any],
    roots: ClientRoots,
    contract_id: Annotated[str, Field(description="The contract to evaluate against")],
    evaluator: Annotated[
        str | None, Field(description="Run only this evaluator's criteria; omitted: all")
    ] = None,
    ref: Annotated[
        str | None,
        Field(description="Commit to evaluate (in a worktree); omitted: the working tree"),
    ] = None,
    base: Annotated[
        str | None, Field(description="Base commit for task scope; default the contract's")
    ] = None,
    iteration: Annotated[int | None, Field(ge=1, description="Default: the next iteration")] = None,
    scope: Annotated[
        Scope, Field(description="task: files changed since base; project: every file")
    ] = "task",
    depth: Annotated[Depth, Field(description="quick · standard · deep")] = "standard",
    isolation: Annotated[
        Isolation, Field(description="inplace (working tree) or worktree (detached checkout)")
    ] = "inplace",
    evaluator_model: Annotated[
        str | None, Field(description="The judging model, for the comparability guard")
    ] = None,
) -> Evaluation:
    """Ground a verdict in evidence: referee runs the contract's checks itself (tests, commands, browser, static analysis), detects test tampering, and checks the tree was not modified.

    Returns per-criterion verdicts citing evidence ids (full output at evidence://{run_id}/{id}),
    static findings with file:line, deterministic dimension scores, what still needs judgement,
    and a draft scorecard to complete and submit to validate_scorecard. Progress is reported.
    """
    state = ctx.request_context.lifespan_context

    async def progress(done: float, total: float | None, message: str) -> None:
        await ctx.report_progress(done, total, message)

    request = EvaluateInput(
        contract_id=contract_id,
        evaluator=evaluator,
        ref=ref,
        base=base,
        iteration=iteration,
        scope=scope,
        depth=depth,
        isolation=isolation,
        evaluator_model=evaluator_model,
    )
    deps = EvaluateDeps(
        store=state.store,
        settings=effective_settings(state.settings, roots),
        rubrics=load_rubrics,
        now=state.now,
        on_progress=progress,
        browser_pool=await state.browser_pool(),
    )
    return await evaluate_core(request, deps)


def register(server: RefereeServer) -> None:
    server.add_tool(evaluate, title="Evaluate against a contract", annotations=RECORDS)

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
