"""The watchdog and the private network, on real processes: a tree above its memory limit is
killed whatever process holds the memory, and wherever it keeps it (mapped or not); a private
network reaches only itself."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from referee.tools.process import Limits, run_process
from referee.tools.sandbox import sandbox_support
from referee.tools.sandbox.gauge import Gauge
from referee.tools.sandbox.inner import ipc_kib
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


MEMFD_HOG = (
    "import os, time\nfd = os.memfd_create('hog')\n"
    "for _ in range(256):\n    os.write(fd, b'x' * (1 << 20))\nprint('held', flush=True)\n"
    "time.sleep(30)\n"
)
SPARSE_MEMFD = (
    "import os\nfd = os.memfd_create('sparse')\nos.ftruncate(fd, 1 << 34)\nprint('sized')\n"
)


async def test_a_memfd_nothing_maps_counts_against_the_limit(tmp_path: Path) -> None:
    result = await run(MEMFD_HOG, tmp_path, Limits(memory_mb=64))
    assert result.killed is not None and result.killed.code == "memory_limit"
    assert "in open memfds and deleted files" in result.killed.message


async def test_a_memfd_counts_what_it_holds_not_its_size(tmp_path: Path) -> None:
    result = await run(SPARSE_MEMFD, tmp_path, Limits(memory_mb=64))
    assert result.killed is None and result.exit_code == 0


@pytest.fixture
def in_memory() -> Iterator[Path]:
    """A folder on a tmpfs (the host's /dev/shm), as a host whose temporary folder is one."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or shutil.disk_usage(shm).free < 1 << 30:
        pytest.skip("no tmpfs with 1 GiB free at /dev/shm")
    folder = Path(tempfile.mkdtemp(prefix="referee-test-", dir=shm))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _writes(path: Path, *, deleted: bool = False) -> str:
    unlink = f"os.unlink({str(path)!r})\n" if deleted else ""
    return (
        f"import os, time\nf = open({str(path)!r}, 'wb')\n{unlink}"
        "for _ in range(256):\n    f.write(b'x' * (1 << 20))\nf.flush()\n"
        "print('held', flush=True)\ntime.sleep(30)\n"
    )


@pytest.mark.parametrize("deleted", [False, True], ids=["a file", "a deleted file held open"])
async def test_files_in_a_watched_folder_count_when_it_lives_in_memory(
    in_memory: Path, tmp_path: Path, deleted: bool
) -> None:
    code = _writes(in_memory / "hog", deleted=deleted)
    result = await run(code, tmp_path, Limits(memory_mb=64, folders=(in_memory,)))
    assert result.killed is not None and result.killed.code == "memory_limit"


async def test_files_in_a_watched_folder_on_disk_are_not_memory(tmp_path: Path) -> None:
    folder = tmp_path / "written"
    folder.mkdir()
    code = _writes(folder / "hog", deleted=True).replace("time.sleep(30)", "time.sleep(0.5)")
    result = await run(code, tmp_path, Limits(memory_mb=64, folders=(folder,)))
    assert result.killed is None and result.exit_code == 0


async def test_what_the_sandbox_reports_of_its_ipc_namespace_counts(tmp_path: Path) -> None:
    code = "import time\ntime.sleep(30)\n"
    result = await run(code, tmp_path, Limits(memory_mb=64, reported=lambda: 300 * 1024))
    assert result.killed is not None
    assert "300 MiB in SysV shared memory and message queues" in result.killed.message


def test_the_gauge_hands_over_the_last_whole_figure() -> None:
    with Gauge() as gauge:
        assert gauge.kib() == 0
        os.write(gauge.fd, b"12\n345\n67")
        assert gauge.kib() == 345
        os.write(gauge.fd, b"8\n")
        assert gauge.kib() == 678


@pytest.mark.skipif(not sandbox_support().available, reason="no user namespaces here")
def test_the_ipc_figure_is_what_the_namespace_holds() -> None:
    segment = (
        "import ctypes, sys\nsys.path.insert(0, sys.argv[1])\nfrom inner import ipc_kib\n"
        "libc = ctypes.CDLL(None, use_errno=True); libc.shmat.restype = ctypes.c_void_p\n"
        "before = ipc_kib()\nsid = libc.shmget(0, ctypes.c_size_t(8 << 20), 0o1600)\n"
        "addr = libc.shmat(sid, None, 0); ctypes.memset(addr, 1, 8 << 20)\n"
        "libc.shmdt(ctypes.c_void_p(addr))\nprint(before, ipc_kib())\n"
    )
    folder = str(Path(ipc_kib.__code__.co_filename).parent)
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--ipc", PY, "-c", segment, folder],
        capture_output=True,
        encoding="utf-8",
        check=True,
    )
    assert done.stdout.split() == ["0", str(8 * 1024)]


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
