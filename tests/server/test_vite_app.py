"""Browser checks on a real Vite dev server, over MCP and on the CLI, as a frontend developer uses
them: six TodoMVC checks on the clean app and on a break, one in Playwright Test's locator and
matcher vocabulary, a busy port (in the sandbox's private network and without it, said once), a
server that dies mid-run (what passed stands, what was left is not run), a failing check's
trace."""

from __future__ import annotations

import functools
import http.server
import json
import os
import threading
import zipfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from browsers import free_port, needs_browser
from mcp import Client
from viteapp import NO_VITE, browser, main_js, serve_block, todomvc_checks, vite_app

from referee.server.app import build_server
from referee.server.cli import main
from referee.tools.settings import Settings

pytestmark = [
    pytest.mark.slow,
    pytest.mark.anyio,
    *needs_browser,
    pytest.mark.skipif(NO_VITE is not None, reason=str(NO_VITE)),
]
# A generator's bug: Enter no longer adds the todo.
BREAK_ENTER = ("add(e.target.value.trim());", "")


@pytest.fixture
def app(tmp_path: Path) -> Path:
    return vite_app(tmp_path / "todo")


async def _agent(repo: Path) -> AsyncIterator[Client]:
    async with Client(build_server(Settings.build([repo], env=dict(os.environ)))) as c:
        yield c


@pytest.fixture
async def agent(app: Path) -> AsyncIterator[Client]:
    async for c in _agent(app):
        yield c


async def _contract(agent: Client, port: int, criteria: list[dict[str, Any]], **more: Any) -> str:
    created = await agent.call_tool(
        "create_contract",
        {
            "goal": "A todo list that works like TodoMVC.",
            "has_ui": True,
            "out_of_scope": ["routing"],
            "serve": serve_block(port),
            # Vite compiles the page on its first request after an edit: seconds when loaded.
            "browser_setup": [{"action": "goto", "url": "/", "timeout_s": 30}],
            "functional": criteria,
            **more,
        },
    )
    assert created.is_error is False, created.content
    return str(created.structured_content["contract"]["id"])


async def _evaluate(agent: Client, cid: str, **more: Any) -> dict[str, Any]:
    result = await agent.call_tool("evaluate", {"contract_id": cid, **more})
    assert result.is_error is False, result.content
    return dict(result.structured_content)


async def _evidence(agent: Client, run_id: str, ident: str) -> dict[str, Any]:
    text = (await agent.read_resource(f"evidence://{run_id}/{ident}")).contents[0].text
    return dict(json.loads(text))


def _break(repo: Path, old: str, new: str) -> None:
    code = main_js(repo)
    assert old in code
    (repo / "src" / "main.js").write_text(code.replace(old, new), encoding="utf-8")


async def test_six_todomvc_checks_pass_on_the_clean_app_and_name_what_a_break_broke(
    agent: Client, app: Path
) -> None:
    port = free_port()
    cid = await _contract(agent, port, todomvc_checks())
    clean = await _evaluate(agent, cid)
    assert {c["id"]: c["status"] for c in clean["criteria"]} == {
        f"AC-F-00{i}": "pass" for i in range(1, 7)
    }, [c["reason"] for c in clean["criteria"]]
    serve_id = clean["criteria"][0]["evidence_ids"][-1]
    served = await _evidence(agent, clean["run_id"], serve_id)
    assert served["tool"] == "serve" and "VITE" in served["stdout"]

    _break(app, *BREAK_ENTER)
    broken = await _evaluate(agent, cid)
    status = {c["id"]: c["status"] for c in broken["criteria"]}
    assert status == {**{f"AC-F-00{i}": "fail" for i in range(1, 6)}, "AC-F-006": "pass"}
    first = broken["criteria"][0]["reason"]
    assert first.startswith(
        "expectation 1 (count .todo-list li) failed: 0 elements match .todo-list li;"
        " expected exactly 1"
    )
    # The third check's step 2 needs the todo the broken Enter never added.
    third = broken["criteria"][2]["reason"]
    assert third.startswith(
        "step 3 (check .todo-list .toggle) failed: Locator.check: Timeout 3000ms exceeded."
    )
    item = await _evidence(agent, broken["run_id"], broken["criteria"][2]["evidence_ids"][0])
    assert "npx playwright show-trace" in item["stdout"]
    trace = next(a for a in item["artifacts"] if a.endswith(".trace.zip"))
    with zipfile.ZipFile(trace) as opened:
        assert "trace.trace" in opened.namelist()
    report = (await agent.read_resource(f"report://{broken['run_id']}")).contents[0].text
    browser_part = report[report.index("## Browser checks") : report.index("## Evidence index")]
    first_check = browser_part[browser_part.index("AC-F-001: a new todo is added") :]
    assert first_check.index("Failing expectation 1. count .todo-list li: 0 elements") < (
        first_check.index("![AC-F-001")
    )
    # The page names the trace from the project's root, never by this machine's path.
    assert f"Trace: {trace[trace.index('.referee/') :]}" in browser_part
    assert str(app) not in report


