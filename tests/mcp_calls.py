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


async def judged_criterion(
    agent: Client, check: dict[str, Any], goal: str, **fields: Any
) -> dict[str, Any]:
    """The one criterion of a contract made for `check` (contract `fields` besides), as a
    sandboxed evaluate judges it."""
    criterion = {"criterion": goal, "verification_method": "test", "check": check}
    created = await call(
        agent,
        "create_contract",
        goal=goal,
        out_of_scope=["ui"],
        functional=[criterion],
        **fields,
    )
    result = await call(
        agent, "evaluate", contract_id=created["contract"]["id"], isolation="sandbox"
    )
    judged: dict[str, Any] = result["criteria"][0]
    return judged
