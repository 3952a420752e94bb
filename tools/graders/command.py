"""`command` checks: run a command; the criterion holds on the expected exit code."""

from __future__ import annotations

from referee.tools.graders.base import (
    GradeContext,
    GradeResult,
    killed_verdict,
    unscored,
    working_dir,
)
from referee.tools.models.checks import CommandCheck
from referee.tools.models.common import ReasonCode
from referee.tools.models.contract import Criterion
from referee.tools.process import ProcessResult


async def grade_command(ctx: GradeContext, criterion: Criterion) -> GradeResult:
    check = criterion.check
    assert isinstance(check, CommandCheck)
    cwd = working_dir(ctx, check.cwd)
    if cwd is None:
        return unscored(ReasonCode.CWD_OUTSIDE, f"cwd {check.cwd!r} is outside the repository")
    result = await ctx.run(
        ctx.command(
            check.argv,
            cwd=cwd,
            label=criterion.id,
            timeout_s=check.timeout_s,
            env=ctx.env_for(check.env),
            shell=check.shell,
            network=check.network,
            memory_mb=check.memory_mb,
            layers=ctx.layers_for(criterion.id),
            criterion_id=criterion.id,
        )
    )
    verdict = command_verdict(result, check.expect_exit)
    item = ctx.recorder.record_process(
        result, tool="command", summary=verdict.reason, criterion_id=criterion.id
    )
    verdict.evidence_ids.append(item.id)
    return verdict


def command_verdict(result: ProcessResult, expect_exit: int) -> GradeResult:
    if result.error:
        return unscored(ReasonCode.COULD_NOT_START, f"could not run: {result.error}")
    if stopped := killed_verdict(result):
        return stopped
    if result.timed_out:
        return unscored(
            ReasonCode.TIMED_OUT,
            f"timed out after {result.duration_s:.1f} s; the process group was killed",
        )
    if result.exit_code == expect_exit:
        return GradeResult(
            status="pass",
            code=ReasonCode.PASSED,
            reason=f"exit code {result.exit_code} as expected",
        )
    return GradeResult(
        status="fail",
        code=ReasonCode.EXIT_CODE,
        reason=f"exit code {result.exit_code}, expected {expect_exit}",
    )
