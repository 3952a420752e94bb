"""Running the static pipeline inside an evaluation and recording it as evidence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from referee.tools.graders.base import GradeContext, StaticRun
from referee.tools.repo import is_git_repo, list_files
from referee.tools.static import StaticReport, run_pipeline

CACHE_FILE = "static-cache.db"


async def run_static(ctx: GradeContext, scope: str, home: Path) -> StaticRun:
    """Analyse the scope's files in a worker thread; findings become one evidence item."""
    files = ctx.scope_files
    everything = list_files(ctx.workdir) if is_git_repo(ctx.workdir) else files
    try:
        report = await anyio.to_thread.run_sync(
            _pipeline, ctx.workdir, files, everything, home / CACHE_FILE
        )
    except (OSError, RuntimeError, ValueError) as exc:
        item = ctx.recorder.record(
            tool="static",
            summary=f"static pipeline failed: {exc}",
            exit_code=None,
            command="referee static pipeline",
        )
        return StaticRun(report=None, error=str(exc), evidence_ids=[item.id])
    item = ctx.recorder.record(
        tool="static",
        command=f"referee static pipeline ({scope} scope, {len(files)} files)",
        stdout=findings_text(report),
        exit_code=0 if not report.findings else 1,
        duration_s=round(report.duration_s, 3),
        summary=_summary(report),
        details=_details(report),
    )
    return StaticRun(report=report, evidence_ids=[item.id])


def _pipeline(workdir: Path, files: list[str], everything: list[str], cache: Path) -> StaticReport:
    return run_pipeline(workdir, files, cache_path=cache, changed=files, all_files=everything)


def findings_text(report: StaticReport) -> str:
    lines = [f"{f.location} [{f.rule}] {f.severity} {f.message}" for f in report.findings]
    lines += [f"error: {e}" for e in report.errors]
    return "\n".join(lines)


def _summary(report: StaticReport) -> str:
    rules = ", ".join(f"{rule} {n}" for rule, n in sorted(report.by_rule.items()) if n)
    return (
        f"{len(report.findings)} finding(s) in {report.files_analysed} file(s)"
        + (f" ({rules})" if rules else "")
        + f"; {report.cache_hits} from cache"
        + (f"; not analysed: {_excluded(report)}" if report.excluded else "")
    )


def _excluded(report: StaticReport) -> str:
    return ", ".join(f"{n} {reason}" for reason, n in report.excluded.items())


def _details(report: StaticReport) -> dict[str, Any]:
    return {
        "by_rule": report.by_rule,
        "files_analysed": report.files_analysed,
        "cache_hits": report.cache_hits,
        "excluded": report.excluded,
        "errors": report.errors[:20],
    }
