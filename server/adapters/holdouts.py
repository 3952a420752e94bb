"""MCP adapter for add_holdout_files."""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.mcpserver import Context

from referee.tools.holdouts import Vault, add_holdout_files
from referee.tools.models import AddHoldoutFilesInput, AddHoldoutFilesResult
from referee.tools.store import load_contract

from ..annotations import RECORDS
from ..roots import effective_settings
from ..state import State
from ..tooling import ToolSpec


async def add_holdout_files_tool(
    ctx: Context[State, Any], roots: types.ListRootsResult, request: AddHoldoutFilesInput
) -> AddHoldoutFilesResult:
    """Keep a hold-out criterion's test files where the generator cannot read them.

    The files (paths inside the allowed roots, or given inline in `files`, which never have to
    touch the generator's tree) are copied into referee's hold-out store outside the repository;
    evaluate lays them over the tree for the hold-out criterion's check only. Warnings name any
    file still in the working tree or in the git history: delete it there (referee never does).
    """
    state = ctx.request_context.lifespan_context
    settings = effective_settings(state.settings, roots)
    contract = load_contract(state.store, request.contract_id)
    return add_holdout_files(
        request,
        contract=contract,
        vault=Vault(settings.vault_root, state.store.key),
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
    ),
]
