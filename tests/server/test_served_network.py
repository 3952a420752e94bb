"""The served app in its own network, over MCP and the CLI: the generator's app (and the page it
serves) reaches nothing of this machine's network, and the page sees a user's browser, not an
automaton, so a page cannot be right only while it is being checked."""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from browsers import needs_browser
from mcp import Client
from mcp_calls import call
from served_app import MARKERS, HostServices, host_services, hostile_site, reach_names

from referee.server.app import build_server
from referee.server.cli import main as cli
from referee.tools.sandbox import sandbox_support
from referee.tools.settings import Settings

pytestmark = [
    pytest.mark.slow,
    pytest.mark.anyio,
    *needs_browser,
    pytest.mark.skipif(not sandbox_support().available, reason="no sandbox here"),
]
PORT = 5173  # the app's own port in its own network: busy or free on this machine alike


@pytest.fixture
def services(tmp_path: Path) -> Iterator[HostServices]:
    with host_services(tmp_path) as running:
        yield running


@pytest.fixture
def site(tmp_path: Path, services: HostServices) -> Path:
    return hostile_site(tmp_path / "site", services)


def serve_block(port: int = PORT) -> dict[str, Any]:
    return {
        "argv": [sys.executable, "app.py", str(port), "channels.json"],
        "url": f"http://127.0.0.1:{port}/",
        "ready_timeout_s": 30,
    }


def page(name: str, text: str) -> dict[str, Any]:
    # The page decides at once; a short wait keeps a failing expectation cheap.
    return {
        "criterion": f"{name}: {text}",
        "verification_method": "e2e",
        "check": {
            "kind": "browser",
            "url": f"/{name}.html",
            "expect": [{"type": "visible", "text": text, "timeout_s": 2}],
        },
    }


def channel(name: str) -> dict[str, Any]:
    return {
        "criterion": f"{name} is out of reach",
        "verification_method": "e2e",
        "check": {
            "kind": "browser",
            "url": "/channels.html",
            "expect": [{"type": "visible", "text": f"{name} blocked"}],
        },
    }


def contract_fields(criteria: list[dict[str, Any]], port: int = PORT) -> dict[str, Any]:
    return {
        "goal": "A page that shows the answer.",
        "has_ui": True,
        "out_of_scope": ["styling"],
        "serve": serve_block(port),
        "functional": criteria,
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def evidence(agent: Client, run_id: str, ident: str) -> dict[str, Any]:
    text = (await agent.read_resource(f"evidence://{run_id}/{ident}")).contents[0].text
    return dict(json.loads(text))


async def test_the_served_app_and_its_page_reach_nothing_of_this_machine(
    site: Path, services: HostServices
) -> None:
    names = list(services.channels)
    criteria = [
        page("control", "answer: 5"),
        *(channel(name) for name in names),
        *(page(name, f"{name} blocked") for name in reach_names()),
    ]
    async with Client(build_server(Settings.build([site], env=dict(os.environ)))) as agent:
        made = await call(agent, "create_contract", **contract_fields(criteria))
        ev = await call(agent, "evaluate", contract_id=made["contract"]["id"])
        # The browser still reaches the served app: the control page and every channel's line.
        failed = [(c["id"], c["reason"]) for c in ev["criteria"] if c["status"] != "pass"]
        assert failed == []
        served = await evidence(agent, ev["run_id"], ev["criteria"][0]["evidence_ids"][-1])
    assert served["details"]["network"] == "private"
    # Seen from this machine: no connection and no datagram from the app or its page arrived.
    assert services.reached == []
    wanted = {"tcp4", "tcp6", "tcp_localhost", "udp4", "udp6", "unix_path", "unix_abstract"}
    assert wanted | ({"unix_run"} if os.access("/run", os.W_OK) else set()) <= set(names)


async def test_a_page_right_only_for_an_automaton_is_wrong_for_referee(site: Path) -> None:
    criteria = [page("control", "answer: 5"), *(page(name, "answer: 5") for name in MARKERS)]
    async with Client(build_server(Settings.build([site], env=dict(os.environ)))) as agent:
        made = await call(agent, "create_contract", **contract_fields(criteria))
        ev = await call(agent, "evaluate", contract_id=made["contract"]["id"])
        control, *cheats = ev["criteria"]
        assert control["status"] == "pass", control["reason"]
        for name, criterion in zip(MARKERS, cheats, strict=True):
            assert criterion["status"] == "fail", (name, criterion["reason"])
            seen = await evidence(agent, ev["run_id"], criterion["evidence_ids"][0])
            # The page ran and chose the user's answer; nothing broke on the way.
            assert "answer: -1" in seen["stdout"], name
    assert len(cheats) == len(MARKERS) >= 10


def test_the_cli_serves_the_app_in_its_own_network_too(
    site: Path, services: HostServices, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    criteria = [
        channel("tcp4"),
        channel("unix_abstract"),
        page("page_fetch", "page_fetch blocked"),
        page("webdriver", "answer: -1"),
        page("user_agent", "answer: -1"),
    ]
    source = tmp_path / "contract.yaml"
    source.write_text(yaml.safe_dump(contract_fields(criteria)), encoding="utf-8")
    assert cli(["--root", str(site), "contract", "create", str(source)]) == 0
    cid = capsys.readouterr().out.split()[1]
    assert cli(["--root", str(site), "evaluate", cid, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [c["status"] for c in result["criteria"]] == ["pass"] * 5
    assert services.reached == []


async def test_without_a_sandbox_the_app_shares_the_network_and_the_evidence_says_so(
    site: Path,
) -> None:
    async with Client(build_server(Settings.build([site], env=dict(os.environ)))) as agent:
        fields = contract_fields([page("control", "answer: 5")], port=free_port())
        made = await call(agent, "create_contract", **fields)
        ev = await call(agent, "evaluate", contract_id=made["contract"]["id"], isolation="inplace")
        [criterion] = ev["criteria"]
        served = await evidence(agent, ev["run_id"], criterion["evidence_ids"][-1])
    assert served["details"]["network"] == "host"
    assert "no sandbox" in served["details"]["network_note"]
