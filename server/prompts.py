"""Prompts: `evaluator` (the read-only judge) and `generator_brief` (what the generator may see)."""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from referee.tools.aggregate import hidden_checks_text, latest_brief
from referee.tools.create_contract import generator_view
from referee.tools.prompts import EVALUATOR_PROMPT, GENERATOR_BRIEF_PROMPT, evaluator_prompt_version
from referee.tools.store import load_contract

from .state import State


def evaluator_text(state: State, contract_id: str | None, evaluator: str | None) -> str:
    parts = [EVALUATOR_PROMPT, f"\nPrompt version: {evaluator_prompt_version()}\n"]
    if contract_id:
        contract = load_contract(state.store, contract_id)
        rubric = state.rubrics_for(contract).get(contract.rubric_ref)
        mine = [c.id for c in contract.criteria_for(evaluator)] if evaluator else None
        parts.append(
            "\n## Contract (evaluator"
            f" view)\n```json\n{contract.model_dump_json(indent=2, by_alias=True)}\n```\n"
        )
        if mine is not None:
            parts.append(f"\nYou are {evaluator!r}; your criteria: {', '.join(mine) or 'none'}.\n")
        if rubric is not None:
            body = rubric.model_dump_json(indent=2, by_alias=True)
            parts.append(f"\n## Rubric {rubric.name} {rubric.version}\n```json\n{body}\n```\n")
    return "".join(parts)


def generator_text(state: State, contract_id: str, brief: dict[str, Any] | None = None) -> str:
    view = generator_view(load_contract(state.store, contract_id))
    parts = [
        GENERATOR_BRIEF_PROMPT,
        f"\n## Sprint contract\n```json\n{json.dumps(view, indent=2, ensure_ascii=False)}\n```\n",
    ]
    if brief:
        parts.append(
            "\n## Revision"
            f" brief\n```json\n{json.dumps(brief, indent=2, ensure_ascii=False)}\n```\n"
        )
        hidden = brief.get("hidden_checks_failed")
        if isinstance(hidden, int) and hidden > 0:
            parts.append(f"\n{hidden_checks_text(hidden)}.\n")
    return "".join(parts)


def register(server: MCPServer[State]) -> None:
    """Add the evaluator and generator_brief prompts (and prompt://evaluator)."""

    @server.resource(
        "prompt://evaluator",
        name="prompt-evaluator",
        mime_type="text/markdown",
        description=(
            "The evaluator prompt (the same text as the `evaluator` prompt without a contract)"
        ),
    )
    def evaluator_prompt_text() -> str:
        return f"{EVALUATOR_PROMPT}\nPrompt version: {evaluator_prompt_version()}\n"

    @server.prompt(name="evaluator", title="Independent evaluator (read-only)")
    def evaluator(
        ctx: Context[State, Any], contract_id: str | None = None, evaluator: str | None = None
    ) -> str:
        """The read-only evaluator role: distrust the implementer, cite evidence ids, return a
        canonical scorecard."""
        return evaluator_text(ctx.request_context.lifespan_context, contract_id, evaluator)

    @server.prompt(name="generator_brief", title="Generator brief")
    def generator_brief(ctx: Context[State, Any], contract_id: str) -> str:
        """The contract's generator view (no hold-outs) plus the latest revision brief."""
        state = ctx.request_context.lifespan_context
        return generator_text(state, contract_id, latest_brief(state.store, contract_id))
