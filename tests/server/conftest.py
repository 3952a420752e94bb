from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from judges import change_repo
from mcp import Client
from projects import SAMPLE_ENV

from referee.server.app import build_server
from referee.tools.settings import Settings


@pytest.fixture(params=["auto", "legacy"])
async def client(request: pytest.FixtureRequest, settings: Settings) -> AsyncIterator[Client]:
    """The real server in-process, in both protocol eras (2026-07-28 and the 2025-11-25
    handshake)."""
    async with Client(build_server(settings), mode=request.param) as c:
        yield c


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The sample project with judges.CHANGE as its uncommitted change (canaries plant in it); a
    module that needs another project defines its own `project`, and `agent` serves that one."""
    return change_repo(tmp_path / "calc")


@pytest.fixture
def checks_env() -> dict[str, str]:
    """The environment `agent`'s server gives its checks; a module whose checks need more (cargo
    where it installs) overrides this."""
    return dict(SAMPLE_ENV)


@pytest.fixture
async def agent(project: Path, checks_env: dict[str, str]) -> AsyncIterator[Client]:
    """An MCP client of the real server whose only root is `project`, its checks given
    `checks_env` (served canaries answer at once: pacing is tested on its own)."""
    settings = replace(Settings.build([project], env=checks_env), pace_canaries=False)
    async with Client(build_server(settings)) as client:
        yield client
