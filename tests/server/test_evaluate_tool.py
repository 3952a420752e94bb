"""evaluate over MCP: an agent creates a contract, evaluates, and follows the evidence ids."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client
from projects import SAMPLE_ENV, calc_repo, command_check, pytest_check

from referee.server.app import build_server
from referee.tools.settings import Settings

pytestmark = pytest.mark.anyio


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return calc_repo(tmp_path / "calc")


@pytest.fixture(params=["auto", "legacy"])
async def agent(request: pytest.FixtureRequest, project: Path) -> AsyncIterator[Client]:
    async with Client(
        build_server(Settings.build([project], env=dict(SAMPLE_ENV))), mode=request.param
    ) as c:
        yield c


async def create(agent: Client, *criteria: dict) -> str:
    result = await agent.call_tool(
        "create_contract",
        {
            "goal": "Keep the calculator working.",
            "out_of_scope": ["ui"],
            "functional": list(criteria),
        },
    )
    assert result.is_error is False, result.content
    return result.structured_content["contract"]["id"]


async def test_evaluate_returns_verdicts_with_resolvable_evidence(
    agent: Client, project: Path
) -> None:
    (project / "src" / "big.py").write_text(
        "def f():\n" + "\n".join(f"    a{i} = {i}" for i in range(55)) + "\n", encoding="utf-8"
    )
    cid = await create(
        agent,
        {"criterion": "tests pass", "verification_method": "test", "check": pytest_check("tests")},
        {
            "criterion": "fails",
            "verification_method": "test",
            "check": command_check("raise SystemExit(3)"),
        },
        {"criterion": "reads well", "verification_method": "manual"},
    )
    seen: list[float] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append(done)

    result = await agent.call_tool("evaluate", {"contract_id": cid}, progress_callback=progress)
    assert result.is_error is False, result.content
    ev = result.structured_content
    status = {c["id"]: (c["pass"], c["status"]) for c in ev["criteria"]}
    assert status == {
        "AC-F-001": (True, "pass"),
        "AC-F-002": (False, "fail"),
        "AC-F-003": (None, "unscored"),
    }
    assert seen and max(seen) == 5
    for criterion in ev["criteria"][:2]:
        for eid in criterion["evidence_ids"]:
            item = json.loads(
                (await agent.read_resource(f"evidence://{ev['run_id']}/{eid}")).contents[0].text
            )
            assert item["id"] == eid and item["run_id"] == ev["run_id"]
    assert any(
        f["rule"] == "function_length" and f["location"] == "src/big.py:1" for f in ev["findings"]
    )
    draft = ev["draft_scorecard"]
    assert draft["contract_ref"] == cid and draft["run_id"] == ev["run_id"] and draft["signature"]
    assert ev["needs_judgment"]["criteria"] == ["AC-F-003"]
    assert len(json.dumps(ev)) <= 16 * 1024


async def test_evaluate_of_an_unknown_contract_is_a_tool_error(agent: Client) -> None:
    result = await agent.call_tool("evaluate", {"contract_id": "SC-ghost-20260101"})
    assert result.is_error is True and "SC-ghost-20260101" in result.content[0].text


async def test_evaluate_rejects_bad_arguments_with_pointers(agent: Client) -> None:
    result = await agent.call_tool(
        "evaluate", {"contract_id": "x", "scope": "galaxy", "iteration": 0}
    )
    assert result.is_error is True
    paths = {p["path"] for p in result.structured_content["problems"]}
    assert {"/scope", "/iteration"} <= paths


async def test_unknown_evidence_is_a_resource_error(agent: Client) -> None:
    from mcp import MCPError

    with pytest.raises(MCPError):
        await agent.read_resource("evidence://R1/E1")
