"""The few tool annotation combinations referee uses, defined once."""

import mcp_types as types

READ_ONLY = types.ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
"""Reads the store only."""

RECORDS = types.ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
"""Adds to referee's store; never touches the evaluated repository."""
