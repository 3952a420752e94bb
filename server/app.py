"""build_server(settings): the MCP server with referee's tools, resources and prompts."""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import version
from typing import Any

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from referee.tools.settings import Settings

from . import prompts, resources
from .adapters import aggregate, contracts, evaluate, report, validate
from .errors import error_result, problems_of
from .state import State, open_state

logger = logging.getLogger("referee.server")

INSTRUCTIONS = """\
referee separates the judge from the player. Write a sprint contract with create_contract before
any code exists; after the generator has built, call evaluate (referee runs the tests, browser
checks and static analysis itself), score what needs judgement with the `evaluator` prompt, check
each scorecard with validate_scorecard, then aggregate to get DELIVER, a revision brief, or an
escalation. Never let the generator grade its own work."""


class RefereeServer(MCPServer[State]):
    """MCPServer whose tool errors list every problem with a JSON pointer and a code."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(
            "referee",
            title="referee",
            version=version("referee"),
            instructions=INSTRUCTIONS,
            lifespan=_lifespan(settings),
        )
        self.referee_settings = settings
        self.raw_validators: dict[str, Any] = {}

    def add_tool(self, fn: Any, *args: Any, description: str | None = None, **kwargs: Any) -> None:
        """Register a tool; its docstring, dedented, is the description the agent reads."""
        text = description if description is not None else inspect.cleandoc(fn.__doc__ or "")
        super().add_tool(fn, *args, description=text, **kwargs)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[State, Any] | None = None
    ) -> types.CallToolResult | types.InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            rendered = self._render(name, arguments, exc)
            if rendered is None:
                raise
            return rendered

    def _render(
        self, name: str, arguments: dict[str, Any], exc: ToolError
    ) -> types.CallToolResult | None:
        cause = exc.__cause__
        if cause is None:
            return None
        validator = self.raw_validators.get(name)
        if validator is not None and problems_of(cause) is not None and not _is_core_error(cause):
            # The SDK's own argument check stops at types; the core's validator lists every problem.
            found = validator(arguments)
            if found is not None:
                return error_result(*found)
        found = problems_of(cause)
        return error_result(*found) if found is not None else None


def _is_core_error(exc: BaseException) -> bool:
    from referee.tools.errors import RefereeError

    return isinstance(exc, RefereeError)


def _lifespan(settings: Settings) -> Any:
    @asynccontextmanager
    async def lifespan(_: MCPServer[State]) -> AsyncIterator[State]:
        async with open_state(settings) as state:
            state.extras["latest_brief"] = aggregate.latest_brief
            yield state

    return lifespan


def build_server(settings: Settings) -> RefereeServer:
    """The referee MCP server for these settings (no transport attached)."""
    server = RefereeServer(settings)
    contracts.register(server)
    evaluate.register(server)
    validate.register(server)
    aggregate.register(server)
    report.register(server)
    resources.register(server)
    prompts.register(server)
    return server
