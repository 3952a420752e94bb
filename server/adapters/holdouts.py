"""MCP adapter for add_holdout_files."""

from __future__ import annotations

from typing import Any

import anyio.to_thread
import mcp_types as types
from mcp.server.mcpserver import Context

from referee.tools.holdouts import add_holdout_files, store_vault
from referee.tools.models import AddHoldoutFilesInput, AddHoldoutFilesResult
from referee.tools.settings import Settings
from referee.tools.store import load_contract

from .. import summaries
from ..annotations import RECORDS
from ..roots import effective_settings
from ..state import State
from ..tooling import ToolSpec


async def add_holdout_files_tool(
    ctx: Context[State, Any], roots: types.ListRootsResult, request: AddHoldoutFilesInput
) -> AddHoldoutFilesResult:
    """Move hold-out test files out of the generator's reach: `paths` (deleted from the working
    tree once stored unless `keep`; the tree path stays unless `to` names a folder, `.` the
    root) or inline `files`, for `criterion` (default all hold-outs). evaluate lays them over the
    tree for that check only; warnings name copies still in reach."""
    state = ctx.request_context.lifespan_context
    settings = effective_settings(state.settings, roots)
    # The files are read and removed through git's listing: in a worker thread.
    return await anyio.to_thread.run_sync(_add, state, settings, request)


def _add(state: State, settings: Settings, request: AddHoldoutFilesInput) -> AddHoldoutFilesResult:
    contract = load_contract(state.store, request.contract_id)
    return add_holdout_files(
        request,
        contract=contract,
        vault=store_vault(state.store),
        repo=settings.repo,
        roots=settings.roots,
        now=lambda: state.now().isoformat(timespec="seconds"),
    )


TOOLS: list[ToolSpec[Any]] = [
    ToolSpec(
        "add_holdout_files",
        "Add hold-out files",
        AddHoldoutFilesInput,
        add_holdout_files_tool,
        RECORDS,
        summaries.holdouts_added,
    ),
]