async def test_a_failing_expectation_never_eats_the_wait_of_the_next(agent: Client) -> None:
    check = browser(
        "the page shows the list",
        [],
        [
            {"type": "hidden", "selector": ".new-todo"},
            {"type": "visible", "selector": "h1"},
            {"type": "title_contains", "value": "TodoMVC"},
        ],
    )
    ev = await _evaluate(agent, await _contract(agent, free_port(), [check]))
    [crit] = ev["criteria"]
    assert crit["status"] == "fail"
    failing = [line for line in crit["reason"].splitlines() if line.startswith("expectation")]
    assert failing == [
        "expectation 1 (hidden .new-todo) failed: 1 visible element still matches .new-todo"
    ]


@pytest.fixture
def other_server(tmp_path: Path) -> Iterator[int]:
    """Another app already holding the port the contract's server wants."""
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "index.html").write_text("<title>Not the app</title>", encoding="utf-8")
    handler = functools.partial(
        http.server.SimpleHTTPRequestHandler, directory=str(tmp_path / "other")
    )
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield int(server.server_address[1])
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


async def test_in_the_sandbox_the_app_gets_its_port_in_a_network_of_its_own(
    agent: Client, other_server: int
) -> None:
    # Another server holds the port on this machine: the app, in its private network, has it
    # all the same, and the browser in that network sees the app, not the other server.
    cid = await _contract(agent, other_server, todomvc_checks()[:2])
    ev = await _evaluate(agent, cid)
    assert ev["sandbox"] == "bubblewrap"
    assert [c["status"] for c in ev["criteria"]] == ["pass", "pass"], ev["criteria"]
    served = await _evidence(agent, ev["run_id"], ev["criteria"][0]["evidence_ids"][-1])
    assert served["tool"] == "serve" and served["details"]["network"] == "private"


async def test_without_a_sandbox_a_busy_port_leaves_the_browser_criteria_unscored(
    agent: Client, other_server: int
) -> None:
    cid = await _contract(agent, other_server, todomvc_checks()[:2])
    ev = await _evaluate(agent, cid, isolation="inplace")
    assert {(c["status"], c["reason_code"]) for c in ev["criteria"]} == {
        ("unscored", "port_in_use")
    }
    reason = ev["criteria"][0]["reason"]
    assert reason.startswith(f"port {other_server} is already in use by another process")
    served = await _evidence(agent, ev["run_id"], ev["criteria"][0]["evidence_ids"][0])
    assert served["tool"] == "serve" and served["summary"] == reason
    # A condition of the run, said once: one issue naming both criteria.
    [busy] = [i for i in ev["issues"] if "already in use" in i["description"]]
    assert busy["description"].startswith("criteria AC-F-001, AC-F-002 could not be checked: port")
    # No page was seen: the checks say nothing about the app's UX.
    assert ev["dimensions"]["ux_quality"]["source"] == "judgment"


