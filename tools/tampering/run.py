"""Running test-tampering detection inside an evaluation and recording it as evidence."""

from __future__ import annotations

from pathlib import Path

import anyio

from referee.tools.evidence.recorder import EvidenceRecorder
from referee.tools.repo import file_at
from referee.tools.tampering.detect import Tampering, detect
from referee.tools.text import counted


async def run_tampering(
    repo: Path, workdir: Path, base: str, changed: list[str], recorder: EvidenceRecorder
) -> tuple[list[Tampering], list[str]]:
    """Compare changed test files with `base`; returns the findings and the evidence id."""

    def now(path: str) -> str | None:
        target = workdir / path
        return target.read_text(encoding="utf-8", errors="replace") if target.is_file() else None

    found = await anyio.to_thread.run_sync(detect, changed, lambda p: file_at(repo, base, p), now)
    lines = [f"{t.location} [{t.kind}] {t.message}" for t in found]
    item = recorder.record(
        tool="tampering",
        command=f"compare test files with base {base[:12]}",
        stdout="\n".join(lines) or "no test tampering found",
        exit_code=1 if found else 0,
        summary=f"{counted(len(found), 'sign')} of test tampering"
        if found
        else "no test tampering found",
    )
    return found, [item.id]
