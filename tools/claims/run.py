"""Reading the change's test code inside an evaluation and recording it as evidence."""

from __future__ import annotations

from pathlib import Path

import anyio

from referee.tools.claims.detect import find_claims
from referee.tools.claims.model import HARNESS_MODIFIED
from referee.tools.evidence.recorder import EvidenceRecorder
from referee.tools.repo import file_at, tree_entry_map
from referee.tools.tampering.model import Tampering
from referee.tools.text import counted


async def run_claims(
    repo: Path,
    workdir: Path,
    base: str,
    tree: str,
    changed: list[str],
    recorder: EvidenceRecorder,
) -> tuple[list[Tampering], list[str]]:
    """What the change's tests replace and inspect, and where its code asks whether it runs under
    test; the findings and the evidence id (none when nothing was found)."""

    def now(path: str) -> str | None:
        target = workdir / path
        return target.read_text(encoding="utf-8", errors="replace") if target.is_file() else None

    def read() -> list[Tampering]:
        # The evaluated tree's files, from the object store: a `--ref` workdir is a plain folder.
        files = list(tree_entry_map(repo, tree))
        found = find_claims(changed, lambda p: file_at(repo, base, p), now, files)
        # What acts for the runner is the harness's finding (tools/tampering/harness.py), which
        # comes with the base-harness rerun; here only the suspicions for the judge.
        return [c for c in found if c.kind != HARNESS_MODIFIED]

    found = await anyio.to_thread.run_sync(read)
    if not found:
        return [], []
    item = recorder.record(
        tool="tampering",
        command=f"read the code the change added since base {base[:12]}",
        stdout="\n".join(f"{t.location} [{t.kind}] {t.message}" for t in found),
        exit_code=1,
        summary=f"{counted(len(found), 'suspicion')} in the change's code",
    )
    return found, [item.id]
