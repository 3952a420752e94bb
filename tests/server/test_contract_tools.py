from __future__ import annotations

import json

import pytest
from mcp import Client, MCPError

pytestmark = pytest.mark.anyio

TESTS = {"kind": "tests", "argv": ["python", "-m", "pytest", "-q"]}


async def test_server_lists_contract_tools_with_output_schemas(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert {"create_contract", "get_contract"} <= set(tools)
    for name in ("create_contract", "get_contract"):
        assert tools[name].output_schema and tools[name].input_schema["type"] == "object"
    assert tools["get_contract"].annotations.read_only_hint is True
    assert tools["create_contract"].annotations.destructive_hint is False


async def test_create_contract_with_a_holdout_and_read_the_generator_view(client: Client) -> None:
    result = await client.call_tool(
        "create_contract",
        {
            "goal": "Fix rounding in invoice totals.",
            "task_type": "bug",
            "has_ui": False,
            "out_of_scope": ["currency conversion"],
            "functional": [
                {
                    "criterion": "Totals are rounded half-up",
                    "verification_method": "test",
                    "check": TESTS,
                },
                {
                    "criterion": "Negative credit notes keep their sign",
                    "verification_method": "test",
                    "check": TESTS,
                    "holdout": True,
                },
            ],
        },
    )
    assert result.is_error is False, result.content
    data = result.structured_content
    cid = data["contract"]["id"]
    holdout = next(c for c in data["contract"]["acceptance_criteria"]["functional"] if c["holdout"])
    assert data["contract"]["rubric_ref"] == "BUG_FIX"
    view = await client.call_tool("get_contract", {"contract_id": cid, "view": "generator"})
    text = json.dumps(view.structured_content)
    assert holdout["id"] not in text and "Negative credit notes" not in text
    full = await client.call_tool("get_contract", {"contract_id": cid, "view": "evaluator"})
    assert holdout["id"] in json.dumps(full.structured_content)
    resource = await client.read_resource(f"contract://{cid}/generator")
    assert holdout["id"] not in resource.contents[0].text
    resource = await client.read_resource(f"contract://{cid}")
    assert holdout["id"] in resource.contents[0].text


async def test_a_contract_with_several_mistakes_lists_them_all(client: Client) -> None:
    result = await client.call_tool(
        "create_contract",
        {
            "goal": "g",
            "task_type": "chore",
            "max_iterations": 7,
            "evaluators": ["a", "b", "c", "d", "e"],
            "functional": [
                {"criterion": "x", "verification_method": "test", "evaluator": "a"},
                {"criterion": "y", "verification_method": "manual", "evaluator": "nobody"},
            ],
        },
    )
    assert result.is_error is True
    payload = json.loads(result.content[0].text)
    pointers = {p["path"] for p in payload["problems"]}
    assert {
        "/task_type",
        "/max_iterations",
        "/evaluators",
        "/functional/0/check",
        "/functional/1/evaluator",
    } <= pointers
    assert all(p["code"] and p["message"] for p in payload["problems"])


async def test_semantic_mistakes_alone_are_listed_too(client: Client) -> None:
    result = await client.call_tool(
        "create_contract",
        {
            "goal": "g",
            "functional": [{"criterion": "x", "verification_method": "e2e"}],
            "rubric_ref": "NOPE",
        },
    )
    assert result.is_error is True
    codes = {p["code"] for p in result.structured_content["problems"]}
    assert codes == {"check_required", "unknown_rubric"}


async def test_unknown_contract_is_a_tool_error_naming_the_id(client: Client) -> None:
    result = await client.call_tool("get_contract", {"contract_id": "SC-nope-20260101"})
    assert result.is_error is True and "SC-nope-20260101" in result.content[0].text


async def test_rubric_and_schema_resources_are_served(client: Client) -> None:
    rubric = json.loads((await client.read_resource("rubric://FEATURE_UI")).contents[0].text)
    assert abs(sum(d["weight"] for d in rubric["dimensions"]) - 1.0) < 1e-6
    schema = json.loads((await client.read_resource("schema://scorecard")).contents[0].text)
    assert "dispatch_count" in schema["required"]
    listed = {str(r.uri) for r in (await client.list_resources()).resources}
    assert "rubric://BUG_FIX" in listed and "schema://tenpoint-scorecard" in listed


async def test_unknown_resource_is_a_protocol_error(client: Client) -> None:
    with pytest.raises(MCPError):
        await client.read_resource("rubric://NOPE")


async def test_evaluator_prompt_carries_the_contract(client: Client) -> None:
    created = await client.call_tool(
        "create_contract",
        {
            "goal": "g",
            "out_of_scope": ["x"],
            "functional": [{"criterion": "c", "verification_method": "manual"}],
        },
    )
    cid = created.structured_content["contract"]["id"]
    prompt = await client.get_prompt("evaluator", {"contract_id": cid})
    assert (
        cid in prompt.messages[0].content.text
        and "distrust" in prompt.messages[0].content.text.lower()
    )


async def test_the_prompt_uri_evaluate_returns_resolves(client: Client) -> None:
    text = (await client.read_resource("prompt://evaluator")).contents[0].text
    assert "read-only" in text and "Prompt version: sha256:" in text
