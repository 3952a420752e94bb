"""The contract's `serve`: the app under test, started once for all browser checks of a run.

In a sandbox it runs in the evaluation's private network (sandbox/network.py), which the browser
joins: the generator's app reaches nothing but its own loopback, and two evaluations may serve on
the same port at once. Where no private network can be made (no sandbox, or the server lets the
browser reach other hosts with --allow-host), it shares the host's network, and its evidence
says so and why. There, before it starts, its port must be free: otherwise the readiness poll
would be answered by another server and every browser check would judge the wrong app (the
criteria are `unscored`, `port_in_use`). While checks run it is watched: once it has exited,
browser checks are `unscored` (`serve_exited`) with its exit code and the last lines it printed
(`memory_limit`, `sandbox_stopped` when referee's watchdog killed it; unless a hidden check drives
the app too: then they are the evaluator's only). Its whole output is kept as evidence in every
run, recorded when it is stopped.
"""

from __future__ import annotations

import time
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import anyio.to_thread

from referee.tools.evidence.recorder import read_log
from referee.tools.graders.base import GradeContext, ServeState, working_dir
from referee.tools.models.checks import Serve
from referee.tools.models.common import ReasonCode
from referee.tools.process import (
    BackgroundProcess,
    Command,
    Killed,
    Network,
    command_line,
    port_in_use,
    wait_for_url,
)
from referee.tools.repo import TreeView

__all__ = ["ServeState", "exit_problem", "gone_code", "private_network", "start_serve"]

_TAIL_LINES = 8
_TAIL_CHARS = 800
_EXIT_GRACE_S = 0.5


async def start_serve(
    ctx: GradeContext,
    stack: AsyncExitStack,
    *,
    view: TreeView | None = None,
    network: Network | str | None = None,
) -> ServeState:
    """Start the contract's app and wait until its URL answers; `stack` stops its process group.

    Args:
        ctx: The evaluation's context (contract, tree, recorder).
        stack: Closed when the evaluation ends; the served process group is stopped then, and its
            output recorded as evidence.
        view: Another tree to serve at the repository's path (the base commit's); None: the
            evaluated tree.
        network: The network to serve in; None: the evaluation's (`ctx.network()`).

    Returns:
        The base URL browser checks join their paths to, or the problem that stopped the app.
    """
    serve = ctx.contract.serve
    if serve is None:
        return ServeState(base_url=None)
    cwd = working_dir(ctx, serve.cwd)
    if cwd is None:
        return ServeState(None, f"serve.cwd {serve.cwd!r} is outside the repository")
    if network is None:
        network = await ctx.network()
    private = network if not isinstance(network, str) else None
    # In a private network nothing else can hold the port; on the host's, another app might.
    if private is None and (busy := await anyio.to_thread.run_sync(port_in_use, serve.url)):
        item = ctx.recorder.record(tool="serve", summary=busy, command=command_line(serve.argv))
        return ServeState(serve.url, busy, ReasonCode.PORT_IN_USE, [item.id])
    hidden = ctx.serves_holdout
    state = ServeState(
        base_url=serve.url,
        evidence_ids=[ctx.recorder.next_id()],
        holdout=hidden,
        network=private,
        network_note=network if isinstance(network, str) else "",
        command=command_line(serve.argv),
        at_base=view is not None,
    )
    log = _ServeLog(ctx, serve, state)
    stack.push_async_callback(log.record)  # runs after the process below is stopped
    command = _command(ctx, serve, cwd, private, view)
    state.process = await stack.enter_async_context(ctx.background(command))
    ready = await wait_for_url(
        serve.url, serve.ready_timeout_s, state.process, private.connect if private else None
    )
    log.ready_s = ready.elapsed_s if ready.ready else None
    if not ready.ready:
        # The process is the sandbox's wrapper: its name is not what the contract runs.
        if state.process.running or state.process.error is not None:
            why = f"{ready.reason}{_said(state.process)}"
        else:
            why = _gone(state)
        app = "the base commit's app" if view is not None else "the app"
        state.problem = f"{app} never became ready at {serve.url}: {why}"
        state.code = gone_code(state) if state.process.killed else ReasonCode.SERVE_FAILED
    return state


def _command(
    ctx: GradeContext, serve: Serve, cwd: Path, network: Network | None, view: TreeView | None
) -> Command:
    return ctx.command(
        serve.argv,
        cwd=cwd,
        label="serve-base" if view is not None else "serve",
        view=view,
        env=ctx.env_for(serve.env),
        shell=serve.shell,
        memory_mb=serve.memory_mb,
        enter_network=network.enter if network else (),
        holdout=ctx.serves_holdout,
    )


async def private_network(ctx: GradeContext, stack: AsyncExitStack) -> Network | str:
    """The evaluation's private network (held until `stack` closes), or why there is none."""
    if ctx.settings.allow_hosts:
        # A private network has loopback only: the hosts the server allows would be unreachable.
        hosts = ", ".join(ctx.settings.allow_hosts)
        return (
            f"the server lets browser checks reach {hosts} (--allow-host), which a private"
            " network cannot reach; the served app and the browser share this machine's network"
        )
    return await stack.enter_async_context(ctx.launcher.private_network())


