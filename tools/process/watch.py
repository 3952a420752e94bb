"""A watchdog over a running command's process tree: memory, and a sandbox held still.

Neither bubblewrap nor a plain process group limits memory, and RLIMIT_AS breaks runtimes that
reserve address space they never use (the JVM, Go, Node). So the tree is sampled from the host,
every `interval_s`: the memory it holds (memory.py: its processes' anonymous, swapped and
shared-memory pages, and what it keeps outside any mapping: memfds, its tmpfs mounts, SysV
segments; file pages on disk are the page cache's) and, in a sandbox, the state of the
sandbox's own first processes (bubblewrap's init, PID 1, and referee's inner.py, PID 2). Those
are the command's parents: a test that stops them (SIGSTOP) or attaches a tracer (ptrace) holds
the whole check still until its timeout, so that is ended at once. A violation kills the whole
tree with SIGKILL (a hog does not get a grace period to allocate more) and is said in the result.

The tree is walked from its root down through `/proc/PID/task/TID/children`, reading only its own
processes; orphans inside a sandbox are adopted by its init, so they stay in the tree.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Literal, Self

from referee.tools.process.memory import Held, MemoryCount, process_kib

__all__ = ["Killed", "Limits", "Watchdog"]

KilledCode = Literal["memory_limit", "sandbox_stopped"]
# Without CONFIG_PROC_CHILDREN the tree is found from every process's parent instead.
_CHILDREN_FILES = os.path.exists(f"/proc/self/task/{os.getpid()}/children")


@dataclass(frozen=True)
class Killed:
    """Why referee killed a command before it ended: a stable code and a sentence."""

    code: KilledCode
    message: str


@dataclass(frozen=True)
class Limits:
    """What the watchdog enforces.

    Attributes:
        memory_mb: The most memory the whole tree may hold, in MiB; None: no limit.
        sandbox_init: The tree is a sandbox whose first processes (PID 1 and 2 of its PID
            namespace) must never be stopped or traced.
        interval_s: Seconds between samples.
        folders: Host folders the tree writes into (a sandbox's upper layers, its report
            folders): their files count against the limit when they live in memory.
        reported: What the tree holds where no host process can look (a sandbox's IPC
            namespace), in KiB, as its first process reports it.
    """

    memory_mb: int | None = None
    sandbox_init: bool = False
    interval_s: float = 0.1
    folders: tuple[Path, ...] = ()
    reported: Callable[[], int] | None = None


@dataclass(frozen=True)
class _Status:
    pid: int
    state: str
    tracer: int
    nspid: tuple[int, ...]
    memory_kib: int


class Watchdog:
    """Watches the tree under `root` in a thread of its own while the block runs.

    A thread, not a task: sampling is blocking work on /proc, and a served app is watched for as
    long as the evaluation lasts, outside any task group. `killed` says why the tree was killed.
    """

    def __init__(self, root: int, limits: Limits) -> None:
        self._root, self._limits = root, limits
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"watchdog-{root}", daemon=True)
        self.killed: Killed | None = None

    def __enter__(self) -> Self:
        return self.start()

    def start(self) -> Self:
        """Start watching; `stop` (or the end of the block) ends it."""
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop watching (the tree is left alone); safe to call twice."""
        self._done.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    def _run(self) -> None:
        limits = self._limits
        count = MemoryCount(limits.folders, limits.reported) if limits.memory_mb else None
        while not self._done.wait(limits.interval_s):
            statuses = [s for pid in _tree(self._root) if (s := _status(pid)) is not None]
            held = count.held(s.pid for s in statuses) if count is not None else Held()
            killed = _violation(statuses, limits, held)
            if killed is not None:
                self.killed = killed
                for status in statuses:
                    with suppress(ProcessLookupError, PermissionError):
                        os.kill(status.pid, signal.SIGKILL)
                return


def _violation(statuses: list[_Status], limits: Limits, held: Held) -> Killed | None:
    if limits.sandbox_init:
        for status in statuses:
            if len(status.nspid) == 2 and status.nspid[1] in (1, 2):
                if reason := _held(status):
                    return Killed("sandbox_stopped", reason)
    if limits.memory_mb is not None:
        own = sum(s.memory_kib for s in statuses)
        used = own + held.total
        if used > limits.memory_mb * 1024:
            return Killed(
                "memory_limit",
                f"used more than {limits.memory_mb} MiB of memory ({used // 1024} MiB"
                f"{_where(own, held)}); raise the check's memory_mb if it needs more",
            )
    return None


def _where(own: int, held: Held) -> str:
    """Where the memory was, when not all of it was in the processes' own pages."""
    if not held.total:
        return ""
    parts = [
        (own, "in its processes"),
        (held.memfds, "in open memfds and deleted files"),
        (held.mounts, "in its tmpfs mounts"),
        (held.folders, "in files written in memory"),
        (held.reported, "in SysV shared memory and message queues"),
    ]
    return ": " + ", ".join(f"{kib // 1024} MiB {what}" for kib, what in parts if kib >= 1024)


def _held(status: _Status) -> str | None:
    which = "init (bubblewrap, PID 1)" if status.nspid[1] == 1 else "first process (PID 2)"
    if status.tracer:
        return f"the sandbox's {which} was traced (ptrace) by another process"
    if status.state in ("T", "t"):
        return f"the sandbox's {which} was stopped (SIGSTOP, or a tracer)"
    return None


def _tree(root: int) -> Iterator[int]:
    """The root and every descendant still alive (a process may end while it is read)."""
    pending = [root]
    seen: set[int] = set()
    while pending:
        pid = pending.pop()
        if pid in seen:
            continue
        seen.add(pid)
        yield pid
        pending.extend(_children(pid))


def _children(pid: int) -> list[int]:
    if not _CHILDREN_FILES:
        return _children_by_parent(pid)
    found: list[int] = []
    with suppress(OSError):
        for task in os.scandir(f"/proc/{pid}/task"):
            with suppress(OSError), open(f"{task.path}/children", encoding="ascii") as handle:
                found.extend(int(child) for child in handle.read().split())
    return found


def _children_by_parent(pid: int) -> list[int]:
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with suppress(OSError, IndexError, ValueError):
                with open(f"/proc/{entry.name}/stat", encoding="utf-8", errors="replace") as f:
                    # The command name may hold spaces and parentheses: fields follow the last ')'.
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry.name))
    return found


def _status(pid: int) -> _Status | None:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8", errors="replace") as handle:
            fields = dict(line.split(":", 1) for line in handle if ":" in line)
    except OSError:
        return None
    return _Status(
        pid=pid,
        state=fields.get("State", "?").split()[0] if fields.get("State") else "?",
        tracer=_int(fields.get("TracerPid", "0")),
        nspid=tuple(_int(p) for p in fields.get("NSpid", "").split()),
        memory_kib=process_kib(fields),
    )


def _int(value: str) -> int:
    try:
        return int(value.strip())
    except ValueError:
        return 0
