"""How referee's errors reach an MCP client: an is_error result listing every problem."""

from __future__ import annotations

import json
from collections.abc import Sequence

import mcp_types as types
from pydantic import ValidationError

from referee.tools.errors import InvalidInput, NotFound, Problem, problems_from_validation
from referee.tools.text import counted


def problem_payload(summary: str, problems: Sequence[Problem]) -> dict[str, object]:
    return {
        "error": "invalid_input",
        "message": summary,
        "problems": [
            {"path": p.path, "pointer": p.path, "code": p.code, "message": p.message}
            for p in problems
        ],
    }


def error_result(summary: str, problems: Sequence[Problem]) -> types.CallToolResult:
    """An is_error tool result whose text and structured content list every problem."""
    payload = problem_payload(summary, problems)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(payload, ensure_ascii=False))],
        structured_content=payload,
        is_error=True,
    )


def problems_of(exc: BaseException) -> tuple[str, list[Problem]] | None:
    """The problems behind an exception raised by a tool, or None when it is not the caller's
    fault."""
    if isinstance(exc, InvalidInput):
        return exc.summary, exc.problems
    if isinstance(exc, NotFound):
        return str(exc), [exc.as_problem()]
    if isinstance(exc, ValidationError):
        problems = problems_from_validation(exc)
        return f"invalid input: {counted(len(problems), 'problem')}", problems
    return None
