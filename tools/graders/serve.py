"""The contract's `serve`: the app under test, started once for all browser checks of a run."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

from referee.tools.graders.base import GradeContext, ServeState, working_dir
from referee.tools.process import wait_for_url

__all__ = ["ServeState", "start_serve"]

_LOG_TAIL = 64_000


async def start_serve(ctx: GradeContext, stack: AsyncExitStack) -> ServeState:
    """Start the contract's app and wait until its URL answers; `stack` stops its process group.

    Args:
        ctx: The evaluation's context (contract, tree, recorder).
        stack: Closed when the evaluation ends; the served process group is stopped then.

    Returns:
        The base URL browser checks join their paths to, or the problem that stopped the app.
    """
    serve = ctx.contract.serve
    if serve is None:
        return ServeState(base_url=None)
    cwd = working_dir(ctx, serve.cwd)
    if cwd is None:
        return ServeState(None, f"serve.cwd {serve.cwd!r} is outside the repository")
    command = ctx.command(
        serve.argv, cwd=cwd, label="serve", env=ctx.env_for(serve.env), shell=serve.shell
    )
    stdout, stderr = command.stdout_path, command.stderr_path
    proc = await stack.enter_async_context(ctx.background(command))
    ready = await wait_for_url(serve.url, serve.ready_timeout_s, proc)
    if ready.ready:
        return ServeState(base_url=serve.url)
    problem = f"the app never became ready at {serve.url}: {ready.reason}"
    item = ctx.recorder.record(
        tool="serve",
        summary=problem,
        command=" ".join(serve.argv),
        stdout=_tail(stdout),
        stderr=_tail(stderr),
        exit_code=proc.returncode,
    )
    return ServeState(base_url=serve.url, problem=problem, evidence_ids=[item.id])


def _tail(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[-_LOG_TAIL:]
    except OSError:
        return ""
