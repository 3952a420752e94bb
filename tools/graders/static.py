"""`static` checks: one rule of the static pipeline, with an allowance and optional path globs.

At task scope a check judges the change's own findings; findings that predate it (the baseline)
count only with `baseline: include`.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.tools.globs import path_filter
from referee.tools.graders.base import GradeContext, GradeResult, unscored
from referee.tools.models.checks import StaticCheck
from referee.tools.models.common import ReasonCode
from referee.tools.models.contract import Criterion
from referee.tools.text import counted


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
    counting = list(pipeline.report.findings)
    if check.baseline == "include":
        counting += pipeline.baseline
    found = [f for f in counting if f.rule == check.rule and matches(f.path, check.paths)]
    old = [f for f in pipeline.baseline if f.rule == check.rule and matches(f.path, check.paths)]
    note = (
        f"; {len(old)} more predate the change (not counted: `baseline: include` counts them)"
        if old and check.baseline == "exclude"
        else ""
    )
    allowed = check.max or 0
    where = ", ".join(f.location for f in found[:5]) + (" …" if len(found) > 5 else "")
    if len(found) <= allowed:
        reason = f"{check.rule}: {counted(len(found), 'finding')}, at most {allowed} allowed{note}"
        return GradeResult(
            status="pass",
            code=ReasonCode.PASSED,
            reason=reason,
            evidence_ids=list(pipeline.evidence_ids),
        )
    reason = (
        f"{check.rule}: {counted(len(found), 'finding')}, at most {allowed} allowed ({where}){note}"
    )
    return GradeResult(
        status="fail",
        code=ReasonCode.FINDINGS,
        reason=reason,
        evidence_ids=list(pipeline.evidence_ids),
    )


def matches(path: str, patterns: Sequence[str]) -> bool:
    """True when the path matches one of the globs (or none are given but exclusions) and no `!`
    exclusion, in git's glob dialect (`referee.tools.globs`)."""
    included, excluded = path_filter(patterns)
    if not included.empty and not included.match(path):
        return False
    return not excluded.match(path)
