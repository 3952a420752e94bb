"""MCP adapters for create_contract and get_contract."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import mcp_types as types
from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from referee.tools import create_contract as core
from referee.tools.errors import InvalidInput
from referee.tools.models import (
    Antipattern,
    ContextStrategy,
    Contract,
    CreateContractResult,
    CriterionSpec,
    Serve,
    TaskType,
    Thresholds,
)
from referee.tools.paths import confine
from referee.tools.repo import describe_repo
from referee.tools.rubrics import load_rubrics
from referee.tools.settings import Settings

from ..annotations import READ_ONLY, RECORDS
from ..roots import ClientRoots, effective_settings
from ..state import State

if TYPE_CHECKING:
    from ..app import RefereeServer


def _provided(values: dict[str, Any]) -> dict[str, Any]:
    """Arguments as plain JSON data, leaving out those the caller did not give."""
    out = {}
    for key, value in values.items():
        if value is None or key == "ctx":
            continue
        out[key] = _plain(value)
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def repo_for(settings: Settings, raw: str | None, at: str = "/repo") -> Path:
    return confine(raw, settings.roots, at=at) if raw else settings.repo


async def create_contract(
    ctx: Context[State, Any],
    roots: ClientRoots,
    goal: Annotated[str, Field(description="1–2 sentences: the deliverable")],
    task_type: Annotated[
        TaskType, Field(description="feature · bug · security · other")
    ] = "feature",
    has_ui: Annotated[bool, Field(description="The change has a user interface")] = False,
    rubric_ref: Annotated[
        str | None, Field(description="Rubric name; default from task_type and has_ui")
    ] = None,
    in_scope: list[str] | None = None,
    out_of_scope: Annotated[
        list[str] | None, Field(description="What is excluded (empty is warned about)")
    ] = None,
    functional: Annotated[
        list[CriterionSpec] | None, Field(description="Functional acceptance criteria")
    ] = None,
    quality: Annotated[
        list[CriterionSpec] | None, Field(description="Quality criteria with measurable thresholds")
    ] = None,
    generator: Annotated[str | None, Field(description="Name of the generating agent")] = None,
    evaluators: Annotated[list[str] | None, Field(description="1–4 evaluator names")] = None,
    max_iterations: Annotated[int | None, Field(description="1–5, default 3")] = None,
    context_strategy: ContextStrategy | None = None,
    thresholds: Annotated[
        Thresholds | None, Field(description="{domain: {dimension: 1–10}} for tenpoint scorecards")
    ] = None,
    serve: Annotated[
        Serve | None, Field(description="Starts the app under test for browser checks")
    ] = None,
    antipatterns: Annotated[
        list[Antipattern] | None, Field(description="Antipatterns evaluators must check")
    ] = None,
    repo: Annotated[
        str | None, Field(description="Repository path; default the server's root")
    ] = None,
    slug: Annotated[str | None, Field(description="Slug of the id; default from the goal")] = None,
) -> CreateContractResult:
    """Write a sprint contract before any code exists: what "done" means, who judges it, how referee verifies it.

    Returns the stored contract (evaluator view, with generated ids), the generator view (hold-out
    criteria removed without a trace: hand only this to the generator) and warnings. Every problem
    of the request is reported at once, each with a JSON pointer and a code.
    """
    state = ctx.request_context.lifespan_context
    args = _provided({k: v for k, v in locals().items() if k not in ("ctx", "roots", "state")})
    repo_info = describe_repo(repo_for(effective_settings(state.settings, roots), repo))
    return core.create_contract(
        args,
        store=state.store,
        rubrics=state.rubrics(repo_info.root),
        repo=repo_info,
        now=state.now,
    )


async def get_contract(
    ctx: Context[State, Any],
    contract_id: Annotated[str, Field(description="The contract id, e.g. SC-login-form-20260325")],
    view: Annotated[
        Literal["generator", "evaluator"], Field(description="generator: hold-outs removed")
    ] = "generator",
) -> Annotated[types.CallToolResult, Contract]:
    """A stored contract: the generator view (default; safe to hand to the generator) or the evaluator view."""
    state = ctx.request_context.lifespan_context
    doc = core.get_contract(contract_id, view, store=state.store)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=_json(doc))],
        structured_content=doc,
    )


def _json(doc: dict[str, Any]) -> str:
    return json.dumps(doc, ensure_ascii=False)


def _raw_create_problems(server: RefereeServer) -> Any:
    def check(arguments: dict[str, Any]) -> tuple[str, list[Any]] | None:
        rubrics = load_rubrics(server.referee_settings.repo)
        problems = core.request_problems(arguments, rubrics)
        return (InvalidInput(problems).summary, problems) if problems else None

    return check


def register(server: RefereeServer) -> None:
    server.add_tool(create_contract, title="Create sprint contract", annotations=RECORDS)
    server.add_tool(get_contract, title="Get contract", annotations=READ_ONLY)
    server.raw_validators["create_contract"] = _raw_create_problems(server)
