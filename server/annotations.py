"""The few tool annotation combinations referee uses, defined once."""

import mcp_types as types

READ_ONLY = types.ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
"""Reads the store only."""

# readOnlyHint and idempotentHint are left out: false is what MCP assumes when they are absent,
# and every byte of tools/list sits in the client's context on every turn.
RECORDS = types.ToolAnnotations(destructive_hint=False, open_world_hint=False)
"""Adds to referee's store; never touches the evaluated repository."""
