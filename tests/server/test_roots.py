"""Paths are confined to the client's roots when it offers them, else to --root."""

from __future__ import annotations

import os
from pathlib import Path

import mcp_types as types
import pytest
from gitrepo import make_repo
from mcp import Client
from projects import SAMPLE_ENV

from referee.server.app import build_server
from referee.tools.settings import Settings

pytestmark = pytest.mark.anyio
CRIT = [{"criterion": "x", "verification_method": "manual"}]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_client_roots_replace_the_server_root(tmp_path: Path, mode: str) -> None:
    server_root = make_repo(tmp_path / "server")
    client_root = make_repo(tmp_path / "client")

    async def roots(_: object) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=client_root.as_uri())])

    async with Client(
        build_server(Settings.build([server_root], env=dict(SAMPLE_ENV))),
        mode=mode,
        list_roots_callback=roots,
    ) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        assert "roots" not in tools["create_contract"].input_schema.get("properties", {})
        ok = await c.call_tool("create_contract", {"goal": "g", "functional": CRIT})
        assert ok.is_error is False and ok.structured_content["contract"]["repo"] == str(
            client_root
        )
        refused = await c.call_tool(
            "create_contract", {"goal": "g", "functional": CRIT, "repo": str(server_root)}
        )
        assert refused.is_error is True
        assert refused.structured_content["problems"][0]["code"] == "path_outside_roots"


async def test_dotdot_and_symlinks_out_of_the_root_are_refused(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "root")
    outside = make_repo(tmp_path / "outside")
    os.symlink(outside, root / "link")
    async with Client(build_server(Settings.build([root], env=dict(SAMPLE_ENV)))) as c:
        for path in ("../outside", str(root / "link"), "/etc"):
            result = await c.call_tool(
                "create_contract", {"goal": "g", "functional": CRIT, "repo": path}
            )
            assert result.is_error is True, path
            assert result.structured_content["problems"][0]["path"] == "/repo"
        inside = await c.call_tool(
            "create_contract", {"goal": "g", "functional": CRIT, "repo": "."}
        )
        assert inside.is_error is False
