"""End to end: `referee serve` as a real subprocess over stdio."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from gitrepo import make_repo
from mcp import Client, StdioServerParameters

from referee.server.advertised import size

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


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


async def test_two_stdio_servers_share_a_team_store(
    repo: Path, tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REFEREE_KEY", "the team's key, a CI secret of 32+ chars")
    command, prefix = referee_command()
    other = make_repo(tmp_path / "elsewhere")

    def server(root: Path) -> StdioServerParameters:
        args = [*prefix, "--root", str(root), "--store", postgres_url, "serve"]
        return StdioServerParameters(command=command, args=args, cwd=str(root))

    async with Client(server(repo)) as alice:
        made = await alice.call_tool(
            "create_contract",
            {
                "goal": "Ship it",
                "out_of_scope": ["x"],
                "functional": [{"criterion": "works", "verification_method": "manual"}],
            },
        )
        assert made.is_error is False
        cid = made.structured_content["contract"]["id"]
    async with Client(server(other)) as bob:
        found = await bob.call_tool("get_contract", {"contract_id": cid})
        assert found.is_error is False, found.content
        assert cid in str(found.structured_content)
    assert not (repo / ".referee" / "referee.db").exists()  # the rows are the database's
