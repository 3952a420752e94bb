"""`static` checks: one rule of the static pipeline, with an allowance and optional path globs."""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatch

from referee.tools.graders.base import GradeContext, GradeResult, unscored
from referee.tools.models.checks import StaticCheck
from referee.tools.models.common import ReasonCode
from referee.tools.models.contract import Criterion


async def grade_static(ctx: GradeContext, criterion: Criterion) -> GradeResult:
    check = criterion.check
    assert isinstance(check, StaticCheck)
    pipeline = await ctx.static_report()
    if pipeline.report is None:
        return unscored(
            ReasonCode.PIPELINE_FAILED,
            f"the static pipeline did not run: {pipeline.error}",
            pipeline.evidence_ids,
        )
    found = [
        f for f in pipeline.report.findings if f.rule == check.rule and matches(f.path, check.paths)
    ]
    allowed = check.max or 0
    where = ", ".join(f.location for f in found[:5]) + (" …" if len(found) > 5 else "")
    if len(found) <= allowed:
        reason = f"{check.rule}: {len(found)} finding(s), at most {allowed} allowed"
        return GradeResult(
            status="pass",
            code=ReasonCode.PASSED,
            reason=reason,
            evidence_ids=list(pipeline.evidence_ids),
        )
    reason = f"{check.rule}: {len(found)} finding(s), at most {allowed} allowed ({where})"
    return GradeResult(
        status="fail",
        code=ReasonCode.FINDINGS,
        reason=reason,
        evidence_ids=list(pipeline.evidence_ids),
    )


def matches(path: str, patterns: Sequence[str]) -> bool:
    """True when no globs are given or one of them matches (`**/` also matches the top folder)."""
    if not patterns:
        return True
    return any(fnmatch(path, p) or (p.startswith("**/") and fnmatch(path, p[3:])) for p in patterns)
