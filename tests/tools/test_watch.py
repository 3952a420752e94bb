"""The watchdog and the private network, on real processes: a tree above its memory limit is
killed whatever process holds the memory; a private network reaches only itself."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import anyio
import pytest

from referee.tools.process import Limits, run_process
from referee.tools.sandbox import sandbox_support
from referee.tools.sandbox.network import private_network

pytestmark = pytest.mark.anyio
PY = sys.executable
GRANDCHILD_HOG = (
    "import subprocess, sys, time\n"
    "subprocess.Popen([sys.executable, '-c',"
    " 'import time; b = b\"x\" * (300 * 1024 * 1024); time.sleep(60)'])\n"
    "time.sleep(60)\n"
)


async def run(code: str, tmp_path: Path, limits: Limits | None):
    return await run_process(
        [PY, "-c", code],
        cwd=tmp_path,
        timeout_s=60,
        stdout_path=tmp_path / "out",
        stderr_path=tmp_path / "err",
        limits=limits,
    )


async def test_a_grandchild_above_the_limit_gets_the_whole_tree_killed(tmp_path: Path) -> None:
    result = await run(GRANDCHILD_HOG, tmp_path, Limits(memory_mb=128))
    assert result.killed is not None and result.killed.code == "memory_limit"
    assert result.killed.message.startswith("used more than 128 MiB of memory")
    assert result.timed_out is False and result.exit_code == -9


async def test_without_limits_or_below_them_nothing_is_killed(tmp_path: Path) -> None:
    small = "b = b'x' * (16 * 1024 * 1024); print(len(b))"
    assert (await run(small, tmp_path, Limits(memory_mb=512))).killed is None
    assert (await run(small, tmp_path, None)).exit_code == 0


async def test_a_stopped_process_outside_a_sandbox_is_left_to_the_timeout(tmp_path: Path) -> None:
    # Only a sandbox's own first processes are guarded: on the host a stop is the command's own
    # business, like any hang.
    code = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c',"
        " 'import os, signal; os.kill(os.getpid(), signal.SIGSTOP)'])\n"
        "time.sleep(0.5); child.kill(); child.wait()\n"
    )
    result = await run(code, tmp_path, Limits(sandbox_init=True))
    assert result.killed is None and result.exit_code == 0


@pytest.mark.slow
@pytest.mark.skipif(not sandbox_support().available, reason="no user namespaces here")
async def test_a_private_network_reaches_only_itself() -> None:
    with socket.socket() as host:
        host.bind(("127.0.0.1", 0))
        host.listen()
        port = host.getsockname()[1]
        async with private_network("unshare", "nsenter") as network:
            with pytest.raises(ConnectionRefusedError):
                network.connect(("127.0.0.1", port), 1)
            inside = await anyio.open_process(
                [*network.enter, PY, "-m", "http.server", str(port), "--bind", "::"]
            )
            try:
                with anyio.fail_after(20):
                    while True:
                        try:
                            reached = network.connect(("localhost", port), 1)
                            break
                        except ConnectionRefusedError:
                            await anyio.sleep(0.05)
                with reached:
                    reached.sendall(b"GET / HTTP/1.0\r\n\r\n")
                    assert reached.recv(12) == b"HTTP/1.0 200"
            finally:
                inside.kill()
                await inside.wait()
                await inside.aclose()
