"""A tests check under the base harness: does the verdict hold without the harness changes?

When conftest.py, pytest.ini, a jest config or a package.json test script changed since base, the
suite runs a second time with those files as they were at base (laid over the tree in the
sandbox's overlay; new ones hidden). A test that passes only with the modified harness (it fails
with the base harness, or the modified harness made it disappear while it fails with the base one)
fails the criterion, naming the harness file and line; a pass the base harness cannot confirm
(its run gave no usable report) is left to the judge. A test that merely errors with the base
harness (it needs a fixture the change added) is listed for the judge, not held against the work:
legitimate harness changes stay possible, and the judge sees both runs.
"""

from __future__ import annotations

from referee.tools.graders.base import BaseHarness, GradeResult
from referee.tools.models.common import ReasonCode
from referee.tools.models.evidence import TestOutcome
from referee.tools.text import agrees

__all__ = ["judge_harness"]

_MAX_NAMED = 5


def judge_harness(
    now: GradeResult,
    now_tests: list[TestOutcome],
    base: GradeResult,
    base_tests: list[TestOutcome],
    harness: BaseHarness,
) -> GradeResult:
    """The criterion's grade once the base-harness run is known."""
    ids = [*now.evidence_ids, *base.evidence_ids]
    where = ", ".join(h.finding.location for h in harness.files[:3])
    if base.status == "unscored" or not base_tests:
        if now.status != "pass":
            return _with(now, now.reason + f"; the base harness ({where}) gave no verdict", ids)
        # The pass rests on the modified harness alone: a harness can make the base run unusable
        # (the tests exit early unless it sets them up), so referee does not call it a pass.
        return GradeResult(
            status="unscored",
            code=ReasonCode.HARNESS_UNVERIFIED,
            reason=(
                f"passes with the modified harness ({where}), but with the base harness the suite"
                f" could not be judged ({base.reason}): judge the harness change from both runs"
            ),
            evidence_ids=ids,
            regressions=now.regressions,
            details=now.details,
        )
    flipped, vanished, erroring = _differences(now_tests, base_tests)
    if flipped or vanished:
        named = [*flipped, *vanished][:_MAX_NAMED]
        reason = (
            f"passes only with the modified harness ({where}): with the base harness "
            f"{', '.join(named)} {agrees(len(named), 'fails', 'fail')}"
            + (
                f"; hidden by the modified harness: {', '.join(vanished[:_MAX_NAMED])}"
                if vanished
                else ""
            )
        )
        return GradeResult(
            status="fail",
            code=ReasonCode.HARNESS_FLIP,
            reason=reason,
            evidence_ids=ids,
            regressions=now.regressions,
            details=now.details,
        )
    note = f"; the same with the base harness ({where})"
    if hidden := _hidden(now_tests, base_tests):
        note += f"; not run with the modified harness: {', '.join(hidden[:_MAX_NAMED])}" + (
            f" and {len(hidden) - _MAX_NAMED} more" if len(hidden) > _MAX_NAMED else ""
        )
    if erroring:
        shown = erroring[:_MAX_NAMED]
        note += (
            f", except {', '.join(shown)}, which {agrees(len(shown), 'needs', 'need')} the new"
            " harness"
        )
    return _with(now, now.reason + note, ids)


def _differences(
    now: list[TestOutcome], base: list[TestOutcome]
) -> tuple[list[str], list[str], list[str]]:
    current = {t.name: t.outcome for t in now}
    flipped = [t.name for t in base if t.outcome == "failed" and current.get(t.name) == "passed"]
    vanished = [t.name for t in base if t.outcome == "failed" and t.name not in current]
    erroring = [t.name for t in base if t.outcome == "error" and current.get(t.name) == "passed"]
    return flipped, vanished, erroring


def _hidden(now: list[TestOutcome], base: list[TestOutcome]) -> list[str]:
    """Tests the base harness runs that the modified one does not (and that do not fail: a
    failing one is a flip)."""
    current = {t.name for t in now}
    return [t.name for t in base if t.outcome != "failed" and t.name not in current]


def _with(grade: GradeResult, reason: str, ids: list[str]) -> GradeResult:
    return GradeResult(
        status=grade.status,
        code=grade.code,
        reason=reason,
        evidence_ids=ids,
        regressions=grade.regressions,
        details=grade.details,
    )
