"""`browser` checks: start the contract's app (`serve`), drive pages in Chromium, record what was seen."""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path

import anyio

from referee.tools.browser.check import run_browser_check
from referee.tools.browser.outcome import BrowserOutcome
from referee.tools.browser.pool import BrowserPool
from referee.tools.graders.base import GradeContext, GradeResult, unscored, working_dir
from referee.tools.models.checks import BrowserCheck
from referee.tools.models.contract import Criterion
from referee.tools.process import background_process, wait_for_url


@dataclass
class ServeState:
    base_url: str | None
    problem: str | None
    evidence_ids: list[str]


async def grade_browser_group(
    ctx: GradeContext,
    criteria: Sequence[Criterion],
    pool: BrowserPool | None,
    on_done: object = None,
) -> dict[str, GradeResult]:
    """Run every browser criterion; the app is served once for all of them and stopped afterwards."""
    results: dict[str, GradeResult] = {}
    async with AsyncExitStack() as stack:
        serve = await _serve(ctx, stack)
        if pool is None:
            pool = await stack.enter_async_context(
                BrowserPool(env=ctx.settings.env, allow_hosts=ctx.settings.allow_hosts)
            )
        async with anyio.create_task_group() as group:
            for criterion in criteria:
                group.start_soon(_one, ctx, criterion, pool, serve, results, on_done)
    return results


async def _one(
    ctx: GradeContext,
    criterion: Criterion,
    pool: BrowserPool,
    serve: ServeState,
    results: dict[str, GradeResult],
    on_done: object,
) -> None:
    results[criterion.id] = await grade_browser(ctx, criterion, pool, serve)
    if callable(on_done):
        await on_done(criterion.id)


async def _serve(ctx: GradeContext, stack: AsyncExitStack) -> ServeState:
    serve = ctx.contract.serve
    if serve is None:
        return ServeState(base_url=None, problem=None, evidence_ids=[])
    cwd = working_dir(ctx, serve.cwd)
    if cwd is None:
        return ServeState(None, f"serve.cwd {serve.cwd!r} is outside the repository", [])
    stdout, stderr = ctx.raw_paths("serve")
    proc = await stack.enter_async_context(
        background_process(
            serve.argv,
            cwd=cwd,
            stdout_path=stdout,
            stderr_path=stderr,
            env=ctx.env_for(serve.env),
            shell=serve.shell,
        )
    )
    ready = await wait_for_url(serve.url, serve.ready_timeout_s, proc)
    state = ServeState(base_url=serve.url, problem=None, evidence_ids=[])
    if not ready.ready:
        state.problem = f"the app never became ready at {serve.url}: {ready.reason}"
        item = ctx.recorder.record(
            tool="serve",
            summary=state.problem,
            command=" ".join(serve.argv),
            stdout=_read(stdout),
            stderr=_read(stderr),
            exit_code=proc.returncode,
        )
        state.evidence_ids.append(item.id)
    return state


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[-64_000:]
    except OSError:
        return ""


async def grade_browser(
    ctx: GradeContext, criterion: Criterion, pool: BrowserPool, serve: ServeState
) -> GradeResult:
    check = criterion.check
    assert isinstance(check, BrowserCheck)
    if serve.problem:
        return unscored(serve.problem, list(serve.evidence_ids))
    outcome = await run_browser_check(
        pool,
        check,
        base_url=serve.base_url,
        artifacts_dir=ctx.scratch,
        name=f"{criterion.id}-screenshot",
        repo_root=ctx.workdir,
        allow_hosts=ctx.settings.allow_hosts,
    )
    item = ctx.recorder.record(
        tool="browser",
        summary=outcome.summary(),
        command=f"browser {outcome.url or check.url}",
        stdout=browser_report(outcome),
        exit_code=None if outcome.passed is None else int(not outcome.passed),
        duration_s=outcome.duration_s,
        criterion_id=criterion.id,
        extra_artifacts=[p for p in [_shot(outcome)] if p is not None],
        details=_details(outcome),
    )
    status = outcome.status
    return GradeResult(
        status=status, reason=outcome.reason, evidence_ids=[item.id], details=counts(outcome)
    )


def _shot(outcome: BrowserOutcome) -> Path | None:
    return (
        Path(outcome.screenshot)
        if outcome.screenshot and Path(outcome.screenshot).is_file()
        else None
    )


def counts(outcome: BrowserOutcome) -> dict[str, int]:
    return {
        "console_errors": len(outcome.console_errors),
        "page_errors": len(outcome.page_errors),
        "failed_requests": len(outcome.failed_requests),
        "a11y_violations": len(outcome.a11y_violations),
        "blocked_requests": len(outcome.blocked_requests),
    }


def _details(outcome: BrowserOutcome) -> dict[str, object]:
    data = outcome.to_dict()
    data.pop("aria_snapshot", None)
    data.pop("screenshot", None)
    return data


def browser_report(outcome: BrowserOutcome) -> str:
    """A readable account of a browser check: steps, expectations, errors, then the ARIA snapshot."""
    lines = [
        f"url: {outcome.url}",
        f"final url: {outcome.final_url}",
        f"title: {outcome.title}",
        f"verdict: {outcome.status} ({outcome.reason})",
        "steps:",
    ]
    lines += [
        f"  {'ok ' if s.ok else 'ERR'} {s.action} {s.target} {s.error}".rstrip()
        for s in outcome.steps
    ]
    lines.append("expectations:")
    lines += [
        f"  {'ok ' if e.ok else 'ERR'} {e.type} {e.target} {e.detail}".rstrip()
        for e in outcome.expectations
    ]
    lines += [f"console error: {c}" for c in outcome.console_errors]
    lines += [f"page error: {p}" for p in outcome.page_errors]
    lines += [
        f"failed request: {json.dumps(f.model_dump(mode='json'))}" for f in outcome.failed_requests
    ]
    lines += [f"blocked request: {b.url} ({b.reason})" for b in outcome.blocked_requests]
    lines += [f"a11y: {v.id} [{v.impact}] x{v.nodes} {v.help}" for v in outcome.a11y_violations]
    lines += ["aria snapshot:", outcome.aria_snapshot]
    return "\n".join(lines)
