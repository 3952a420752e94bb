"""Screenshot baselines through referee's interfaces: the first evaluation leaves the image to
the judge, the delivered iteration's image becomes the baseline, a later change to the page's
look fails against it with its diff; a run's image accepted by hand through the CLI; a
baseline replaced outside referee is refused; a team store's baseline holds on every machine."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from browsers import free_port, needs_browser
from gitrepo import make_repo
from mcp import Client
from mcp_calls import call
from runs import judged

from referee.server.app import build_server
from referee.server.cli import main
from referee.tools.settings import Settings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "browser"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.anyio,
    *needs_browser,
]


def _site(tmp_path: Path) -> Path:
    page = (FIXTURES / "shot.html").read_text(encoding="utf-8")
    return make_repo(tmp_path / "site", {"README.md": "# site\n", "web/shot.html": page})


def _contract(port: int) -> dict[str, Any]:
    serve = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]
    return {
        "goal": "The plan page keeps its look.",
        "task_type": "feature",
        "has_ui": True,
        "out_of_scope": ["other pages"],
        "serve": {"argv": [*serve, "--directory", "web"], "url": f"http://127.0.0.1:{port}/"},
        "functional": [
            {
                "criterion": "the plan page looks as it did",
                "verification_method": "e2e",
                "check": {
                    "kind": "browser",
                    "url": "/shot.html",
                    "expect": [{"type": "screenshot", "name": "plan", "mask": ["#clock"]}],
                },
            }
        ],
    }


def _home(tmp_path: Path) -> tuple[Path, Settings]:
    repo = _site(tmp_path)
    return repo, Settings.build([repo], env=dict(os.environ))


async def _first_run(agent: Client) -> tuple[str, dict[str, Any]]:
    """A new contract for the page and its first evaluation."""
    cid = (await call(agent, "create_contract", **_contract(free_port())))["contract"]["id"]
    return cid, await call(agent, "evaluate", contract_id=cid)


def _judge_passes(draft: dict[str, Any]) -> dict[str, Any]:
    card = judged(draft)
    for criterion in card["criteria"]:
        if criterion.get("pass") is None:
            criterion["pass"], criterion["evidence"] = True, "the image shows the plan page"
    return card


def _recolour(repo: Path) -> None:
    page = repo / "web" / "shot.html"
    page.write_text(page.read_text().replace("#1f4fbf", "#067647"), encoding="utf-8")


async def test_the_delivered_image_becomes_the_baseline_a_later_look_is_held_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, settings = _home(tmp_path)
    async with Client(build_server(settings)) as agent:
        cid, first = await _first_run(agent)
        criterion = first["criteria"][0]
        assert criterion["status"] == "unscored", criterion
        assert (
            criterion["reason_code"] == "no_baseline" and "no baseline yet" in criterion["reason"]
        )
        card = _judge_passes(first["draft_scorecard"])
        assert (await call(agent, "validate_scorecard", scorecard=card))["valid"]
        decided = await call(agent, "aggregate", contract_id=cid)
        assert decided["decision"] == "DELIVER", decided["reason"]
        _recolour(repo)
        later = await call(agent, "evaluate", contract_id=cid)
    shown = later["criteria"][0]
    assert shown["status"] == "fail" and "pixels" in shown["reason"], shown
    assert "AC-F-001.shot-plan.diff.png" in shown["reason"]
    home = ["--root", str(repo)]
    assert main([*home, "baseline", "list", cid, "--json"]) == 0
    kept = json.loads(capsys.readouterr().out)["baselines"]
    assert [(b["criterion_id"], b["name"], b["how"], b["run_id"]) for b in kept] == [
        ("AC-F-001", "plan", "delivered", first["run_id"])
    ]
    # Accepted by hand, the new look is the baseline; the next run holds.
    assert main([*home, "baseline", "accept", later["run_id"], "AC-F-001"]) == 0
    assert "accepted AC-F-001 plan" in capsys.readouterr().out
    async with Client(build_server(settings)) as agent:
        again = await call(agent, "evaluate", contract_id=cid)
    assert again["criteria"][0]["status"] == "pass", again["criteria"][0]


async def test_a_baseline_replaced_outside_referee_fails_its_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, settings = _home(tmp_path)
    async with Client(build_server(settings)) as agent:
        cid, first = await _first_run(agent)
    home = ["--root", str(repo)]
    assert main([*home, "baseline", "accept", first["run_id"], "AC-F-001", "--name", "plan"]) == 0
    capsys.readouterr()
    image = next((repo / ".referee" / "baselines").rglob("plan.png"))
    _recolour(repo)
    async with Client(build_server(settings)) as agent:
        changed = await call(agent, "evaluate", contract_id=cid)
        # The changed look, written over the baseline outside referee, does not pass it.
        shot = next(a for a in await _artifacts(agent, changed) if a.endswith("actual.png"))
        image.write_bytes(Path(shot).read_bytes())
        forged = await call(agent, "evaluate", contract_id=cid)
    reason = forged["criteria"][0]["reason"]
    assert forged["criteria"][0]["status"] == "fail" and "refused" in reason, reason
    # Bad input through the CLI: a run that is not stored, a criterion with no screenshot.
    assert main([*home, "baseline", "accept", "R20200101000000-00000000", "AC-F-001"]) == 2
    assert main([*home, "baseline", "accept", first["run_id"], "AC-F-009"]) == 2
    assert main([*home, "baseline", "accept", first["run_id"], "AC-F-001", "--name", "x"]) == 2
    assert "AC-F-009" in capsys.readouterr().err


async def _artifacts(agent: Client, ev: dict[str, Any]) -> list[str]:
    first = ev["criteria"][0]["evidence_ids"][0]
    found = await agent.read_resource(f"evidence://{ev['run_id']}/{first}")
    return list(json.loads(found.contents[0].text)["artifacts"])


TEAM_KEY = "the team's key, a CI secret of 32+ chars"


async def test_a_baseline_delivered_on_one_machine_holds_on_another_of_the_team_store(
    tmp_path: Path,
    postgres_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("REFEREE_KEY", TEAM_KEY)
    monkeypatch.setenv("REFEREE_STORE_URL", postgres_url)
    alice, settings = _home(tmp_path / "alice")
    bob = tmp_path / "bob" / "site"
    subprocess.run(["git", "clone", "-q", str(alice), str(bob)], check=True)
    async with Client(build_server(settings)) as agent:
        cid, first = await _first_run(agent)
        card = _judge_passes(first["draft_scorecard"])
        assert (await call(agent, "validate_scorecard", scorecard=card))["valid"]
        assert (await call(agent, "aggregate", contract_id=cid))["decision"] == "DELIVER"
    assert not (alice / ".referee" / "baselines").exists()  # the team's, in its database
    shutil.rmtree(alice / ".referee")  # her run's screenshot is no longer on any disk
    # Bob's machine holds his look to the baseline Alice's delivery gave.
    home = ["--root", str(bob)]
    evaluate = [*home, "evaluate", cid, "--json"]
    assert await anyio.to_thread.run_sync(main, evaluate) == 0  # the CLI runs its own loop
    assert json.loads(capsys.readouterr().out)["criteria"][0]["status"] == "pass"
    assert main([*home, "baseline", "list", cid, "--json"]) == 0
    [kept] = json.loads(capsys.readouterr().out)["baselines"]
    assert (kept["how"], kept["run_id"]) == ("delivered", first["run_id"])
    page = tmp_path / "report.html"
    assert main([*home, "report", first["run_id"], "--html", str(page)]) == 0
    assert "data:image/png;base64," in page.read_text(encoding="utf-8")  # Alice's image
    capsys.readouterr()
    _recolour(bob)
    assert await anyio.to_thread.run_sync(main, evaluate) == 1
    shown = json.loads(capsys.readouterr().out)["criteria"][0]
    assert shown["status"] == "fail" and "pixels" in shown["reason"], shown
