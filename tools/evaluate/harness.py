"""The harness files an evaluation changed since base, and a folder of their base versions.

Which files are harness is a rule (tools/harness); this module applies it to one evaluation: the
layout comes from the base's and the evaluated tree's listings, a file's text from git (base) and
from the tree on disk (now). A file git ignores and that was on disk before the contract was
created is the environment the orchestrator prepared (an IDE's folder, a local `.env`), not the
change: like an installed package, only what was written after the contract counts
(tools/environment reads installed packages the same way). The files of an installed environment
(a virtualenv or node_modules in the tree, ignored or not) are never harness here: the
environment check judges them by when they were written, whatever their names.
"""

from __future__ import annotations

import os
from pathlib import Path

from referee.tools.environment.installed import outside_environments
from referee.tools.evaluate.target import Workspace
from referee.tools.evidence.recorder import EvidenceRecorder
from referee.tools.graders import BaseHarness
from referee.tools.harness import Layout
from referee.tools.repo import commit_tree_hash, file_at, ignored, tree_files
from referee.tools.tampering import Tampering
from referee.tools.tampering.harness import HarnessFile, harness_changes
from referee.tools.text import counted

__all__ = ["base_harness", "record_harness"]


def base_harness(ws: Workspace, folder: Path, anchor: float | None) -> BaseHarness:
    """The harness files changed since base, with a folder of their base versions.

    Args:
        anchor: When the contract was created: an ignored file older than that is the
            environment's (None: every ignored harness file counts).
    """
    assert ws.base is not None
    files = _prepared_before(ws, changed_harness(ws), anchor)
    for item in files:
        if item.base is not None:
            target = folder / item.path
            target.parent.mkdir(parents=True, exist_ok=True)
            # As git holds it: a binary file (a `.yarn/` archive) was read with surrogate escapes.
            target.write_bytes(item.base.encode("utf-8", "surrogateescape"))
    hide = tuple(h.path for h in files if h.base is None)
    return BaseHarness(files, folder if folder.exists() else None, hide)


def changed_harness(ws: Workspace) -> list[HarnessFile]:
    """Every harness file the change added, edited or deleted (tools/tampering/harness.py)."""
    base = ws.base or ""
    at_base = set(tree_files(ws.repo, commit_tree_hash(ws.repo, base)))
    now = set(tree_files(ws.repo, ws.target.tree))
    layout = Layout(at_base | now, at_base=at_base.__contains__, now=now.__contains__)

    def current(path: str) -> str | None:
        target = ws.workdir / path
        return target.read_text(encoding="utf-8", errors="replace") if target.is_file() else None

    changed = outside_environments(ws.workdir, ws.changed)
    return harness_changes(changed, lambda p: file_at(ws.repo, base, p), current, layout)


def _prepared_before(
    ws: Workspace, files: list[HarnessFile], anchor: float | None
) -> list[HarnessFile]:
    """Drop the new, ignored files that were on disk before the contract was created."""
    new = [h.path for h in files if h.base is None]
    if anchor is None or not new:
        return files
    older = {p for p in ignored(ws.repo, new) if _changed_at(ws.workdir / p) < anchor}
    return [h for h in files if h.path not in older]


def _changed_at(path: Path) -> float:
    # The inode change time, which no program can set back (a file's mtime can be).
    try:
        return os.lstat(path).st_ctime
    except OSError:
        return float("inf")


def record_harness(recorder: EvidenceRecorder, found: list[Tampering], base: str) -> str:
    lines = [f"{t.location} [{t.kind}] {t.message}" for t in found]
    item = recorder.record(
        tool="tampering",
        command=f"compare the test harness with base {base[:12]}",
        stdout="\n".join(lines),
        exit_code=1,
        summary=f"{counted(len(found), 'harness file')} changed since base",
    )
    return item.id
