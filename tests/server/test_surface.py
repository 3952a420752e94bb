"""The server advertises exactly its public surface: these tools, resources and prompts."""

from __future__ import annotations

import pytest
from mcp import Client

from referee.tools.models import CreateContractInput, EvaluateInput

pytestmark = pytest.mark.anyio

TOOLS = {
    "create_contract",
    "get_contract",
    "add_holdout_files",
    "evaluate",
    "validate_scorecard",
    "aggregate",
    "record_human_verdict",
    "calibration_report",
}
RESOURCE_TEMPLATES = {
    "rubric://{name}",
    "schema://{name}",
    "codes://{family}",
    "contract://{contract_id}",
    "contract://{contract_id}/generator",
    "evidence://{run_id}/{evidence_id}",
    "screenshot://{run_id}/{evidence_id}",
    "change://{run_id}",
    "report://{report_id}",
    "scorecard://{scorecard_id}",
}
PROMPTS = {"evaluator", "generator_brief"}


async def test_the_server_lists_exactly_its_tools_each_with_both_schemas(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.input_schema["type"] == "object" and tool.output_schema, tool.name
        assert tool.description and tool.annotations is not None, tool.name


async def test_resource_templates_and_prompts_are_exactly_the_published_ones(
    client: Client,
) -> None:
    templates = {
        t.uri_template for t in (await client.list_resource_templates()).resource_templates
    }
    assert templates == RESOURCE_TEMPLATES
    listed = {str(r.uri) for r in (await client.list_resources()).resources}
    assert "prompt://evaluator" in listed and "rubric://BUG_FIX" in listed
    assert {"codes://reason", "codes://input", "codes://validate"} <= listed
    assert {p.name for p in (await client.list_prompts()).prompts} == PROMPTS


async def test_a_tools_arguments_are_its_input_models_fields(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    for name, model in (("evaluate", EvaluateInput), ("create_contract", CreateContractInput)):
        schema = tools[name].input_schema
        assert set(schema["properties"]) == set(model.model_fields), name
        required = {k for k, f in model.model_fields.items() if f.is_required()}
        assert set(schema.get("required", [])) == required, name
        for key, field in model.model_fields.items():
            assert schema["properties"][key].get("description") == field.description, (name, key)
