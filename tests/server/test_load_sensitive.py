"""Runs of the generator's code that referee compares never share the machine.

Two runs alive at once can tell each other apart (a lock on a file every sandbox shows at the
same inode, the machine's load), and a timing-dependent test can fail beside another run and pass
alone. So the generator's commands run one at a time (evaluate/run.py), in a server among all its
evaluations (evaluate/phases.py), and none beside referee's own work (the static pipeline, the
readers, the recording of a run: graders/company.py)."""

from __future__ import annotations

import os
from itertools import pairwise
from pathlib import Path
from typing import Any

import anyio
import pytest
from cli_runs import PYTEST, evaluated
from gitrepo import make_repo
from mcp import Client
from mcp_calls import call

from referee.server.app import build_server
from referee.tools.graders.company import Occupancy
from referee.tools.settings import Settings

BASE = {
    "calc.py": "HOLD = 6\n\n\ndef add(a, b):\n    return a - b\n",
    "tests/test_calc.py": "import calc\n\n\ndef test_name():\n    assert calc.add.__name__\n",
}

# The base run's copy (HOLD set) holds a lock file for HOLD seconds; the current run's copy fails
# when it sees the lock within 8 seconds: it fails only when the two runs overlap (in place, so
# both see the same folder).
QUIET = """import os
import time

import calc

LOCKS = os.environ["LOCKS"]


def test_add():
    assert calc.add(2, 3) == 5


def test_quiet():
    lock, done = os.path.join(LOCKS, "lock"), os.path.join(LOCKS, "done")
    if getattr(calc, "HOLD", 0):
        open(lock, "w").close()
        time.sleep(calc.HOLD)
        os.remove(lock)
        open(done, "w").close()
        return
    end = time.monotonic() + 8
    while time.monotonic() < end:
        assert not os.path.exists(lock), "a base run is alive beside this one"
        time.sleep(0.02)
"""

FIX = {"calc.py": "def add(a, b):\n    return a + b\n", "tests/test_add.py": QUIET}


def _judged(tmp_path: Path, change: dict[str, str | bytes | None]) -> dict[str, Any]:
    """The one criterion's verdict, evaluated in place with the lock folder in the check's env."""
    locks = tmp_path / "locks"
    locks.mkdir()
    _, result = evaluated(
        tmp_path,
        BASE,
        change,
        check_fields={"must_fail_at_base": True, "env": {"LOCKS": str(locks)}},
        options=("--isolation", "inplace"),
    )
    [criterion] = result["criteria"]
    return criterion


def test_the_base_run_never_runs_beside_the_current_one(tmp_path: Path) -> None:
    criterion = _judged(tmp_path, FIX)
    assert criterion["status"] == "pass", criterion
    assert (tmp_path / "locks" / "done").exists()  # the base run did hold the lock


def test_a_broken_change_still_fails(tmp_path: Path) -> None:
    criterion = _judged(tmp_path, {**FIX, "calc.py": "def add(a, b):\n    return a * b\n"})
    assert criterion["status"] == "fail", criterion
    assert "test_add" in criterion["reason"], criterion


# A test that takes a lock on a file every sandbox shows at the same inode and holds it: the
# first run to take it expects the broken sum, a run that finds it taken the right one. Beside
# each other, the current run (started first) would pass and the base run fail: a proof made of
# the order of two runs. One at a time, both take the lock and pass: nothing fails at base.
FIRST = """import fcntl
import sys
import time

import calc


def _first():
    shared = open(sys.executable, "rb")
    try:
        fcntl.flock(shared, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    time.sleep(8)
    return True


def test_add():
    assert calc.add(2, 3) == (-1 if _first() else 5)
"""


def _left_broken(tmp_path: Path, test: str) -> dict[str, Any]:
    """The verdict on a change that leaves `add` broken and adds `test` (a bug-fix contract,
    sandboxed)."""
    base = {**BASE, "calc.py": "def add(a, b):\n    return a - b\n"}
    change = {"calc.py": "def add(a, b):\n    return a - b  # checked\n", "tests/test_add.py": test}
    _, result = evaluated(tmp_path, base, change, check_fields={"must_fail_at_base": True})
    [criterion] = result["criteria"]
    return criterion


