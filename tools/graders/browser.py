"""`browser` checks: start the contract's app (`serve`), drive pages in Chromium, record what was
seen."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from referee.tools.graders.base import GradeContext, GradeResult, unscored
from referee.tools.models.checks import BrowserCheck
from referee.tools.models.common import ReasonCode
from referee.tools.models.contract import Criterion

if TYPE_CHECKING:
    from referee.tools.browser.outcome import BrowserOutcome

__all__ = ["browser_report", "counts", "grade_browser"]


async def grade_browser(ctx: GradeContext, criterion: Criterion) -> GradeResult:
    """Drive the check's page in the shared Chromium; the app is served once for every check."""
    check = criterion.check
    assert isinstance(check, BrowserCheck)
    # Playwright is imported on the first browser check, not when referee starts.
    from referee.tools.browser.check import run_browser_check

    serve = await ctx.serve()
    if serve.problem:
        return unscored(ReasonCode.SERVE_FAILED, serve.problem, list(serve.evidence_ids))
    outcome = await run_browser_check(
        await ctx.browser_pool(),
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
    return GradeResult(
        status=outcome.status,
        code=_code(outcome),
        reason=outcome.reason,
        evidence_ids=[item.id],
        details=counts(outcome),
    )


def _code(outcome: BrowserOutcome) -> ReasonCode:
    if outcome.status == "pass":
        return ReasonCode.PASSED
    return ReasonCode.EXPECTATION_FAILED if outcome.status == "fail" else ReasonCode.BROWSER_FAILED


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
    """A readable account of a browser check: steps, expectations, errors, then the ARIA
    snapshot."""
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
