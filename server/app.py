"""build_server(settings): the MCP server with referee's tools, resources and prompts."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from pydantic import AnyUrl

from referee.tools.errors import RefereeError
from referee.tools.repo import loop_guarded
from referee.tools.settings import Settings
from referee.tools.text import counted

from . import prompts, resources
from .adapters import aggregate, contracts, evaluate, holdouts, validate
from .advertised import advertised_input, advertised_output
from .errors import error_result, problems_of
from .json_text import strict_arguments
from .state import State, open_state
from .tooling import ToolSpec, tool_function

logger = logging.getLogger("referee.server")

INSTRUCTIONS = """\
referee separates the judge from the player. Write a sprint contract with create_contract before
any code exists; after the generator has built, call evaluate (referee runs the tests, browser
checks and static analysis itself), score what needs judgement with the `evaluator` prompt, check
each scorecard with validate_scorecard, then aggregate to get DELIVER, a revision brief, or an
escalation. Never let the generator grade its own work."""

TOOLS: list[ToolSpec[Any]] = [
    *contracts.TOOLS,
    *holdouts.TOOLS,
    *evaluate.TOOLS,
    *validate.TOOLS,
    *aggregate.TOOLS,
]


class RefereeServer(MCPServer[State]):
    """MCPServer whose tool errors list every problem with a JSON pointer and a code."""

    def __init__(self, settings: Settings) -> None:
        built = _built_tools()
        super().__init__(
            "referee",
            title="referee",
            version=version("referee"),
            instructions=INSTRUCTIONS,
            lifespan=_lifespan(settings),
            tools=[b.tool for b in built],
        )
        self.referee_settings = settings
        self.specs: dict[str, ToolSpec[Any]] = {b.spec.name: b.spec for b in built}
        self._schemas = {b.spec.name: b.schemas for b in built}

    async def list_tools(self) -> list[types.Tool]:
        """The tools with their compact advertised schemas (server/advertised.py)."""
        return [self._advertised(tool) for tool in await super().list_tools()]

    def _advertised(self, tool: types.Tool) -> types.Tool:
        if tool.name not in self._schemas:
            return tool
        inputs, outputs = self._schemas[tool.name]
        return tool.model_copy(update={"input_schema": inputs, "output_schema": outputs})

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[State, Any] | None = None
    ) -> types.CallToolResult | types.InputRequiredResult:
        # Every request runs with git calls off the event loop's thread (tools/repo/git.py): a
        # git call waits on the player's repository, and every other request would wait too.
        spec = self.specs.get(name)
        if spec is not None:
            arguments, refused = strict_arguments(spec.input, arguments)
            if refused:
                return error_result(f"invalid input: {counted(len(refused), 'problem')}", refused)
        with loop_guarded():
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                rendered = await anyio.to_thread.run_sync(self._render, name, arguments, exc)
                if rendered is None:
                    raise
                return rendered

    async def read_resource(
        self, uri: AnyUrl | str, context: Context[State, Any] | None = None
    ) -> Iterable[ReadResourceContents] | types.InputRequiredResult:
        with loop_guarded():
            return await super().read_resource(uri, context)

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        context: Context[State, Any] | None = None,
    ) -> types.GetPromptResult | types.InputRequiredResult:
        with loop_guarded():
            return await super().get_prompt(name, arguments, context)

    def _render(
        self, name: str, arguments: dict[str, Any], exc: ToolError
    ) -> types.CallToolResult | None:
        cause = exc.__cause__
        if cause is None:
            return None
        found = problems_of(cause)
        spec = self.specs.get(name)
        if found is not None and spec and spec.raw_problems and not isinstance(cause, RefereeError):
            # The SDK's own argument check stops at types; the tool's rules list every problem.
            raw = spec.raw_problems(self.referee_settings, arguments)
            if raw:
                return error_result(f"invalid input: {counted(len(raw), 'problem')}", raw)
        return error_result(*found) if found is not None else None


def _lifespan(
    settings: Settings,
) -> Callable[[MCPServer[State]], AbstractAsyncContextManager[State]]:
    @asynccontextmanager
    async def lifespan(_: MCPServer[State]) -> AsyncIterator[State]:
        async with open_state(settings) as state:
            yield state

    return lifespan


@dataclass(frozen=True)
class _Built:
    spec: ToolSpec[Any]
    tool: Tool
    schemas: tuple[dict[str, Any], dict[str, Any] | None]
    """The input and output schemas the agent is shown (server/advertised.py)."""


@functools.cache
def _built_tools() -> tuple[_Built, ...]:
    """Every tool as the SDK registers it, built once per process: the SDK derives a pydantic
    model and two JSON schemas from each signature, which cost more than the rest of a server's
    start. A tool holds nothing of a server (its function reads the request's context), so every
    server of the process shares them."""
    return tuple(_built(spec) for spec in TOOLS)


def _built(spec: ToolSpec[Any]) -> _Built:
    """One tool; its docstring, dedented, is the description the agent reads."""
    fn = tool_function(spec)
    tool = Tool.from_function(
        fn,
        name=spec.name,
        title=spec.title,
        annotations=spec.annotations,
        description=inspect.cleandoc(fn.__doc__ or ""),
    )
    output = tool.output_schema
    schemas = (
        advertised_input(tool.parameters),
        advertised_output(output) if output is not None else None,
    )
    return _Built(spec, tool, schemas)


def build_server(settings: Settings) -> RefereeServer:
    """The referee MCP server for these settings (no transport attached)."""
    server = RefereeServer(settings)
    evaluate.register_resources(server)
    resources.register(server, settings)
    prompts.register(server)
    return server
