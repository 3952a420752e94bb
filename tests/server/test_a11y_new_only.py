"""`a11y` with `new_only` through referee's interfaces, on a real page in a real Chromium: the
check also runs on the base commit's app, served at the same URL, and only the violations the
base did not have count. A known debt (an unlabelled input) does not block a change; a new
violation (a button with no name) does, named alone; a base that cannot be run leaves the
criterion unscored, never passed."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from a11y_sites import (
    DEBT,
    LABELLED,
    NEW_BUTTON,
    a11y_site,
    change_page,
    new_only_check,
    new_only_contract,
    serve_block,
    signup,
)
from browsers import free_port, needs_browser
from mcp import Client
from mcp_calls import call
from viteapp import NO_VITE, add, main_js, vite_app
from viteapp import serve_block as vite_serve

from referee.server.app import build_server
from referee.server.cli import main
from referee.tools.settings import Settings

pytestmark = [pytest.mark.slow, pytest.mark.anyio, *needs_browser]


def _settings(repo: Path) -> Settings:
    return Settings.build([repo], env=dict(os.environ))


async def _evidence(agent: Client, run_id: str, ident: str) -> dict[str, Any]:
    found = await agent.read_resource(f"evidence://{run_id}/{ident}")
    data: dict[str, Any] = json.loads(found.contents[0].text)
    return data


async def test_a_known_debt_does_not_block_a_change_a_new_violation_does_named_alone(
    tmp_path: Path,
) -> None:
    repo = a11y_site(tmp_path / "site")
    async with Client(build_server(_settings(repo))) as agent:
        made = await call(agent, "create_contract", **new_only_contract(free_port()))
        cid = made["contract"]["id"]
        # The change adds an icon button with no name next to the known debt.
        change_page(repo, DEBT + NEW_BUTTON)
        added = await call(agent, "evaluate", contract_id=cid)
        failed = added["criteria"][0]
        assert failed["status"] == "fail", failed
        assert failed["reason_code"] == "expectation_failed"
        reason = failed["reason"]
        assert "1 new violation at or above serious since base, on 1 node (max 0)" in reason
        assert "button-name (critical, 1 new node: button)" in reason
        assert "the base already had 1 violation on 1 node (label)" in reason
        assert "label (" not in reason  # the known debt is said, never counted as new
        # The base run is evidence of its own: the base commit's page, its debt, no button.
        now, _serve, base, base_serve = failed["evidence_ids"]
        seen = await _evidence(agent, added["run_id"], base)
        assert seen["details"]["at_base"] is True and "(the base commit's app)" in seen["command"]
        assert "a11y: label [critical]" in seen["stdout"] and "button-name" not in seen["stdout"]
        served = await _evidence(agent, added["run_id"], base_serve)
        assert served["summary"].startswith("served the base commit's app at")
        assert served["details"]["network"] == "private"
        assert (await _evidence(agent, added["run_id"], now))["details"]["a11y_new"][0]["id"] == (
            "button-name"
        )
        # A change that adds nothing inaccessible passes, although the debt remains.
        change_page(repo, DEBT + '<button type="submit">Sign up</button>')
        kept = (await call(agent, "evaluate", contract_id=cid))["criteria"][0]
        assert kept["status"] == "pass", kept
        assert "no new violation at or above serious since base (max 0)" in kept["reason"]
        assert (
            "the base already had 1 violation on 1 node (label), 1 of its nodes" in (kept["reason"])
        )
        # A change that pays the debt off passes too, and says so.
        change_page(repo, LABELLED + DEBT)
        paid = (await call(agent, "evaluate", contract_id=cid))["criteria"][0]
        assert paid["status"] == "pass", paid
        assert "(label), none still here" in paid["reason"]


def test_the_cli_fails_a_new_violation_and_passes_the_known_debt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = a11y_site(tmp_path / "site")
    source = tmp_path / "contract.yaml"
    source.write_text(yaml.safe_dump(new_only_contract(free_port())), encoding="utf-8")
    home = ["--root", str(repo)]
    assert main([*home, "contract", "create", str(source)]) == 0
    cid = capsys.readouterr().out.split()[1]
    change_page(repo, DEBT + NEW_BUTTON)
    assert main([*home, "evaluate", cid]) == 1
    shown = capsys.readouterr().out
    assert "button-name (critical, 1 new node: button)" in shown
    assert "the base already had 1 violation on 1 node (label)" in shown
    change_page(repo, DEBT + "<p>Welcome.</p>")
    assert main([*home, "evaluate", cid, "--json"]) == 0
    [criterion] = json.loads(capsys.readouterr().out)["criteria"]
    assert criterion["status"] == "pass" and "no new violation" in criterion["reason"]


async def _judged(
    repo: Path, contract: dict[str, Any], change: Any = None, **evaluate: Any
) -> dict[str, Any]:
    async with Client(build_server(_settings(repo))) as agent:
        made = await call(agent, "create_contract", **contract)
        if change is not None:
            change(repo)
        ev = await call(agent, "evaluate", contract_id=made["contract"]["id"], **evaluate)
    criterion: dict[str, Any] = ev["criteria"][0]
    return criterion


async def test_a_page_the_base_does_not_have_is_unscored_unless_none_of_it_can_be_new(
    tmp_path: Path,
) -> None:
    repo = a11y_site(tmp_path / "site")
    contract = new_only_contract(free_port(), new_only_check("/new.html"))

    def new_page(markup: str) -> Any:
        return lambda root: (root / "web" / "new.html").write_text(markup, encoding="utf-8")

    shown = await _judged(repo, contract, new_page(signup(DEBT + NEW_BUTTON)))
    assert shown["status"] == "unscored" and shown["pass"] is False, shown
    assert shown["reason_code"] == "a11y_base_not_run"
    assert "here, 2 violations at or above serious: " in shown["reason"]
    assert "/new.html answered 404" in shown["reason"]
    clean = await _judged(
        a11y_site(tmp_path / "clean"), contract, new_page(signup(LABELLED + DEBT))
    )
    assert clean["status"] == "pass", clean
    assert "so none can be new; not compared with the base" in clean["reason"]


async def test_an_app_that_cannot_be_served_at_base_leaves_the_criterion_unscored(
    tmp_path: Path,
) -> None:
    # The change adds the server the contract's serve runs: the base commit has none.
    port = free_port()
    server = "import http.server, sys\nhttp.server.test(http.server.SimpleHTTPRequestHandler,"
    server += f" port={port}, bind='127.0.0.1')\n"
    contract = new_only_contract(port, serve=serve_block(port, [sys.executable, "serve.py"]))
    repo = a11y_site(tmp_path / "site")

    def add_server(root: Path) -> None:
        (root / "serve.py").write_text(server, encoding="utf-8")
        change_page(root, DEBT + NEW_BUTTON)
        shutil.copyfile(root / "web" / "index.html", root / "index.html")

    shown = await _judged(repo, contract, add_server)
    assert shown["status"] == "unscored" and shown["reason_code"] == "a11y_base_not_run", shown
    assert "the base commit's app never became ready" in shown["reason"]


async def test_without_a_base_commit_new_only_is_unscored_with_no_base(tmp_path: Path) -> None:
    folder = tmp_path / "site"
    (folder / "web").mkdir(parents=True)
    (folder / "web" / "index.html").write_text(signup(DEBT + NEW_BUTTON), encoding="utf-8")
    shown = await _judged(folder, new_only_contract(free_port()))
    assert shown["status"] == "unscored" and shown["reason_code"] == "no_base", shown
    assert "the contract has no base commit to compare with" in shown["reason"]


async def test_an_ignored_file_from_before_the_contract_is_the_bases_too(tmp_path: Path) -> None:
    # A local configuration the page loads, ignored by git and there before the work began (as
    # a developer's .env is): the base run sees it as the evaluated run does.
    script = "document.body.insertAdjacentHTML('beforeend', '<button id=\"help\"></button>');"
    repo = a11y_site(
        tmp_path / "site",
        {".gitignore": "__pycache__/\nweb/local.js\n", "web/index.html": signup(DEBT, _LOCAL)},
    )
    (repo / "web" / "local.js").write_text(script, encoding="utf-8")
    shown = await _judged(
        repo, new_only_contract(free_port()), lambda r: change_page(r, DEBT, _LOCAL)
    )
    assert shown["status"] == "pass", shown
    assert "the base already had 2 violations on 2 nodes (button-name, label)" in shown["reason"]


_LOCAL = '<script src="local.js"></script>'


@pytest.mark.skipif(NO_VITE is not None, reason=str(NO_VITE))
async def test_a_vite_dev_server_is_started_over_the_base_commit_too(tmp_path: Path) -> None:
    app = vite_app(tmp_path / "todos")
    check = {
        "kind": "browser",
        "url": "/",
        "steps": add("walk the dog", "buy milk"),
        "expect": [
            {"type": "count", "selector": ".todo-list li", "equals": 2},
            {"type": "a11y", "new_only": True, "include": [".todo-list"]},
        ],
    }
    contract = new_only_contract(0, check, serve=vite_serve(free_port()))
    pinned = main_js(app).replace(
        '<button class="destroy"', '<button class="pin"></button><button class="destroy"'
    )

    def pin(root: Path) -> None:
        (root / "src" / "main.js").write_text(pinned, encoding="utf-8")

    shown = await _judged(app, contract, pin)
    assert shown["status"] == "fail", shown
    assert "button-name (critical, 2 new nodes:" in shown["reason"]
    assert "the base had none" in shown["reason"]


async def test_without_a_private_network_for_the_base_app_new_only_is_unscored(
    tmp_path: Path,
) -> None:
    # In place (no sandbox), the evaluated app holds the URL's port on this machine's network.
    repo = a11y_site(tmp_path / "site")
    shown = await _judged(repo, new_only_contract(free_port()), _add_button, isolation="inplace")
    assert shown["status"] == "unscored" and shown["reason_code"] == "a11y_base_not_run", shown
    assert "needs a private network of its own" in shown["reason"]
    assert "button-name (critical, 1 node: button)" in shown["reason"]


def _add_button(repo: Path) -> None:
    change_page(repo, DEBT + NEW_BUTTON)
