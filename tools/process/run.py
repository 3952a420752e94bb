"""Run commands so that nothing is left running.

A command runs in a session of its own, stdin on /dev/null, stdout and stderr in files (a grandchild
holding a pipe would keep a reader waiting for EOF), with a cookie ``REFEREE_RUN_ID=<id>`` in its
environment. When it ends, times out or the caller is cancelled, the process group *and* every
process carrying the cookie (grandchildren that called ``setsid()`` or double-forked) get SIGTERM,
then SIGKILL after ``grace_s``, and the child is reaped. A run inside a referee-run command appends
its id to the outer one (``outer:inner``), so the outer cleanup still finds everything.

Limits: a process that leaves the group *and* re-execs with an empty environment escapes both nets.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import ExitStack, asynccontextmanager, nullcontext, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import anyio
from anyio.abc import Process

from referee.tools.process.watch import Killed, Limits, Watchdog

__all__ = [
    "COOKIE",
    "BackgroundProcess",
    "ProcessResult",
    "background_process",
    "command_line",
    "effective_argv",
    "run_process",
    "tagged_pids",
]

COOKIE = "REFEREE_RUN_ID"
_POLL_S = 0.02
_REAP_LIMIT_S = 5.0


@dataclass(frozen=True)
class ProcessResult:
    """What happened when a command ran.

    ``exit_code`` is negative when a signal ended the process (-15 SIGTERM, -9 SIGKILL) and None
    when it never started; ``error`` then says why. ``stray_processes`` counts processes other than
    the command itself that were still running when it ended or timed out (all were stopped).
    """

    argv: tuple[str, ...]
    cwd: Path
    exit_code: int | None
    timed_out: bool
    duration_s: float
    started_at: str
    stdout_path: Path
    stderr_path: Path
    error: str | None = None
    run_id: str = ""
    stray_processes: int = 0
    killed: Killed | None = None
    """Why referee killed it before it ended (a memory limit, a stopped sandbox), if it did."""


def command_line(argv: Sequence[str]) -> str:
    """The argv as one shell-quoted line, for people and evidence."""
    return shlex.join(argv)


def child_env(env: Mapping[str, str] | None, run_id: str) -> dict[str, str]:
    """The environment a child gets: ours, the caller's variables on top, and the run cookie.

    This is the one place referee reads ``os.environ``: a command needs PATH, HOME and the locale
    just as it would in a shell, and the check's own ``env`` overrides them. referee's own
    variables (REFEREE_HOME, REFEREE_KEY, REFEREE_STORE_URL …) never reach the evaluated code, nor
    libpq's (PGPASSWORD, PGHOST, PGSERVICEFILE …: they would hand a test the team store's
    database); only the run cookie does, so that a referee run inside a check is still cleaned up
    by the outer one.
    """
    ours = {k: v for k, v in os.environ.items() if not _secret(k) or k == COOKIE}
    merged = {**ours, **(env or {})}
    outer = merged.get(COOKIE)
    merged[COOKIE] = f"{outer}:{run_id}" if outer else run_id
    return merged


def _secret(name: str) -> bool:
    return name.startswith(("REFEREE_", "PG"))


def tagged_pids(run_id: str) -> list[int]:
    """Live processes whose environment carries ``run_id`` in the cookie (zombies have none)."""
    prefix, wanted = f"{COOKIE}=".encode(), run_id.encode()
    return [
        int(entry.name)
        for entry in os.scandir("/proc")
        if entry.name.isdigit() and _carries(f"/proc/{entry.name}/environ", prefix, wanted)
    ]


def _carries(environ_path: str, prefix: bytes, wanted: bytes) -> bool:
    try:
        with open(environ_path, "rb") as handle:
            data = handle.read()
    except OSError:  # gone meanwhile, or another user's process
        return False
    return any(
        var.startswith(prefix) and wanted in var[len(prefix) :].split(b":")
        for var in data.split(b"\0")
    )


def effective_argv(argv: Sequence[str], shell: bool) -> tuple[str, ...]:
    # With shell=True the items are pieces of one command line, joined by
    # spaces, so shell syntax in them (&&, |, $VAR, globs) works as written;
    # quoting is the contract author's job. A single item is the script itself.
    if not shell:
        return tuple(argv)
    return ("/bin/sh", "-c", " ".join(argv))


def _cwd_problem(cwd: Path) -> str | None:
    if not cwd.exists():
        return f"working directory '{cwd}' does not exist"
    if not cwd.is_dir():
        return f"working directory '{cwd}' is not a directory"
    return None


def _start_problem(exc: OSError, program: str, cwd: Path) -> str:
    if isinstance(exc, NotADirectoryError) or exc.filename == os.fspath(cwd):
        return f"working directory '{cwd}' is not usable: {exc.strerror}"
    if isinstance(exc, FileNotFoundError):
        return (
            f"runner '{program}' not found (not on PATH, no such file, or its interpreter is"
            " missing)"
        )
    if isinstance(exc, PermissionError):
        return f"runner '{program}' cannot be executed: permission denied"
    return f"runner '{program}' could not start: {exc.strerror or exc}"


async def _launch(
    argv: tuple[str, ...],
    cwd: Path,
    env: Mapping[str, str],
    stdout_path: Path,
    stderr_path: Path,
    pass_fds: Sequence[int] = (),
) -> Process | str:
    """Start the command with output going to the two files; a string says why it could not
    start."""
    with ExitStack() as files:  # the child holds its own copies; ours close once it has started
        stdout = files.enter_context(stdout_path.open("wb"))  # created even when nothing starts
        same = os.path.abspath(stdout_path) == os.path.abspath(stderr_path)
        stderr = stdout if same else files.enter_context(stderr_path.open("wb"))
        if not argv or not argv[0]:
            return "empty command: argv has no program"
        if problem := _cwd_problem(cwd):
            return problem
        try:
            return await anyio.open_process(
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,
                pass_fds=pass_fds,
            )
        except OSError as exc:
            return _start_problem(exc, argv[0], cwd)


def _signal_all(pgid: int, run_id: str, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
    for pid in tagged_pids(run_id):
        with suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


async def _wait_gone(process: Process, run_id: str, limit_s: float) -> None:
    with anyio.move_on_after(limit_s):
        while process.returncode is None or tagged_pids(run_id):
            await anyio.sleep(_POLL_S)


async def _stop(process: Process, run_id: str, grace_s: float) -> int:
    """Stop the group and every tagged process, reap the child; returns how many strays there
    were."""
    with anyio.CancelScope(shield=True):  # cleanup must finish even when the caller is cancelled
        strays = [pid for pid in tagged_pids(run_id) if pid != process.pid]
        _signal_all(process.pid, run_id, signal.SIGTERM)
        await _wait_gone(process, run_id, grace_s)
        _signal_all(process.pid, run_id, signal.SIGKILL)
        with anyio.move_on_after(_REAP_LIMIT_S):
            await process.wait()
        await _wait_gone(process, run_id, _REAP_LIMIT_S)  # killed non-children die asynchronously
        await process.aclose()
    return len(strays)


def _utc_now() -> str:
    return datetime.now(UTC).isoformat()


async def _start(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str] | None,
    shell: bool,
    stdout_path: Path,
    stderr_path: Path,
    pass_fds: Sequence[int] = (),
) -> tuple[tuple[str, ...], str, Process | str]:
    run_id = uuid.uuid4().hex
    command = effective_argv(argv, shell)
    with anyio.CancelScope(shield=True):  # starting is quick; once started, it must be stopped
        launched = await _launch(
            command, cwd, child_env(env, run_id), stdout_path, stderr_path, pass_fds
        )
    return command, run_id, launched


async def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    timeout_s: float,
    stdout_path: Path,
    stderr_path: Path,
    env: Mapping[str, str] | None = None,
    shell: bool = False,
    grace_s: float = 2.0,
    limits: Limits | None = None,
    pass_fds: Sequence[int] = (),
) -> ProcessResult:
    """Run a command to completion or timeout, leaving nothing running.

    Args:
        argv: Program and arguments. With ``shell=True`` they are joined by spaces and run by
            ``/bin/sh -c`` (one item is the script itself).
        cwd: Working directory.
        timeout_s: Seconds before the whole process tree is stopped.
        stdout_path: File that receives stdout (created or truncated). May equal ``stderr_path``.
        stderr_path: File that receives stderr.
        env: Variables set on top of this process's environment.
        shell: Run through ``/bin/sh -c``.
        grace_s: Seconds between SIGTERM and SIGKILL.
        limits: What a watchdog enforces while it runs (memory, a sandbox held still); a
            violation kills the tree and is said in ``killed``.
        pass_fds: Descriptors the child keeps (a sandbox's report pipe).

    Returns:
        The result; a command that could not start has ``exit_code=None`` and ``error`` set.
        Cancellation from outside stops the process tree and then propagates.
    """
    started_at, began = _utc_now(), time.monotonic()
    command, run_id, launched = await _start(
        argv, cwd, env, shell, stdout_path, stderr_path, pass_fds
    )
    if isinstance(launched, str):
        return ProcessResult(
            command,
            cwd,
            None,
            False,
            0.0,
            started_at,
            stdout_path,
            stderr_path,
            error=launched,
            run_id=run_id,
        )
    timed_out = False
    watchdog = Watchdog(launched.pid, limits) if limits is not None else None
    try:
        with anyio.move_on_after(timeout_s) as scope, watchdog or nullcontext():
            await launched.wait()
        timed_out = scope.cancelled_caught
    finally:
        strays = await _stop(launched, run_id, grace_s)
    return ProcessResult(
        command,
        cwd,
        launched.returncode,
        timed_out,
        _since(began),
        started_at,
        stdout_path,
        stderr_path,
        run_id=run_id,
        stray_processes=strays,
        killed=watchdog.killed if watchdog is not None else None,
    )


@dataclass(eq=False)
class BackgroundProcess:
    """A long-running command (a contract's ``serve``), started like ``run_process``.

    Use it through ``background_process``, which stops it on the way out. ``error`` says why it
    never started; ``stray_processes`` is set once it is stopped, and ``stopped_by_us`` says
    whether it was still running then (False: it had exited on its own).
    """

    argv: tuple[str, ...]
    cwd: Path
    stdout_path: Path
    stderr_path: Path
    run_id: str
    error: str | None = None
    stray_processes: int = 0
    stopped_by_us: bool = False
    _process: Process | None = field(default=None, repr=False)
    _stopped: bool = field(default=False, repr=False)
    _watchdog: Watchdog | None = field(default=None, repr=False)

    @property
    def killed(self) -> Killed | None:
        """Why referee killed it (a memory limit, a stopped sandbox), if it did."""
        return None if self._watchdog is None else self._watchdog.killed

    @property
    def pid(self) -> int | None:
        """The child's PID (also its process group id), None when it never started."""
        return None if self._process is None else self._process.pid

    @property
    def returncode(self) -> int | None:
        """The exit code once the process has ended, else None."""
        return None if self._process is None else self._process.returncode

    @property
    def running(self) -> bool:
        """True while the command has started and not yet exited."""
        return self._process is not None and self._process.returncode is None

    def not_running_reason(self) -> str | None:
        """Why the command is not running (never started, exited), or None while it runs."""
        if self.error is not None:
            return self.error
        if self.running:
            return None
        if self.killed is not None:
            return f"'{self.argv[0]}' was killed: {self.killed.message}"
        return f"'{self.argv[0]}' exited with code {self.returncode} before it was ready"

    async def stop(self, grace_s: float = 2.0) -> None:
        """Stop the process group and every tagged process; safe to call twice."""
        if self._process is None or self._stopped:
            return
        self._stopped = True
        self.stopped_by_us = self.running
        if self._watchdog is not None:
            self._watchdog.stop()
        self.stray_processes = await _stop(self._process, self.run_id, grace_s)


@asynccontextmanager
async def background_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    stdout_path: Path,
    stderr_path: Path,
    env: Mapping[str, str] | None = None,
    shell: bool = False,
    grace_s: float = 2.0,
    limits: Limits | None = None,
    pass_fds: Sequence[int] = (),
) -> AsyncIterator[BackgroundProcess]:
    """Start a server for the duration of a block; it is stopped however the block ends.

    Arguments are those of ``run_process``, without a timeout: the block decides how long it runs.

    Yields:
        The process; when it could not start, ``error`` says why and ``running`` is False.
    """
    command, run_id, launched = await _start(
        argv, cwd, env, shell, stdout_path, stderr_path, pass_fds
    )
    proc = BackgroundProcess(
        command,
        cwd,
        stdout_path,
        stderr_path,
        run_id,
        error=launched if isinstance(launched, str) else None,
        _process=None if isinstance(launched, str) else launched,
    )
    if proc._process is not None and limits is not None:
        proc._watchdog = Watchdog(proc._process.pid, limits).start()
    try:
        yield proc
    finally:
        await proc.stop(grace_s)


def _since(began: float) -> float:
    return round(time.monotonic() - began, 3)
