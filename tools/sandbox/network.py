"""An evaluation's private network: the served app and the browser that drives it, alone.

The served app is the generator's code, and a network is a channel: on the host's network it
reaches every service listening on the host's loopback (databases, other servers, referee's own
HTTP transport), by TCP, UDP or abstract unix sockets (those belong to a network namespace too).
So `serve` runs in a network namespace of its own, made once per evaluation, with nothing in it
but `lo`; the browser is launched into the same namespace, which is how it still reaches the app
on loopback. Playwright drives Chromium over pipes, which cross namespaces.

The namespace is held by a small process of referee's (holder.py) under `unshare --user
--map-root-user --net`: a user namespace, so no privilege is needed. Others join it with
`nsenter --target PID --user --net --preserve-credentials`; the sandbox's own user, mount and
PID namespaces are then made inside it as usual. referee itself stays on the host's network, so
to poll the app it asks the holder for sockets made inside the namespace (passed over a unix
socket) and connects those.
"""

from __future__ import annotations

import os
import shlex
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path

import anyio
import anyio.to_thread
from anyio.abc import Process

__all__ = ["NetworkUnavailable", "PrivateNetwork", "private_network"]

_HOLDER = Path(__file__).with_name("holder.py")
_START_TIMEOUT_S = 10.0
_STOP_TIMEOUT_S = 5.0


class NetworkUnavailable(Exception):
    """The private network could not be made here; the message says why."""


class PrivateNetwork:
    """A running network namespace: how to enter it, and sockets from inside it.

    Args:
        pid: The holder's PID (the namespace lives as long as it does, or anything inside).
        nsenter: util-linux's nsenter.
        control: referee's end of the holder's control socket.
    """

    def __init__(self, pid: int, nsenter: str, control: socket.socket) -> None:
        self.pid, self._nsenter, self._control = pid, nsenter, control
        self._lock = threading.Lock()  # one request at a time: replies carry no request id

    @property
    def enter(self) -> tuple[str, ...]:
        """The argv prefix that runs a program inside the namespace."""
        return (
            self._nsenter,
            f"--target={self.pid}",
            "--user",
            "--net",
            "--preserve-credentials",
            "--",
        )

    def connect(
        self,
        address: tuple[str, int],
        timeout: float | None = None,
        source_address: tuple[str, int] | None = None,
    ) -> socket.socket:
        """`socket.create_connection`, from inside the namespace (blocking: call from a thread).

        Raises:
            OSError: no address of the host accepted a connection.
        """
        del source_address  # the namespace has loopback only
        host, port = address
        last: OSError = OSError(f"cannot resolve {host!r}")
        for family, _, _, _, target in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
            sock = self._socket(family)
            try:
                sock.settimeout(timeout)
                sock.connect(target)
                return sock
            except OSError as exc:
                sock.close()
                last = exc
        raise last

    def wrapper(self, executable: str, folder: Path) -> Path:
        """An executable script in `folder` that runs `executable` inside the namespace."""
        script = folder / f"in-network-{self.pid}"
        line = shlex.join([*self.enter, executable])
        script.write_text(f'#!/bin/sh\nexec {line} "$@"\n', encoding="utf-8")
        script.chmod(stat.S_IRWXU)
        return script

    def _socket(self, family: int) -> socket.socket:
        code = {int(socket.AF_INET): b"4", int(socket.AF_INET6): b"6"}.get(int(family))
        if code is None:
            raise OSError(f"address family {family} is not served by the private network")
        with self._lock:
            self._control.sendall(code)
            message, fds, _, _ = socket.recv_fds(self._control, 16, 1)
        if message != b"ok" or not fds:
            for fd in fds:
                os.close(fd)
            raise OSError(f"the private network has no socket of family {family}")
        return socket.socket(fileno=fds[0])


@asynccontextmanager
async def private_network(unshare: str, nsenter: str) -> AsyncIterator[PrivateNetwork]:
    """Make a private network namespace for the duration of a block.

    Raises:
        NetworkUnavailable: user or network namespaces are not allowed, or the holder failed.
    """
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    argv = [unshare, "--user", "--map-root-user", "--net", "--", sys.executable, "-I", "-S"]
    try:
        process = await _start([*argv, str(_HOLDER)], theirs)
    finally:
        theirs.close()
    try:
        await _wait_up(process, ours)
        yield PrivateNetwork(process.pid, nsenter, ours)
    finally:
        with anyio.CancelScope(shield=True):
            ours.close()  # the holder exits on EOF
            await _stop(process)


async def _start(argv: list[str], control: socket.socket) -> Process:
    try:
        return await anyio.open_process(
            argv,
            stdin=control.fileno(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise NetworkUnavailable(f"the network holder could not start: {exc}") from exc


async def _wait_up(process: Process, control: socket.socket) -> None:
    with anyio.move_on_after(_START_TIMEOUT_S):
        said = await anyio.to_thread.run_sync(control.recv, 256, abandon_on_cancel=True)
        if said == b"up":
            return
        detail = said.decode("utf-8", "replace") or await _stderr(process)
        raise NetworkUnavailable(f"no private network namespace: {detail}")
    raise NetworkUnavailable(f"the network holder did not start within {_START_TIMEOUT_S:g} s")


async def _stderr(process: Process) -> str:
    with anyio.move_on_after(1.0):
        await process.wait()
    if process.stderr is None:
        return f"exit code {process.returncode}"
    with anyio.move_on_after(1.0), suppress(anyio.EndOfStream, anyio.ClosedResourceError):
        lines = (await process.stderr.receive()).decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else f"exit code {process.returncode}"
    return f"exit code {process.returncode}"


async def _stop(process: Process) -> None:
    with anyio.move_on_after(_STOP_TIMEOUT_S):
        await process.wait()
    if process.returncode is None:
        with suppress(ProcessLookupError):
            process.kill()
        await process.wait()
    await process.aclose()