async def exit_problem(state: ServeState, *, settle: bool = False) -> str | None:
    """Why the served app can no longer be trusted to answer (it exited), or None while it runs.

    Args:
        state: The run's served app.
        settle: Give an app that is dying a moment to be seen as exited (after a failed check,
            whose failure may have been the app going down).
    """
    proc = state.process
    if proc is None:
        return None
    if settle and proc.running:
        with anyio.move_on_after(_EXIT_GRACE_S):
            while proc.running:
                await anyio.sleep(0.02)
    if proc.running:
        return None
    return _gone(state, " during the checks")


def _gone(state: ServeState, when: str = "") -> str:
    """How the app ended, first (a shortened reason keeps it), then its last words and the
    contract's own command (the process is the sandbox's wrapper, whose name says nothing)."""
    proc = state.process
    assert proc is not None
    if proc.killed is not None:
        head = f"the served app was killed{when}: {proc.killed.message}"
    else:
        head = f"the served app exited with code {proc.returncode}{when}"
    last = "" if state.holdout else _last_line(proc)
    said = f", its last line: {last}" if last else ""
    return f"{head}{said} (its command: `{state.command}`)" if state.command else head + said


def gone_code(state: ServeState) -> ReasonCode:
    """Why the app is gone, as a code: killed by referee's watchdog, or exited on its own."""
    killed = state.process.killed if state.process is not None else None
    return ReasonCode(killed.code) if killed is not None else ReasonCode.SERVE_EXITED


def _said(proc: BackgroundProcess) -> str:
    """The last lines the app printed (stderr first: that is where servers say why they stop).

    Never for an app a hidden check drove too: a visible check's reason reaches the generator,
    and the app could print what the hidden check did just before it exits.
    """
    for path in (proc.stderr_path, proc.stdout_path):
        tail = _tail(path)
        if tail:
            return f"; its output ends:\n{tail}"
    return ""


def _last_line(proc: BackgroundProcess) -> str:
    """The last line the app printed, stderr first (where servers say why they stop)."""
    for path in (proc.stderr_path, proc.stdout_path):
        if tail := _tail(path):
            return tail.splitlines()[-1][-_TAIL_CHARS // 4 :]
    return ""


def _tail(path: Path) -> str:
    text, _ = read_log(path, 64 * 1024)
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    tail = "\n".join(lines[-_TAIL_LINES:])
    return tail if len(tail) <= _TAIL_CHARS else "…" + tail[-_TAIL_CHARS:]


class _ServeLog:
    """Records the served app's whole output once it has been stopped, under a reserved id."""

    def __init__(self, ctx: GradeContext, serve: Serve, state: ServeState) -> None:
        self._ctx, self._serve, self._state = ctx, serve, state
        self._started = time.monotonic()
        self.ready_s: float | None = None

    async def record(self) -> None:
        proc = self._state.process
        if proc is None:
            return
        stdout, out_cut = read_log(proc.stdout_path)
        stderr, err_cut = read_log(proc.stderr_path)
        self._ctx.recorder.record(
            item_id=self._state.evidence_ids[0],
            holdout=self._state.holdout,
            tool="serve",
            summary=self._summary(proc),
            # What the contract runs; `argv` keeps the sandbox's whole wrapper around it.
            command=self._state.command or command_line(proc.argv),
            argv=proc.argv,
            cwd=str(proc.cwd),
            stdout=stdout,
            stderr=stderr,
            truncated=out_cut or err_cut,
            exit_code=proc.returncode,
            duration_s=round(time.monotonic() - self._started, 3),
            details={
                "url": self._serve.url,
                "ready_s": self.ready_s,
                "exited_on_its_own": not proc.stopped_by_us,
                "stray_processes": proc.stray_processes,
                "network": "private" if self._state.network else "host",
                **({"network_note": self._state.network_note} if self._state.network_note else {}),
                **({"error": proc.error} if proc.error else {}),
                **({"killed": _killed(proc.killed)} if proc.killed else {}),
            },
        )

    def _summary(self, proc: BackgroundProcess) -> str:
        if self._state.problem:
            return self._state.problem.split("; its output ends", 1)[0]
        if self._state.at_base:
            ready = f"ready after {self.ready_s:g} s" if self.ready_s is not None else "ready"
            return f"served the base commit's app at {self._serve.url}, {ready}"
        if proc.killed is not None:
            return f"the served app was killed: {proc.killed.message}"
        if not proc.stopped_by_us:
            return f"the served app exited with code {proc.returncode} during the checks"
        ready = f"ready after {self.ready_s:g} s" if self.ready_s is not None else "ready"
        return f"served at {self._serve.url}, {ready}, stopped after the checks"


def _killed(killed: Killed) -> dict[str, str]:
    return {"code": killed.code, "message": killed.message}
