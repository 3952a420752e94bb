"""The few tool annotation combinations referee uses, defined once."""

import mcp_types as types

READ_ONLY = types.ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)
"""Reads the store only."""

RECORDS = types.ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False, openWorldHint=False)
"""Adds to referee's store; never touches the evaluated repository."""
