"""What an agent's context receives from referee: compact tool definitions and compact results.

An MCP client puts every tool definition into the model's context on every turn, and every
result it gets back: `tools/list` stays within 24 KB (input schemas and descriptions within
10 KB), each result's text is a short summary (at most 2 KiB), and its structured content fits
the result budget, even for a large evaluation.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp import Client
from projects import SAMPLE_ENV, calc_repo, command_check, pytest_check

from referee.server.advertised import size
from referee.server.app import build_server
from referee.server.summaries import TEXT_LIMIT
from referee.tools.settings import Settings

pytestmark = pytest.mark.anyio

TOOLS_LIST_LIMIT = 24 * 1024
INPUTS_LIMIT = 10 * 1024
RESULT_BUDGET = 16 * 1024


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return calc_repo(tmp_path / "calc")


@pytest.fixture(params=["auto", "legacy"])
async def agent(request: pytest.FixtureRequest, project: Path) -> AsyncIterator[Client]:
    async with Client(
        build_server(Settings.build([project], env=dict(SAMPLE_ENV))), mode=request.param
    ) as c:
        yield c


async def test_tools_list_fits_24_kb_and_its_inputs_and_descriptions_10_kb(agent: Client) -> None:
    listed = await agent.list_tools()
    whole = size(listed.model_dump(mode="json", by_alias=True, exclude_none=True))
    inputs = sum(
        size(t.input_schema) + len((t.description or "").encode("utf-8")) for t in listed.tools
    )
    assert whole <= TOOLS_LIST_LIMIT, whole
    assert inputs <= INPUTS_LIMIT, inputs


async def test_every_advertised_schema_is_valid_json_schema_and_an_object(agent: Client) -> None:
    for tool in (await agent.list_tools()).tools:
        for schema in (tool.input_schema, tool.output_schema):
            assert schema is not None and schema["type"] == "object", tool.name
            jsonschema.Draft202012Validator.check_schema(schema)
            assert "title" not in json.dumps(schema).replace('"title_contains"', ""), tool.name


async def test_contract_shapes_are_named_by_reference_not_inlined(agent: Client) -> None:
    tools = {t.name: t for t in (await agent.list_tools()).tools}
    create = tools["create_contract"].input_schema
    check = create["$defs"]["Check"]
    assert check["properties"]["kind"]["enum"] == ["tests", "command", "browser", "static"]
    assert "schema://contract" in check["description"]
    assert "BrowserCheck" not in create["$defs"] and "TestsCheck" not in create["$defs"]
    assert "schema://contract" in tools["get_contract"].output_schema["description"]
    evaluate = tools["evaluate"].output_schema
    assert "schema://draft-scorecard" in json.dumps(evaluate)
    # Output schemas keep their structure: every field, with its type, is still there.
    fields = evaluate["$defs"]["Evaluation"]["properties"]
    assert fields["criteria"]["items"] == {"$ref": "#/$defs/CriterionResult"}
    assert "prior_scorecard" in fields and "pin" in fields


async def test_optional_inputs_say_no_null_and_codes_name_their_table(agent: Client) -> None:
    tools = {t.name: t for t in (await agent.list_tools()).tools}
    evaluate = tools["evaluate"]
    # Left out is null: the advertised type is the value's own, and null is still accepted.
    assert evaluate.input_schema["properties"]["ref"]["type"] == "string"
    assert evaluate.input_schema["properties"]["iteration"]["type"] == "integer"
    code = evaluate.output_schema["$defs"]["CriterionResult"]["properties"]["reason_code"]
    assert code == {"type": ["string", "null"], "description": "codes://reason"}
    manual = {"criterion": "reads well", "verification_method": "manual", "evaluator": None}
    sent = {"goal": "Keep it.", "out_of_scope": ["ui"], "slug": None, "functional": [manual]}
    created = await agent.call_tool("create_contract", sent)
    assert created.is_error is False, created.content
    codes = await agent.read_resource("codes://reason")
    assert "harness_flip" in codes.contents[0].text  # type: ignore[union-attr]


async def test_a_loose_check_is_still_validated_fully_with_every_problem(agent: Client) -> None:
    result = await agent.call_tool(
        "create_contract",
        {
            "goal": "Keep it working.",
            "max_iterations": 9,
            "functional": [
                {
                    "criterion": "tests pass",
                    "verification_method": "test",
                    "check": {"kind": "tests", "argv": [], "timeout_s": -1},
                }
            ],
        },
    )
    assert result.is_error is True
    paths = {p["path"] for p in result.structured_content["problems"]}
    assert {"/max_iterations", "/functional/0/check/argv", "/functional/0/check/timeout_s"} <= paths


def _complete(draft: dict[str, Any]) -> dict[str, Any]:
    card = {k: v for k, v in draft.items() if k not in ("verdict", "weighted_score")}
    card["provider"], card["evaluator_model"] = "scripted", "judge-v1"
    for dim in card["dimensions"].values():
        if dim["score"] is None:
            dim["score"], dim["evidence"] = 1, "read src/ by hand"
    for criterion in card["criteria"]:
        if criterion["pass"] is None:
            criterion["pass"], criterion["evidence"] = True, "read src/ by hand"
    card["guidance"] = "Split the long files and resolve the TODOs."
    return card


def _large_project(project: Path) -> None:
    for i in range(60):
        (project / "src" / f"todo{i}.py").write_text(
            "".join(f"# TODO item {n} of file {i}\n" for n in range(8))
            + "def f():\n"
            + "".join(f"    a{n} = {n}\n" for n in range(60)),
            encoding="utf-8",
        )


@pytest.mark.slow
async def test_a_large_evaluation_gives_a_short_text_and_a_result_within_budget(
    agent: Client, project: Path
) -> None:
    _large_project(project)
    criteria = [
        {"criterion": "tests pass", "verification_method": "test", "check": pytest_check("tests")},
        *(
            {
                "criterion": f"command {n} exits 0",
                "verification_method": "test",
                "check": command_check(f"print('x' * 5000); raise SystemExit({n % 2})"),
            }
            for n in range(6)
        ),
        {"criterion": "reads well", "verification_method": "manual"},
    ]
    created = await agent.call_tool(
        "create_contract",
        {"goal": "Keep the calculator working.", "out_of_scope": ["ui"], "functional": criteria},
    )
    assert created.is_error is False and len(created.content[0].text) <= TEXT_LIMIT
    cid = created.structured_content["contract"]["id"]

    first = await agent.call_tool("evaluate", {"contract_id": cid})
    assert first.is_error is False, first.content
    text, ev = first.content[0].text, first.structured_content
    assert len(text.encode("utf-8")) <= TEXT_LIMIT
    assert size(ev) <= RESULT_BUDGET and ev["findings_total"] > len(ev["findings"])
    # The text is a summary, not a second copy: verdicts, what failed, the next step, URIs.
    assert "FAIL AC-F-003" in text and "validate_scorecard" in text
    assert f"report://{ev['run_id']}" in text and not text.lstrip().startswith("{")

    checked = await agent.call_tool(
        "validate_scorecard", {"scorecard": _complete(ev["draft_scorecard"])}
    )
    assert checked.structured_content["valid"] is True, checked.structured_content["errors"]
    assert len(checked.content[0].text) <= TEXT_LIMIT
    scorecard_id = checked.structured_content["scorecard_id"]
    assert f"scorecard://{scorecard_id}" in checked.content[0].text
    decided = await agent.call_tool("aggregate", {"contract_id": cid})
    assert decided.structured_content["decision"] == "REVISE"
    assert (
        len(decided.content[0].text) <= TEXT_LIMIT and "revision brief" in decided.content[0].text
    )

    (project / "src" / "todo0.py").unlink()
    second = await agent.call_tool("evaluate", {"contract_id": cid})
    ev2 = second.structured_content
    assert ev2["iteration"] == 2 and ev2["prior_scorecard"] == f"scorecard://{scorecard_id}"
    assert ev2["prior_scorecard"] in second.content[0].text
    assert size(ev2) <= RESULT_BUDGET and len(second.content[0].text.encode()) <= TEXT_LIMIT
    prior = json.loads((await agent.read_resource(ev2["prior_scorecard"])).contents[0].text)
    assert prior["id"] == int(scorecard_id) and prior["iteration"] == 1
    assert prior["scorecard"]["run_id"] == ev["run_id"]


async def test_an_unknown_scorecard_is_a_resource_error_naming_the_id(agent: Client) -> None:
    from mcp import MCPError

    with pytest.raises(MCPError, match="scorecard"):
        await agent.read_resource("scorecard://999")
    with pytest.raises(MCPError, match="numbers"):
        await agent.read_resource("scorecard://abc")
