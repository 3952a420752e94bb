"""Calling referee's tools on an in-process MCP server, as an agent does."""

from __future__ import annotations

from typing import Any

from mcp import Client


async def call(agent: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """A successful tool call's structured content (fails the test on a tool error)."""
    result = await agent.call_tool(tool, arguments)
    assert result.is_error is False, result.content
    assert result.structured_content is not None
    return result.structured_content
