"""A tool is declared once: its core's input model is the MCP signature.

`ToolSpec` names the input model (a pydantic model in `referee.tools.models`) and the function that
runs the tool. `tool_function` builds the function the SDK registers: its parameters are the
model's fields (type, constraints, default and description), plus the MCP context and the client's
roots, so the advertised input schema and the core's validation cannot drift apart.

A result travels twice: as structured content (the model, which the output schema describes) and
as text content, which is a short readable summary of it (`ToolSpec.summary`), never a second copy.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar, get_args, get_origin

import mcp_types as types
from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from referee.tools.errors import InvalidInput, Problem, problems_from_validation
from referee.tools.settings import Settings

from .roots import ClientRoots
from .state import State

__all__ = ["ToolSpec", "tool_function"]

In = TypeVar("In", bound=BaseModel)

Runner = Callable[[Context[State, Any], types.ListRootsResult, Any], Awaitable[Any]]
RawCheck = Callable[[Settings, Mapping[str, Any]], list[Problem]]
Summary = Callable[[Any], str]


@dataclass(frozen=True)
class ToolSpec(Generic[In]):
    """One MCP tool: its name, the model of its arguments and what runs it.

    Attributes:
        name: The tool's name on the wire.
        title: A short human title.
        input: The core's input model; its fields are the tool's arguments.
        run: `async (ctx, roots, request) -> result`; its docstring is the tool's description and
            its return annotation (a model, or `Annotated[dict, Model]` for a plain document) the
            advertised output schema.
        annotations: The tool's behaviour hints.
        summary: The text content of a result: a few readable lines (server/summaries.py).
        raw_problems: For tools whose rules go beyond types: every problem of the raw arguments,
            used when the SDK's own type check fails, so the caller gets all problems at once.
    """

    name: str
    title: str
    input: type[In]
    run: Runner
    annotations: types.ToolAnnotations
    summary: Summary
    raw_problems: RawCheck | None = None


def tool_function(spec: ToolSpec[Any]) -> Callable[..., Awaitable[Any]]:
    """The function registered with the SDK for `spec`: ctx, roots, then the model's fields."""

    async def tool(ctx: Context[State, Any], roots: types.ListRootsResult, **arguments: Any) -> Any:
        try:
            request = spec.input.model_validate(arguments)
        except ValidationError as exc:  # constraints across fields the signature cannot express
            raise InvalidInput(problems_from_validation(exc)) from exc
        result = await spec.run(ctx, roots, request)
        return _result(result, spec.summary)

    params = [
        inspect.Parameter(
            "ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Context[State, Any]
        ),
        inspect.Parameter("roots", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=ClientRoots),
        *(_parameter(name, field) for name, field in spec.input.model_fields.items()),
    ]
    returns = Annotated[types.CallToolResult, output_model(spec)]
    tool.__name__ = tool.__qualname__ = spec.name
    tool.__doc__ = inspect.cleandoc(spec.run.__doc__ or "")
    tool.__signature__ = inspect.Signature(params, return_annotation=returns)  # type: ignore[attr-defined]
    tool.__annotations__ = {p.name: p.annotation for p in params} | {"return": returns}
    return tool


def output_model(spec: ToolSpec[Any]) -> type[BaseModel]:
    """The model a tool's structured content follows (its run's return annotation)."""
    returns = inspect.signature(spec.run, eval_str=True).return_annotation
    model = get_args(returns)[1] if get_origin(returns) is Annotated else returns
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise TypeError(f"{spec.name}: the return annotation names no model ({returns!r})")
    return model


def _result(result: Any, summary: Summary) -> types.CallToolResult:
    structured = (
        result.model_dump(mode="json", by_alias=True) if isinstance(result, BaseModel) else result
    )
    text = types.TextContent(type="text", text=summary(result))
    return types.CallToolResult(content=[text], structured_content=structured)


def _parameter(name: str, field: FieldInfo) -> inspect.Parameter:
    # The field's constraints (metadata) and description carry over; its default becomes the
    # parameter's default, so pydantic does not see it twice.
    extras = (*field.metadata, Field(description=field.description))
    annotation: Any = Annotated.__class_getitem__((field.annotation, *extras))  # type: ignore[attr-defined]
    if field.default is not PydanticUndefined:
        default: Any = field.default
    elif field.default_factory is not None:
        default = field.default_factory()  # type: ignore[call-arg]
    else:
        default = inspect.Parameter.empty
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
    )
