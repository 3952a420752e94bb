"""End to end: `referee serve` as a real subprocess over stdio."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from referee.server.advertised import size

pytestmark = pytest.mark.anyio


def referee_command() -> tuple[str, list[str]]:
    exe = shutil.which("referee", path=str(Path(sys.executable).parent))
    return (exe, []) if exe else (sys.executable, ["-m", "referee.server.cli"])


async def test_stdio_server_lists_tools_and_creates_a_contract(repo: Path) -> None:
    command, prefix = referee_command()
    params = StdioServerParameters(
        command=command, args=[*prefix, "--root", str(repo), "serve"], cwd=str(repo)
    )
    async with Client(params) as client:
        listed = await client.list_tools()
        tools = {t.name: t for t in listed.tools}
        assert tools["create_contract"].output_schema
        # What an agent's context pays for the definitions, over a real pipe (tests/server/
        # test_compact.py pins the same in both protocol eras).
        assert size(listed.model_dump(mode="json", by_alias=True, exclude_none=True)) <= 24 * 1024
        result = await client.call_tool(
            "create_contract",
            {
                "goal": "Ship it",
                "out_of_scope": ["x"],
                "functional": [{"criterion": "works", "verification_method": "manual"}],
            },
        )
        assert result.is_error is False
        assert result.structured_content["contract"]["id"].startswith("SC-ship-it-")
        assert result.content[0].text.startswith("created SC-ship-it-")
    assert (repo / ".referee" / "referee.db").exists()
    ignored = (repo / ".referee" / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "*" in ignored and "!scorecards/**" in ignored