def test_a_test_that_takes_a_lock_first_proves_nothing(tmp_path: Path) -> None:
    criterion = _left_broken(tmp_path, FIRST)
    assert criterion["status"] != "pass", criterion


# A test that senses another run alive (a lock on a file every sandbox shows at the same inode)
# and expects the right sum only then: beside another run it fails, alone it passes on the broken
# code. Every run is made alone: it shows no failure at base.
SENSING = """import fcntl
import random
import sys
import time

import calc


def _company():
    with open(sys.executable, "rb") as shared:
        end, seen = time.monotonic() + 12, False
        while time.monotonic() < end:
            try:
                fcntl.flock(shared, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                if not seen:
                    seen, end = True, min(end, time.monotonic() + 4)
            else:
                time.sleep(0.2)
                fcntl.flock(shared, fcntl.LOCK_UN)
            time.sleep(random.uniform(0.05, 0.25))
        return seen


def test_add():
    assert calc.add(2, 3) == (5 if _company() else -1)
"""


def test_a_test_that_senses_other_runs_proves_nothing_alone(tmp_path: Path) -> None:
    criterion = _left_broken(tmp_path, SENSING)
    assert criterion["status"] != "pass", criterion


def test_a_command_waits_until_referees_own_work_has_ended() -> None:
    async def main() -> None:
        occupancy, order = Occupancy(), []

        async def work() -> None:
            with occupancy.joined():
                await anyio.sleep(0.2)
                order.append("work")

        async def command() -> None:
            await anyio.sleep(0.01)
            await occupancy.quiet()
            order.append("command")

        async with anyio.create_task_group() as group:
            group.start_soon(work)
            group.start_soon(command)
        assert order == ["work", "command"]

    anyio.run(main)


# Each run of this test leaves its start and end in the shared folder (in place, so every run
# sees it): the spans show which runs overlapped.
SPAN = """import os
import time
import uuid


def test_span():
    folder, me = os.environ["SPANS"], uuid.uuid4().hex
    start = time.time()
    time.sleep(1.5)
    with open(os.path.join(folder, me), "w") as f:
        f.write(f"{start} {time.time()}")
"""


@pytest.mark.anyio
async def test_two_evaluations_of_one_server_run_their_commands_in_turn(tmp_path: Path) -> None:
    """One MCP server, two repositories, both evaluated at once: no command of one runs beside a
    command of the other (a run of another evaluation must not stand in for the other side of
    a channel)."""
    spans = tmp_path / "spans"
    spans.mkdir()
    repos = [make_repo(tmp_path / name, {"tests/test_span.py": SPAN}) for name in ("a", "b")]
    check = {"kind": "tests", "argv": PYTEST, "env": {"SPANS": str(spans)}}
    criterion = {"criterion": "the spans", "verification_method": "test", "check": check}
    settings = Settings.build(repos, env=dict(os.environ))
    async with Client(build_server(settings)) as agent:
        ids = []
        for repo in repos:
            made = await call(
                agent,
                "create_contract",
                goal="Record spans.",
                out_of_scope=["ui"],
                functional=[criterion],
                repo=str(repo),
            )
            ids.append(made["contract"]["id"])

        async def evaluate(cid: str) -> None:
            result = await call(agent, "evaluate", contract_id=cid, isolation="inplace")
            assert result["criteria"][0]["status"] == "pass", result["criteria"]

        async with anyio.create_task_group() as group:
            for cid in ids:
                group.start_soon(evaluate, cid)
    found = sorted(tuple(map(float, p.read_text().split())) for p in spans.iterdir())
    assert len(found) >= 2, found
    assert all(end <= start for (_, end), (start, _) in pairwise(found)), found
