"""Nothing of a hold-out's run reaches the generator, over MCP and the CLI: the code under test
reads the hidden test in the hold-out's run and sends its assertion down a channel between
sandboxes (tests/holdout_channels.py: locks and inotify on shared files, sockets, IPC, /tmp, the
process list, a daemon left behind); a visible run receives it and turns it into failing test ids,
which the brief would repeat. The hold-outs run after every visible run has ended
(tools/evaluate/phases.py), and their sandboxes leave nothing behind: nothing arrives.

The ordering is checked on its own, within one evaluation and between two evaluations one server
runs at once (tests/tools/test_phases.py: the gate alone)."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from holdout_attacks import HOLDOUT_PATH, SECRET_TEST, completed, generator_side, holdout_contract
from holdout_channels import (
    CHANNELS,
    LEFT_BEHIND,
    NOTES,
    Channel,
    channels_alone,
    decoded,
    leaky_calc,
)
from mcp import Client
from mcp_calls import call
from projects import SAMPLE_ENV, calc_repo

from referee.server.app import build_server
from referee.server.cli import main as cli
from referee.tools.sandbox import sandbox_support
from referee.tools.settings import Settings

pytestmark = [
    pytest.mark.slow,
    pytest.mark.anyio,
    pytest.mark.skipif(not sandbox_support().available, reason="no sandbox here"),
]
ASSERTED = "10**20"  # in the hidden test's first assertion, never in the generator's view


@pytest.fixture(autouse=True)
def _alone() -> Iterator[None]:
    with channels_alone():
        yield


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return calc_repo(tmp_path / "calc")


@pytest.fixture
async def agent(project: Path) -> AsyncIterator[Client]:
    async with Client(build_server(Settings.build([project], env=dict(SAMPLE_ENV)))) as client:
        yield client


def _contract(channel: Channel) -> dict[str, Any]:
    # A channel over the host's network needs both checks to share it.
    contract = holdout_contract()
    for item in contract["functional"]:
        item["check"]["network"] = channel.network
    return contract


def _plant(project: Path, channel: Channel) -> None:
    (project / "src" / "calc.py").write_text(leaky_calc(channel), encoding="utf-8")
    (project / "tests" / "test_notes.py").write_text(NOTES, encoding="utf-8")


# The channels that cross between two sandboxes alive at once, and the one left behind: the
# others the sandbox's namespaces cut even then (tests/tools/test_holdout_channels.py).
THROUGH_REFEREE = [*(n for n, c in CHANNELS.items() if c.crosses), *LEFT_BEHIND]


@pytest.mark.parametrize("name", THROUGH_REFEREE)
async def test_a_holdouts_assertion_never_reaches_the_brief_down_a_channel(
    agent: Client, project: Path, name: str
) -> None:
    channel = {**CHANNELS, **LEFT_BEHIND}[name]
    made = await call(agent, "create_contract", **_contract(channel))
    cid = made["contract"]["id"]
    files = [{"path": HOLDOUT_PATH, "content": SECRET_TEST}]
    await call(agent, "add_holdout_files", contract_id=cid, files=files)
    _plant(project, channel)
    evaluation = await call(agent, "evaluate", contract_id=cid)
    assert evaluation["sandbox"] == "bubblewrap"
    # Nothing arrived in the visible run: its tests' ids say what it received.
    assert ASSERTED not in decoded(await _visible_output(agent, evaluation)), name
    await call(agent, "validate_scorecard", scorecard=completed(evaluation["draft_scorecard"]))
    decided = await call(agent, "aggregate", contract_id=cid)
    seen = await generator_side(agent, cid, decided)
    assert ASSERTED not in decoded(seen), (name, decoded(seen))
    assert ASSERTED not in seen


async def _visible_output(agent: Client, evaluation: dict[str, Any]) -> str:
    [visible] = [c for c in evaluation["criteria"] if not c["holdout"]]
    texts = []
    for ident in visible["evidence_ids"]:
        read = await agent.read_resource(f"evidence://{evaluation['run_id']}/{ident}")
        texts.append(read.contents[0].text)  # type: ignore[union-attr]
    return "\n".join(texts)


def test_through_the_cli_a_lock_carries_nothing_into_the_brief(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def run(*args: str) -> tuple[int, str]:
        capsys.readouterr()
        code = cli(["--root", str(project), *args])
        return code, capsys.readouterr().out

    source = tmp_path / "contract.yaml"
    source.write_text(yaml.safe_dump(holdout_contract()), encoding="utf-8")
    code, out = run("contract", "create", str(source), "--json")
    assert code == 0, out
    cid = json.loads(out)["contract"]["id"]
    hidden = tmp_path / "vault-in" / Path(HOLDOUT_PATH).name
    hidden.parent.mkdir()
    hidden.write_text(SECRET_TEST, encoding="utf-8")
    assert run("holdout", "add", cid, str(hidden), "--to", "tests")[0] == 0
    _plant(project, CHANNELS["a POSIX byte-range lock on a shared file"])
    code, out = run("evaluate", cid, "--json")
    assert code in (0, 1), out
    card = tmp_path / "card.json"
    card.write_text(json.dumps(completed(json.loads(out)["draft_scorecard"])), encoding="utf-8")
    assert run("validate", str(card))[0] == 0
    code, out = run("aggregate", cid, "--json")
    assert code in (0, 1), out
    assert ASSERTED not in decoded(out) and ASSERTED not in out


# --- the order of the phases ------------------------------------------------------------------

# Each check says when it started and ended (CLOCK_MONOTONIC is the machine's, in every sandbox).
_CLOCKED = (
    "import time\nprint('started', time.monotonic_ns(), flush=True)\ntime.sleep({pause})\n"
    "print('ended', time.monotonic_ns(), flush=True)\n"
)


def _clocked(name: str, *, holdout: bool, pause: float = 1.0) -> dict[str, Any]:
    return {
        "criterion": name,
        "verification_method": "test",
        "holdout": holdout,
        "check": {"kind": "command", "argv": [sys.executable, "-c", _CLOCKED.format(pause=pause)]},
    }


Spans = dict[str, tuple[int, int, bool]]  # criterion id -> (started, ended, hidden)


async def _spans(agent: Client, criteria: list[dict[str, Any]]) -> Spans:
    made = await call(
        agent, "create_contract", goal="Clocked.", out_of_scope=["ui"], functional=criteria
    )
    evaluation = await call(agent, "evaluate", contract_id=made["contract"]["id"])
    found = {}
    for result in evaluation["criteria"]:
        uri = f"evidence://{evaluation['run_id']}/{result['evidence_ids'][0]}"
        read = await agent.read_resource(uri)
        said = dict(
            line.split() for line in json.loads(read.contents[0].text)["stdout"].splitlines()
        )  # type: ignore[union-attr]
        found[result["id"]] = (int(said["started"]), int(said["ended"]), bool(result["holdout"]))
    return found


async def test_every_hidden_check_starts_after_every_visible_one_has_ended(agent: Client) -> None:
    criteria = [
        _clocked("visible, slow", holdout=False, pause=2.0),
        _clocked("hidden", holdout=True),
        _clocked("visible", holdout=False),
        _clocked("hidden too", holdout=True),
    ]
    spans = list((await _spans(agent, criteria)).values())
    assert sorted(hidden for *_, hidden in spans) == [False, False, True, True]
    last_visible = max(end for _, end, hidden in spans if not hidden)
    assert all(start > last_visible for start, _, hidden in spans if hidden), spans


async def test_a_hidden_phase_runs_alone_among_the_servers_evaluations(agent: Client) -> None:
    first = [_clocked("hidden", holdout=True), _clocked("visible", holdout=False, pause=0.2)]
    second = [_clocked("visible, slow", holdout=False, pause=3.0)]
    found: list[Spans] = []

    async def evaluate(criteria: list[dict[str, Any]]) -> None:
        found.append(await _spans(agent, criteria))

    async with anyio.create_task_group() as group:
        group.start_soon(evaluate, second)
        group.start_soon(evaluate, first)
    spans = [span for run in found for span in run.values()]
    [(start, end, _)] = [span for span in spans if span[2]]
    visible = [(s, e) for s, e, hidden in spans if not hidden]
    assert len(visible) == 2, found
    assert all(end < other_start or other_end < start for other_start, other_end in visible)