def _crash_checks() -> list[dict[str, Any]]:
    """A check that passes, one that crashes the app, one still waiting then, one after."""
    loads = browser("the page loads", [], [{"type": "visible", "selector": "h1"}])
    # Typed slowly, so the first check has its page before the app goes down.
    slowly = {"action": "press_sequentially", "selector": ".new-todo", "value": "x" * 8}
    crashes = browser(
        "the crash button crashes",
        [{**slowly, "delay_s": 0.5, "timeout_s": 10}, {"action": "click", "selector": "#crash"}],
        [{"type": "visible", "selector": "#never", "timeout_s": 3}],
    )
    waits = browser(
        "a slow list",
        [{"action": "wait_for", "selector": "#never-appears", "timeout_s": 8}],
        [],
    )
    later = browser("the list is empty", [], [{"type": "count", "selector": "li", "equals": 0}])
    return [loads, crashes, waits, later]


# What the app's exit is reported as: its own command, never the sandbox's wrapper.
CRASH_SAID = (
    "the served app exited with code 3 during the checks, its last line: fatal: the todo"
    " store is corrupt (simulated crash) (its command: `node "
)


async def test_a_dev_server_that_dies_mid_run_keeps_what_passed_and_runs_nothing_after(
    tmp_path: Path,
) -> None:
    app = vite_app(tmp_path / "crashy", crash=True)
    async for agent in _agent(app):
        cid = await _contract(agent, free_port(), _crash_checks())
        ev = await _evaluate(agent, cid)
        first, *gone = ev["criteria"]
        assert first["status"] == "pass", first["reason"]
        said = CRASH_SAID
        for crit in gone:
            assert (crit["status"], crit["reason_code"]) == ("unscored", "serve_exited"), crit
        # The last check waited for a page until after the crash: it never ran.
        assert gone[-1]["reason"].startswith(f"not run: {said}")
        report = (await agent.read_resource(f"report://{ev['run_id']}")).contents[0].text
        assert said in report and "vite.js --port" in report and "unshare" not in report
        assert gone[-1]["evidence_ids"] == first["evidence_ids"][-1:]  # the app's log only
        # Said once: one issue for the app's exit, naming every criterion it left unscored.
        exits = [i for i in ev["issues"] if "exited with code 3" in i["description"]]
        assert len(exits) == 1, ev["issues"]
        assert all(c["id"] in exits[0]["description"] for c in gone)
        served = await _evidence(agent, ev["run_id"], ev["criteria"][0]["evidence_ids"][-1])
        assert served["exit_code"] == 3 and served["details"]["exited_on_its_own"] is True
        assert "fatal: the todo store is corrupt" in served["stderr"]


