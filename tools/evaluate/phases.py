"""Hold-out runs alone: an evaluation's hidden checks run after every visible one has ended.

The code under test runs in the hold-out's run too, where it can read the hidden test. Whatever it
learns must have nowhere to go: its own outputs are the evaluator's only (aggregate/holdouts.py),
and no run whose outputs the generator sees may be alive at the same time to receive it. Every
sandbox shows the host's files from the same inodes, so two sandboxes running at once can always
talk (a byte-range lock on the interpreter read back with F_GETLK, inotify on a shared file, the
machine's thread count in /proc/loadavg, CPU and memory pressure): no list of such channels is
ever complete, so the boundary is time. An evaluation runs in two phases:

1. visible: every visible check, the static pipeline, tamper detection and the perturbed reruns of
   the visible tests; then the served app, its private network and its browser are stopped;
2. hidden: the hold-out checks (with a served app of their own, whose log is the evaluator's),
   then the perturbed reruns of the hidden tests.

Nothing of the hidden phase outlives it: each sandbox's processes, /tmp, /dev/shm, IPC and
network namespaces and overlay die with it, and a lock dies with the process that held it.

One server runs several evaluations at once: `PhaseGate` keeps every hidden phase alone among
them, as well (a hidden phase waits until no visible phase is running, and no visible phase
starts while one waits or runs), and runs one command of the generator's at a time among all of
them (`command`): within an evaluation, runs that are compared never overlap (evaluate/run.py),
and a run of another evaluation of the same change must not stand in for the other side of a
channel either. Evaluations of other processes on the same machine are not ordered
(docs/safety.md).
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

__all__ = ["PhaseGate"]

_POLL_S = 0.05


class PhaseGate:
    """Visible phases run side by side; a hidden phase runs with no other phase at all.

    Thread-safe and bound to no event loop: one gate serves a whole server process.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._visible = 0
        self._hidden = False
        self._waiting = 0  # hidden phases asking: no new visible phase starts meanwhile
        self._command = threading.Lock()

    @asynccontextmanager
    async def visible(self) -> AsyncIterator[None]:
        """Hold a visible phase for the block."""
        while not self._enter(hidden=False):
            await anyio.sleep(_POLL_S)
        try:
            yield
        finally:
            with self._lock:
                self._visible -= 1

    @asynccontextmanager
    async def hidden(self) -> AsyncIterator[None]:
        """Hold a hidden phase for the block: alone among every phase of the gate."""
        with self._lock:
            self._waiting += 1
        try:
            while not self._enter(hidden=True):
                await anyio.sleep(_POLL_S)
        finally:
            with self._lock:
                self._waiting -= 1
        try:
            yield
        finally:
            with self._lock:
                self._hidden = False

    @asynccontextmanager
    async def command(self) -> AsyncIterator[None]:
        """Hold the server's one slot for a command of the generator's, for the block."""
        while not self._command.acquire(blocking=False):
            await anyio.sleep(_POLL_S)
        try:
            yield
        finally:
            self._command.release()

    @property
    def busy(self) -> bool:
        """Whether any phase is running."""
        with self._lock:
            return self._hidden or self._visible > 0

    @property
    def waiting(self) -> int:
        """How many hidden phases are waiting for the others to end."""
        with self._lock:
            return self._waiting

    def _enter(self, *, hidden: bool) -> bool:
        with self._lock:
            if self._hidden:
                return False
            if hidden:
                if self._visible:
                    return False
                self._hidden = True
                return True
            if self._waiting:
                return False
            self._visible += 1
            return True
