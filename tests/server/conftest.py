from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from mcp import Client

from referee.server.app import build_server
from referee.tools.settings import Settings


@pytest.fixture(params=["auto", "legacy"])
async def client(request: pytest.FixtureRequest, settings: Settings) -> AsyncIterator[Client]:
    """The real server in-process, in both protocol eras (2026-07-28 and the 2025-11-25
    handshake)."""
    async with Client(build_server(settings), mode=request.param) as c:
        yield c
