"""MCP adapters for create_contract and get_contract."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import anyio.to_thread
import mcp_types as types
from mcp.server.mcpserver import Context

from referee.tools import create_contract as core
from referee.tools.errors import Problem
from referee.tools.models import (
    Contract,
    CreateContractInput,
    CreateContractResult,
    GetContractInput,
)
from referee.tools.paths import confine
from referee.tools.repo import describe_repo
from referee.tools.rubrics import load_rubrics
from referee.tools.settings import Settings

from .. import summaries
from ..annotations import READ_ONLY, RECORDS
from ..roots import effective_settings
from ..state import State
from ..tooling import ToolSpec


async def create_contract(
    ctx: Context[State, Any], roots: types.ListRootsResult, request: CreateContractInput
) -> CreateContractResult:
    """Write a sprint contract before any code exists: what "done" means, who judges it and how
    referee verifies each criterion (fields: schema://create-contract-input).

    Returns the stored contract, its generator view (hold-outs removed without a trace: hand only
    this to the generator) and warnings. Every problem of a bad request is listed at once.
    """
    state = ctx.request_context.lifespan_context
    settings = effective_settings(state.settings, roots)
    # The repository is read with git: in a worker thread, never the event loop's.
    return await anyio.to_thread.run_sync(_create, state, settings, request)


def _create(state: State, settings: Settings, request: CreateContractInput) -> CreateContractResult:
    folder = confine(request.repo, settings.roots, at="/repo") if request.repo else settings.repo
    repo_info = describe_repo(folder)
    # The core checks a plain mapping, as it would a YAML file, so both report the same problems.
    arguments = request.model_dump(mode="json", by_alias=True, exclude_none=True)
    return core.create_contract(
        arguments,
        store=state.store,
        rubrics=state.rubrics(repo_info.root),
        repo=repo_info,
        now=state.now,
    )


def _create_problems(settings: Settings, arguments: Mapping[str, Any]) -> list[Problem]:
    return core.request_problems(arguments, load_rubrics(settings.repo), settings.repo)


async def get_contract(
    ctx: Context[State, Any], roots: types.ListRootsResult, request: GetContractInput
) -> Annotated[dict[str, Any], Contract]:
    """A stored contract: view "generator" (default; hold-outs removed) or "evaluator"."""
    state = ctx.request_context.lifespan_context
    return core.get_contract(request.contract_id, request.view, store=state.store)


TOOLS: list[ToolSpec[Any]] = [
    ToolSpec(
        "create_contract",
        "Create sprint contract",
        CreateContractInput,
        create_contract,
        RECORDS,
        summaries.contract_created,
        raw_problems=_create_problems,
    ),
    ToolSpec(
        "get_contract",
        "Get contract",
        GetContractInput,
        get_contract,
        READ_ONLY,
        summaries.contract_document,
    ),
]
