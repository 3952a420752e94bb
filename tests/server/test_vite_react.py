"""The TodoMVC contract of test_vite_app.py on a React 19 app (tests/reactapp.py), on a real
Vite dev server: clean it passes over MCP and on the CLI; with a generator's bug, the checks that
need a todo fail, naming the step or expectation, and the one that needs none still passes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from browsers import free_port, needs_browser
from mcp import Client
from reactapp import BREAK_ADD, NO_REACT, react_app
from viteapp import NO_VITE, main_js, serve_block, todomvc_checks

from referee.server.app import build_server
from referee.server.cli import main
from referee.tools.settings import Settings

pytestmark = [
    pytest.mark.slow,
    pytest.mark.anyio,
    *needs_browser,
    pytest.mark.skipif(NO_VITE is not None, reason=str(NO_VITE)),
    pytest.mark.skipif(NO_REACT is not None, reason=str(NO_REACT)),
]


def _contract() -> dict[str, object]:
    return {
        "goal": "A todo list that works like TodoMVC, in React.",
        "has_ui": True,
        "out_of_scope": ["routing"],
        "serve": serve_block(free_port()),
        "browser_setup": [{"action": "goto", "url": "/"}],
        "functional": todomvc_checks(),
    }


async def test_the_react_app_passes_clean_and_its_broken_add_fails_over_mcp(tmp_path: Path) -> None:
    app = react_app(tmp_path / "react-todo")
    async with Client(build_server(Settings.build([app], env=dict(os.environ)))) as agent:
        created = await agent.call_tool("create_contract", _contract())
        assert created.is_error is False, created.content
        cid = created.structured_content["contract"]["id"]
        clean = (await agent.call_tool("evaluate", {"contract_id": cid})).structured_content
        assert [c["status"] for c in clean["criteria"]] == ["pass"] * 6, [
            c["reason"] for c in clean["criteria"]
        ]
        code = main_js(app)
        (app / "src" / "main.js").write_text(code.replace(*BREAK_ADD), encoding="utf-8")
        broken = (await agent.call_tool("evaluate", {"contract_id": cid})).structured_content
    assert [c["status"] for c in broken["criteria"]] == ["fail"] * 5 + ["pass"]
    assert broken["criteria"][0]["reason"].startswith(
        "expectation 1 (count .todo-list li) failed: 0 elements match .todo-list li"
    )
    # The third check's step needs the todo React never added: the step says so, the check ends.
    third = broken["criteria"][2]["reason"]
    assert third.startswith("step 3 (check .todo-list .toggle) failed: Locator.check: Timeout")


def test_the_cli_passes_the_react_app(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    app = react_app(tmp_path / "react-todo")
    contract = {**_contract(), "functional": todomvc_checks()[:3]}
    source = tmp_path / "contract.yaml"
    source.write_text(yaml.safe_dump(contract), encoding="utf-8")
    assert main(["--root", str(app), "contract", "create", str(source)]) == 0
    cid = capsys.readouterr().out.split()[1]
    assert main(["--root", str(app), "evaluate", cid, "--json"]) == 0
    criteria = json.loads(capsys.readouterr().out)["criteria"]
    assert [c["status"] for c in criteria] == ["pass"] * 3, [c["reason"] for c in criteria]
