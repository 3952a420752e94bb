"""Streamable HTTP: loopback by default, a token required elsewhere, Host checks."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(repo: Path, *extra: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "referee.server.cli",
            "--root",
            str(repo),
            "serve",
            "--http",
            "--port",
            str(port),
            *extra,
        ],
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30  # a cold interpreter imports the SDK first
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            if proc.poll() is not None:
                message = proc.stderr.read().decode() if proc.stderr else "server exited"
                stop(proc)
                raise RuntimeError(message) from None
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("server did not start")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    proc.wait(10)
    if proc.stderr:
        proc.stderr.close()


@pytest.fixture
def server(repo: Path) -> Iterator[int]:
    proc, port = start(repo)
    yield port
    stop(proc)


async def test_http_client_lists_and_calls_tools(server: int) -> None:
    async with Client(f"http://127.0.0.1:{server}/mcp") as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"create_contract", "evaluate"} <= names
        result = await client.call_tool(
            "create_contract",
            {"goal": "g", "functional": [{"criterion": "x", "verification_method": "manual"}]},
        )
        assert result.is_error is False


def test_foreign_host_header_is_refused(server: int) -> None:
    ok = httpx2.post(f"http://127.0.0.1:{server}/mcp", json=INIT, headers=HEADERS)
    assert ok.status_code == 200
    bad = httpx2.post(
        f"http://127.0.0.1:{server}/mcp", json=INIT, headers={**HEADERS, "Host": "evil.example"}
    )
    assert bad.status_code == 421


def test_binding_beyond_loopback_needs_a_token(repo: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "referee.server.cli",
            "--root",
            str(repo),
            "serve",
            "--http",
            "--host",
            "0.0.0.0",
            "--port",
            str(free_port()),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--token" in done.stderr


async def test_a_token_is_required_when_given(repo: Path) -> None:
    proc, port = start(repo, "--host", "0.0.0.0", "--token", "s3cret-token")
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        assert httpx2.post(url, json=INIT, headers=HEADERS).status_code == 401
        wrong = httpx2.post(url, json=INIT, headers={**HEADERS, "Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        async with httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret-token"}) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                assert (await client.list_tools()).tools
    finally:
        stop(proc)
