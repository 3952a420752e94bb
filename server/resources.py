"""Resources: rubric://, schema://, codes://, contract://, report://, scorecard:// (evidence://
lives with evaluate)."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources as package_data
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from referee.tools.codes import FAMILIES, entries, family
from referee.tools.create_contract import get_contract
from referee.tools.errors import RefereeError
from referee.tools.report import build_report, render_markdown
from referee.tools.rubrics import builtin_rubrics, load_rubrics
from referee.tools.settings import Settings
from referee.tools.store import load_scorecard

from .state import State


def schema_names() -> list[str]:
    files = package_data.files("referee.schemas").iterdir()
    return sorted(
        f.name.removesuffix(".schema.json") for f in files if f.name.endswith(".schema.json")
    )


def read_schema(name: str) -> str:
    filename = name if name.endswith(".schema.json") else f"{name}.schema.json"
    path = package_data.files("referee.schemas") / filename
    if not path.is_file():
        raise ResourceError(f"no schema {name!r}; known: {', '.join(schema_names())}")
    return path.read_text(encoding="utf-8")


def read_codes(key: str) -> str:
    found = family(key)
    if found is None:
        raise ResourceError(f"no code family {key!r}; known: {', '.join(f.key for f in FAMILIES)}")
    return json.dumps([e.as_dict() for e in entries(found)], indent=2, ensure_ascii=False)


def register(server: MCPServer[State], settings: Settings) -> None:
    """Add rubric://, schema://, codes://, contract://, report:// and scorecard:// to the
    server."""

    @server.resource(
        "rubric://{name}",
        name="rubric",
        mime_type="application/json",
        description="A rubric: dimensions, weights, level definitions and scored examples",
    )
    def rubric(name: str) -> str:
        found = load_rubrics(settings.repo).get(name)
        if found is None:
            raise ResourceError(
                f"no rubric {name!r}; known: {', '.join(load_rubrics(settings.repo).names())}"
            )
        return found.model_dump_json(indent=2, by_alias=True)

    @server.resource(
        "schema://{name}",
        name="schema",
        mime_type="application/schema+json",
        description="A JSON Schema (draft 2020-12) of one of referee's formats",
    )
    def schema(name: str) -> str:
        return read_schema(name)

    @server.resource(
        "codes://{family}",
        name="codes",
        mime_type="application/json",
        description=(
            "What each code of a family means and how to fix it: reason (a criterion's"
            " reason_code), validate, input (tool errors), antipattern, rubric"
        ),
    )
    def codes(family: str) -> str:
        return read_codes(family)

    @server.resource(
        "contract://{contract_id}",
        name="contract",
        mime_type="application/json",
        description="A contract, evaluator view (hold-outs included)",
    )
    def contract(contract_id: str, ctx: Context[State, Any]) -> str:
        return _contract(ctx.request_context.lifespan_context, contract_id, "evaluator")

    @server.resource(
        "contract://{contract_id}/generator",
        name="contract-generator-view",
        mime_type="application/json",
        description="A contract, generator view (no hold-outs)",
    )
    def contract_generator(contract_id: str, ctx: Context[State, Any]) -> str:
        return _contract(ctx.request_context.lifespan_context, contract_id, "generator")

    @server.resource(
        "report://{report_id}",
        name="report",
        mime_type="text/markdown",
        description=(
            "The report of a contract (SC-…: every run, scorecard history, latest decision,"
            " trends) or of one evaluation run (R…): scores, ranked findings, improvement"
            " priorities, anti-gaming results, criteria and the evidence index"
        ),
    )
    def report(report_id: str, ctx: Context[State, Any]) -> str:
        state = ctx.request_context.lifespan_context
        try:
            data = build_report(state.store, report_id)
        except RefereeError as exc:
            raise ResourceError(str(exc)) from exc
        return render_markdown(data)

    @server.resource(
        "scorecard://{scorecard_id}",
        name="scorecard",
        mime_type="application/json",
        description=(
            "A stored scorecard as validate_scorecard recorded it (row integrity verified): its"
            " evaluator, iteration, computed verdict and the scorecard itself"
        ),
    )
    def scorecard(scorecard_id: str, ctx: Context[State, Any]) -> str:
        return _scorecard(ctx.request_context.lifespan_context, scorecard_id)

    _register_listed(server)


def _scorecard(state: State, scorecard_id: str) -> str:
    if not scorecard_id.isdigit():
        raise ResourceError(
            f"scorecard ids are numbers (validate_scorecard's scorecard_id), not {scorecard_id!r}"
        )
    try:
        stored = load_scorecard(state.store, int(scorecard_id))
    except RefereeError as exc:
        raise ResourceError(str(exc)) from exc
    document = {
        "id": stored.id,
        "contract_ref": stored.contract_id,
        "evaluator": stored.evaluator,
        "iteration": stored.iteration,
        "variant": stored.variant,
        "stored_at": stored.stored_at,
        "superseded_by": stored.superseded_by,
        "computed": stored.computed,
        "scorecard": stored.body,
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def _contract(state: State, contract_id: str, view: Any) -> str:
    try:
        return json.dumps(
            get_contract(contract_id, view, store=state.store), indent=2, ensure_ascii=False
        )
    except RefereeError as exc:
        raise ResourceError(str(exc)) from exc


def _register_listed(server: MCPServer[State]) -> None:
    """Concrete entries for resources/list, so clients can discover the built-in rubrics and
    schemas."""
    for name in builtin_rubrics():
        server.resource(f"rubric://{name}", name=f"rubric-{name}", mime_type="application/json")(
            _rubric_reader(name)
        )
    for name in schema_names():
        server.resource(
            f"schema://{name}", name=f"schema-{name}", mime_type="application/schema+json"
        )(_schema_reader(name))
    for fam in FAMILIES:
        server.resource(
            f"codes://{fam.key}", name=f"codes-{fam.key}", mime_type="application/json"
        )(_codes_reader(fam.key))


def _rubric_reader(name: str) -> Callable[[], str]:
    def read() -> str:
        return builtin_rubrics()[name].model_dump_json(indent=2, by_alias=True)

    return read


def _schema_reader(name: str) -> Callable[[], str]:
    def read() -> str:
        return read_schema(name)

    return read


def _codes_reader(key: str) -> Callable[[], str]:
    def read() -> str:
        return read_codes(key)

    return read
