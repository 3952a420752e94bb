"""Browser grounding over MCP: the contract's app is served, Chromium clicks through it, nothing is
left running."""

from __future__ import annotations

import base64
import json
import os
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from browsers import free_port, needs_browser
from gitrepo import make_repo
from mcp import Client
from mcp_calls import call
from runs import judged

from referee.server.app import build_server
from referee.tools.settings import Settings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "browser"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.anyio,
    *needs_browser,
]


@pytest.fixture
def site(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "site", {"README.md": "# site\n", ".gitignore": "__pycache__/\n"})
    (repo / "web").mkdir()
    for name in ("button.html", "throws.html", "broken-fetch.html"):
        shutil.copyfile(FIXTURES / name, repo / "web" / name)
    return repo


@pytest.fixture
async def agent(site: Path) -> AsyncIterator[Client]:
    async with Client(build_server(Settings.build([site], env=dict(os.environ)))) as c:
        yield c


def _server_pids(port: int) -> list[int]:
    needle = f"http.server{chr(0)}{port}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if needle in Path(f"/proc/{entry}/cmdline").read_bytes():
                    found.append(int(entry))
            except OSError:
                pass
    return found


async def test_served_app_is_clicked_through_and_broken_pages_fail(agent: Client) -> None:
    port = free_port()
    created = await agent.call_tool(
        "create_contract",
        {
            "goal": "A page with a working button.",
            "task_type": "feature",
            "has_ui": True,
            "out_of_scope": ["styling"],
            "serve": {
                "argv": [
                    sys.executable,
                    "-m",
                    "http.server",
                    str(port),
                    "--bind",
                    "127.0.0.1",
                    "--directory",
                    "web",
                ],
                "url": f"http://127.0.0.1:{port}/",
            },
            "functional": [
                {
                    "criterion": "the button says Clicked",
                    "verification_method": "e2e",
                    "check": {
                        "kind": "browser",
                        "url": "/button.html",
                        "steps": [{"action": "click", "selector": "#go"}],
                        "expect": [
                            {"type": "visible", "text": "Clicked"},
                            {"type": "no_console_errors"},
                            {"type": "no_failed_requests"},
                            {"type": "title_contains", "value": "Button"},
                        ],
                    },
                },
                {
                    "criterion": "no script errors",
                    "verification_method": "e2e",
                    "check": {
                        "kind": "browser",
                        "url": "/throws.html",
                        "expect": [{"type": "no_console_errors"}],
                    },
                },
                {
                    "criterion": "no failed requests",
                    "verification_method": "e2e",
                    "check": {
                        "kind": "browser",
                        "url": "/broken-fetch.html",
                        "expect": [{"type": "no_failed_requests"}],
                    },
                },
            ],
        },
    )
    assert created.is_error is False, created.content
    cid = created.structured_content["contract"]["id"]
    result = await agent.call_tool("evaluate", {"contract_id": cid})
    assert result.is_error is False, result.content
    ev = result.structured_content
    status = {c["id"]: c["status"] for c in ev["criteria"]}
    assert status == {"AC-F-001": "pass", "AC-F-002": "fail", "AC-F-003": "fail"}
    first = ev["criteria"][0]["evidence_ids"][0]
    item = json.loads(
        (await agent.read_resource(f"evidence://{ev['run_id']}/{first}")).contents[0].text
    )
    shots = [a for a in item["artifacts"] if a.endswith(".png")]
    assert shots and Path(shots[0]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "button" in item["stdout"].lower()  # the ARIA snapshot is part of the evidence
    shot = (await agent.read_resource(f"screenshot://{ev['run_id']}/{first}")).contents[0]
    assert shot.mime_type == "image/png" and base64.b64decode(shot.blob)[:4] == b"\x89PNG"
    assert ev["dimensions"]["ux_quality"]["source"] == "deterministic"
    assert _server_pids(port) == []


async def test_a_server_that_never_gets_ready_leaves_browser_criteria_unscored(
    agent: Client,
) -> None:
    port = free_port()
    created = await agent.call_tool(
        "create_contract",
        {
            "goal": "g",
            "has_ui": True,
            "out_of_scope": ["x"],
            "serve": {
                "argv": [
                    sys.executable,
                    "-c",
                    "import sys; print('boom', file=sys.stderr); sys.exit(3)",
                ],
                "url": f"http://127.0.0.1:{port}/",
                "ready_timeout_s": 5,
            },
            "functional": [
                {
                    "criterion": "page",
                    "verification_method": "e2e",
                    "check": {
                        "kind": "browser",
                        "url": "/button.html",
                        "expect": [{"type": "visible", "text": "Go"}],
                    },
                }
            ],
        },
    )
    cid = created.structured_content["contract"]["id"]
    ev = (await agent.call_tool("evaluate", {"contract_id": cid})).structured_content
    crit = ev["criteria"][0]
    assert (
        crit["status"] == "unscored"
        and crit["pass"] is False
        and "never became ready" in crit["reason"]
    )
    # The contract's own command, its exit code and last words; never the sandbox's wrapper.
    assert "the served app exited with code 3, its last line: boom" in crit["reason"]
    assert f"(its command: `{sys.executable} -c 'import sys;" in crit["reason"]
    assert "unshare" not in crit["reason"] and "bwrap" not in crit["reason"]
    item = json.loads(
        (await agent.read_resource(f"evidence://{ev['run_id']}/{crit['evidence_ids'][0]}"))
        .contents[0]
        .text
    )
    assert "boom" in item["stderr"]


# The generator's app: it names a file after every request, logs it, and once the hidden check's
# page is asked for it answers and exits, so that the slow visible check fails on its exit.
SPYING_APP = """
import http.server, os, sys, time, urllib.parse

ROOT = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(ROOT, "seen"), exist_ok=True)


class Spy(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=os.path.join(ROOT, "web"), **kwargs)

    def do_GET(self):
        open(os.path.join(ROOT, "seen", urllib.parse.quote(self.path, safe="")), "a").close()
        print("visited", self.path, file=sys.stderr, flush=True)
        if "slow" in self.path:
            time.sleep(4)
        super().do_GET()
        if "coupon" in self.path:
            sys.stderr.flush()
            os._exit(3)


http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Spy).serve_forever()
"""
HIDDEN_URL = "/button.html?coupon=HIDDEN-COUPON-4711"


async def test_what_the_served_app_saw_of_a_hidden_check_stays_with_the_evaluator(
    agent: Client, site: Path
) -> None:
    (site / "app.py").write_text(SPYING_APP, encoding="utf-8")
    port = free_port()
    check = {"kind": "browser", "expect": [{"type": "title_contains", "value": "Button"}]}
    made = await call(
        agent,
        "create_contract",
        goal="A page with a working button.",
        task_type="feature",
        has_ui=True,
        out_of_scope=["styling"],
        serve={"argv": [sys.executable, "app.py", str(port)], "url": f"http://127.0.0.1:{port}/"},
        functional=[
            {
                "criterion": "the button page loads",
                "verification_method": "e2e",
                "check": {**check, "url": "/button.html?slow=1"},
            },
            {
                "criterion": "a coupon link opens the shop",
                "verification_method": "e2e",
                "holdout": True,
                "check": {**check, "url": HIDDEN_URL},
            },
        ],
    )
    cid = made["contract"]["id"]
    evaluation = await call(agent, "evaluate", contract_id=cid)
    visible, hidden = evaluation["criteria"]
    # The hold-out runs after the visible check has ended, with a served app of its own: what
    # it did to the app (here, ending it) never reaches the visible check.
    assert visible["status"] == "pass", visible
    serve_log = hidden["evidence_ids"][-1]
    read = await agent.read_resource(f"evidence://{evaluation['run_id']}/{serve_log}")
    item = json.loads(read.contents[0].text)  # type: ignore[union-attr]
    # The evaluator has all of it: the app's log and the names it wrote, marked as hold-out's.
    assert item["holdout"] is True and "HIDDEN-COUPON-4711" in item["stderr"]
    assert any("HIDDEN-COUPON-4711" in p for p in evaluation["tree_changed"]["holdout_paths"])
    card = {**judged(evaluation["draft_scorecard"]), "guidance": "Keep the app up."}
    card["issues"] = [*card["issues"], {"severity": "LOW", "description": item["stderr"][-60:]}]
    checked = await call(agent, "validate_scorecard", scorecard=card)
    assert checked["valid"] is True, checked["errors"]
    decided = await call(agent, "aggregate", contract_id=cid)
    prompt = await agent.get_prompt("generator_brief", {"contract_id": cid})
    seen = json.dumps(decided["revision_brief"]) + prompt.messages[0].content.text  # type: ignore[union-attr]
    assert "COUPON" not in seen.upper() and "visited" not in seen
    assert len(decided["holdout_leaks"]) == 1
