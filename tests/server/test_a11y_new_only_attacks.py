"""A generator trying to get a new accessibility violation past `new_only`: each attempt of
a11y_base_attacks.py, through the MCP server on a real page. None may pass; one that does is a
strict xfail naming why."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from a11y_base_attacks import ATTACKS, Attack, serve_argv
from a11y_sites import a11y_site, new_only_contract, serve_block
from browsers import free_port, needs_browser
from mcp import Client
from mcp_calls import call

from referee.server.app import build_server
from referee.tools.settings import Settings

pytestmark = [pytest.mark.slow, pytest.mark.anyio, *needs_browser]


async def _attempt(attack: Attack, tmp_path: Path) -> dict[str, Any]:
    repo = a11y_site(tmp_path / "site", attack.files)
    if attack.before is not None:
        attack.before(repo)  # on disk outside git before the work begins
    port = free_port()
    contract = new_only_contract(
        port, attack.check, serve=serve_block(port, serve_argv(attack, port))
    )
    async with Client(build_server(Settings.build([repo], env=dict(os.environ)))) as agent:
        made = await call(agent, "create_contract", **contract)
        attack.change(repo)
        return await call(agent, "evaluate", contract_id=made["contract"]["id"])


@pytest.mark.parametrize(
    "attack",
    [
        pytest.param(
            a,
            id=a.name,
            marks=[pytest.mark.xfail(strict=True, reason=a.gets_through)] if a.gets_through else [],
        )
        for a in ATTACKS
    ],
)
async def test_a_new_violation_never_passes_as_one_the_base_had(
    attack: Attack, tmp_path: Path
) -> None:
    criterion = (await _attempt(attack, tmp_path))["criteria"][0]
    assert criterion["status"] == attack.refused, criterion["reason"]
    if attack.refused == "fail":
        assert "new violation at or above serious since base" in criterion["reason"]
    else:
        assert criterion["reason_code"] == "a11y_base_not_run"


async def test_an_edited_dependency_that_gets_through_is_reported(tmp_path: Path) -> None:
    attack = next(a for a in ATTACKS if a.name.startswith("an_installed_dependency_edited"))
    ev = await _attempt(attack, tmp_path)
    found = [a for a in ev["antipatterns"] if a["id"] == "environment_modified"]
    assert any("node_modules/tiny-static" in a["location"] for a in found), ev["antipatterns"]


def test_there_are_at_least_ten_attempts_and_each_gets_through_only_with_a_reason() -> None:
    assert len(ATTACKS) >= 10
    assert len({a.name for a in ATTACKS}) == len(ATTACKS)
