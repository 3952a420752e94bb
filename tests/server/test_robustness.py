"""Abuse: malformed calls, concurrent evaluations, cancellation, and SIGKILL during writes."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from projects import PY, SAMPLE_ENV, calc_repo, pytest_check

from referee.server.app import build_server
from referee.tools.settings import Settings

pytestmark = pytest.mark.slow

TOOLS = [
    "create_contract",
    "get_contract",
    "evaluate",
    "validate_scorecard",
    "aggregate",
    "record_human_verdict",
]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
NOT_TEXT = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.lists(st.integers(), max_size=3)
    | st.dictionaries(st.text(max_size=4), st.integers(), max_size=2)
)


@st.composite
def malformed_calls(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A tool name and arguments that cannot be valid: a required argument missing or mistyped."""
    tool = draw(st.sampled_from(TOOLS))
    junk = draw(
        st.dictionaries(
            st.text(min_size=1, max_size=10).filter(lambda k: k not in REQUIRED[tool] + ["scope"]),
            JSON,
            max_size=4,
        )
    )
    if draw(st.booleans()):
        return tool, junk
    key = REQUIRED[tool][0]
    return tool, {
        **junk,
        key: draw(NOT_TEXT if key != "scorecard" else st.integers() | st.text() | st.none()),
    }


REQUIRED = {
    "create_contract": ["goal"],
    "get_contract": ["contract_id"],
    "evaluate": ["contract_id"],
    "validate_scorecard": ["scorecard"],
    "aggregate": ["contract_id"],
    "record_human_verdict": ["scorecard_id", "verdict"],
}


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any, list[float]]]:
    repo = calc_repo(tmp_path_factory.mktemp("fuzz") / "calc")
    with (
        anyio.from_thread.start_blocking_portal() as portal,
        portal.wrap_async_context_manager(
            Client(build_server(Settings.build([repo], env=dict(SAMPLE_ENV))))
        ) as client,
    ):
        yield portal, client, []


@settings(
    max_examples=1000,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(call=malformed_calls())
def test_a_thousand_malformed_calls_are_tool_errors_and_the_server_lives(
    live: tuple[Any, Any, list[float]], call: tuple[str, dict[str, Any]]
) -> None:
    portal, client, samples = live
    tool, arguments = call
    result = portal.call(client.call_tool, tool, arguments)
    assert result.is_error is True, (tool, arguments, result.content)
    samples.append(rss_mib())


def test_memory_stayed_flat_over_the_malformed_calls(live: tuple[Any, Any, list[float]]) -> None:
    portal, client, samples = live
    if len(samples) < 500:  # the calls ran in another worker, or not at all: make them here
        test_a_thousand_malformed_calls_are_tool_errors_and_the_server_lives(live)
    assert len(samples) >= 500
    assert max(samples[-100:]) - max(samples[100:200]) < 40, (samples[100], samples[-1])
    assert portal.call(client.list_tools).tools


@pytest.mark.anyio
async def test_eight_concurrent_evaluations_of_one_repository_are_all_correct(
    tmp_path: Path,
) -> None:
    repo = calc_repo(tmp_path / "calc")
    async with Client(build_server(Settings.build([repo], env=dict(SAMPLE_ENV)))) as client:
        created = await client.call_tool(
            "create_contract",
            {
                "goal": "g",
                "out_of_scope": ["x"],
                "functional": [
                    {
                        "criterion": "tests",
                        "verification_method": "test",
                        "check": pytest_check("tests"),
                    }
                ],
            },
        )
        cid = created.structured_content["contract"]["id"]
        results: list[Any] = []

        async def one() -> None:
            results.append(await client.call_tool("evaluate", {"contract_id": cid}))

        async with anyio.create_task_group() as group:
            for _ in range(8):
                group.start_soon(one)
    assert len(results) == 8 and all(r.is_error is False for r in results)
    assert all(r.structured_content["criteria"][0]["status"] == "pass" for r in results)
    assert len({r.structured_content["run_id"] for r in results}) == 8


def _hanging_processes(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if marker in Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry))
            except OSError:
                pass
    return found


@pytest.mark.anyio
async def test_a_client_that_cancels_mid_evaluate_leaves_no_process(tmp_path: Path) -> None:
    repo = calc_repo(tmp_path / "calc")
    marker = f"time.sleep({3600 + os.getpid() % 97})"
    code = (
        "import os, subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import os,"
        f" time; os.setsid(); {marker}']); {marker}"
    )
    async with Client(build_server(Settings.build([repo], env=dict(SAMPLE_ENV)))) as client:
        created = await client.call_tool(
            "create_contract",
            {
                "goal": "g",
                "out_of_scope": ["x"],
                "functional": [
                    {
                        "criterion": "hangs",
                        "verification_method": "test",
                        "check": {"kind": "command", "argv": [PY, "-c", code], "timeout_s": 600},
                    }
                ],
            },
        )
        cid = created.structured_content["contract"]["id"]
        with anyio.move_on_after(30):  # bounded: the evaluation would otherwise run for ten minutes
            async with anyio.create_task_group() as group:
                group.start_soon(client.call_tool, "evaluate", {"contract_id": cid})
                with anyio.fail_after(20):
                    while len(_hanging_processes(marker)) < 2:
                        await anyio.sleep(0.1)
                group.cancel_scope.cancel()
        with anyio.fail_after(15):
            while _hanging_processes(marker):
                await anyio.sleep(0.1)
        assert (await client.call_tool("get_contract", {"contract_id": cid})).is_error is False


@pytest.mark.anyio
async def test_the_database_stays_readable_after_the_server_is_killed_during_writes(
    repo: Path,
) -> None:
    from test_http import start

    proc, port = start(repo)
    crit = [{"criterion": "c" * 400, "verification_method": "manual"}]

    async def writer(client: Client) -> None:
        while True:
            await client.call_tool(
                "create_contract",
                {"goal": "write " * 40, "out_of_scope": ["x"], "functional": crit},
            )

    try:
        with anyio.move_on_after(20):
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                async with anyio.create_task_group() as group:
                    for _ in range(4):
                        group.start_soon(writer, client)
                    await anyio.sleep(2)
                    os.kill(proc.pid, signal.SIGKILL)  # mid-write: four writers are busy
                    await anyio.sleep(1)
                    group.cancel_scope.cancel()
    except Exception:  # the connection dies with the server; what matters is the database
        pass
    finally:
        proc.wait(10)
        if proc.stderr:
            proc.stderr.close()
    conn = sqlite3.connect(repo / ".referee" / "referee.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        count = conn.execute("SELECT COUNT(*) FROM contracts").fetchone()[0]
    finally:
        conn.close()
    assert count > 0
    listed = subprocess.run(
        [sys.executable, "-m", "referee.server.cli", "--root", str(repo), "contract", "list"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert listed.returncode == 0 and len(listed.stdout.split()) == count