def test_the_cli_evaluates_the_vite_app_and_exits_1_naming_the_broken_step(
    app: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    contract = {
        "goal": "A todo list that works like TodoMVC.",
        "has_ui": True,
        "out_of_scope": ["routing"],
        "serve": serve_block(port),
        "browser_setup": [{"action": "goto", "url": "/", "timeout_s": 30}],
        "functional": todomvc_checks()[:2],
    }
    source = tmp_path / "contract.yaml"
    source.write_text(yaml.safe_dump(contract), encoding="utf-8")
    assert main(["--root", str(app), "contract", "create", str(source)]) == 0
    cid = capsys.readouterr().out.split()[1]
    assert main(["--root", str(app), "evaluate", cid, "--json"]) == 0
    assert all(c["status"] == "pass" for c in json.loads(capsys.readouterr().out)["criteria"])
    _break(app, *BREAK_ENTER)
    assert main(["--root", str(app), "evaluate", cid]) == 1
    shown = capsys.readouterr().out
    assert "expectation 1 (count .todo-list li) failed: 0 elements match" in shown


def test_the_cli_reports_a_dev_server_that_died_once_with_its_own_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = vite_app(tmp_path / "crashy", crash=True)
    contract = {
        "goal": "A todo list that works like TodoMVC.",
        "has_ui": True,
        "out_of_scope": ["routing"],
        "serve": serve_block(free_port()),
        "browser_setup": [{"action": "goto", "url": "/", "timeout_s": 30}],
        "functional": _crash_checks(),
    }
    source = tmp_path / "contract.yaml"
    source.write_text(yaml.safe_dump(contract), encoding="utf-8")
    assert main(["--root", str(app), "contract", "create", str(source)]) == 0
    cid = capsys.readouterr().out.split()[1]
    code = main(["--root", str(app), "evaluate", cid])
    shown = capsys.readouterr().out
    assert code != 0, shown  # three criteria could not be judged: not a pass
    assert "AC-F-001" in shown and "pass" in shown
    assert CRASH_SAID in shown and "vite.js --port" in shown
    assert "unshare" not in shown and "bwrap" not in shown
    # The exit is one issue of the run, not one per criterion it left unscored.
    issues = shown.split("\nissues:\n", 1)[1]
    assert issues.count("exited with code 3") == 1
    assert "criteria AC-F-002, AC-F-003, AC-F-004 could not be checked: the served app" in issues
    assert "UNSC  AC-F-004   not run: the served app exited" in shown
    assert main(["--root", str(app), "evaluate", cid, "--json"]) in (1, 2)
    ev = json.loads(capsys.readouterr().out)
    assert [c["status"] for c in ev["criteria"]][1:] == ["unscored"] * 3
    assert len([i for i in ev["issues"] if "exited with code 3" in i["description"]]) == 1


def _vocabulary_check() -> dict[str, Any]:
    """One TodoMVC check in Playwright Test's own words: locators by placeholder, role and
    label, chained and filtered; typing key by key; toHaveClass, toContainText, toBeFocused."""
    new_todo = {"placeholder": "What needs to be done?"}
    item = [{"css": ".todo-list"}, {"role": "listitem", "has_text": "walk the dog"}]
    return browser(
        "a todo typed key by key can be completed",
        [
            {"action": "press_sequentially", "selector": new_todo, "value": "walk the dog"},
            {"action": "press", "selector": new_todo, "key": "Enter"},
            {"action": "check", "selector": [*item, {"label": "done"}]},
            {"action": "focus", "selector": {"role": "textbox", "name": "New todo"}},
        ],
        [
            {"type": "class", "selector": item, "matches": r"\bcompleted\b", "timeout_s": 2},
            {"type": "text", "selector": ".todo-count", "contains": "0 items", "timeout_s": 2},
            {"type": "focused", "selector": new_todo},
            {"type": "title", "matches": "TodoMVC"},
            {"type": "url", "equals": "/"},
        ],
    )


async def test_playwright_test_vocabulary_over_mcp_passes_clean_and_names_the_locator_broken(
    agent: Client, app: Path
) -> None:
    cid = await _contract(agent, free_port(), [_vocabulary_check()])
    [clean] = (await _evaluate(agent, cid))["criteria"]
    assert clean["status"] == "pass", clean["reason"]
    _break(app, *BREAK_ENTER)
    [broken] = (await _evaluate(agent, cid))["criteria"]
    assert broken["status"] == "fail"
    assert broken["reason"].startswith(
        "step 3 (check locator('.todo-list').getByRole('listitem')"
        ".filter({ hasText: 'walk the dog' }).getByLabel('done'))"
    ), broken["reason"]


def test_the_cli_takes_locator_objects_and_reports_a_bad_one_at_its_field(
    app: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    check = _vocabulary_check()
    check["check"]["steps"][2]["selector"] = {"role": "checkbox", "label": "done"}
    contract = {
        "goal": "A todo list that works like TodoMVC.",
        "has_ui": True,
        "out_of_scope": ["routing"],
        "serve": serve_block(free_port()),
        "functional": [check],
    }
    source = tmp_path / "contract.yaml"
    source.write_text(yaml.safe_dump(contract), encoding="utf-8")
    assert main(["--root", str(app), "contract", "create", str(source)]) != 0
    said = capsys.readouterr()
    assert "/functional/0/check/steps/2/selector" in said.out + said.err
    assert "give exactly one of role, label" in said.out + said.err
