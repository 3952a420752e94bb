"""Serving a stored evidence item with its full output (the inline copy is capped)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from referee.tools.errors import NotFound
from referee.tools.models.evidence import EvidenceItem
from referee.tools.repo import GitError, change_diff
from referee.tools.store import Store, load_evidence, load_run
from referee.tools.store.files import run_file
from referee.tools.store.integrity import StoreTampered
from referee.tools.text import unshown

FULL_LIMIT = 8 * 1024 * 1024


def full_evidence(store: Store, run_id: str, evidence_id: str) -> dict[str, Any]:
    """The evidence item as JSON, stdout/stderr replaced by the full redacted logs when kept."""
    return full_item(store, run_id, load_evidence(store, run_id, evidence_id))


def full_item(store: Store, run_id: str, item: EvidenceItem) -> dict[str, Any]:
    """A stored item of `run_id` as JSON with its full logs: read where the store keeps its run
    files (a team store's database, this machine's folders), checked against the item's digest."""
    evidence_id = item.id
    data = item.model_dump(mode="json", by_alias=True)
    logs = {}
    for stream in ("stdout", "stderr"):
        log = next((a for a in item.artifacts if a.endswith(f"{evidence_id}.{stream}.log")), None)
        kept = None if log is None else run_file(store, run_id, log)
        if kept is not None:
            logs[stream] = kept
    if logs and _digest(logs) != item.sha256:
        # The row's MAC covers sha256, so an edited log file is caught here.
        raise StoreTampered(
            f"the output logs of {run_id}/{evidence_id}", "do not match their digest"
        )
    for stream, raw in logs.items():
        data[stream] = raw[:FULL_LIMIT].decode("utf-8", "replace")
    return data


def _digest(logs: dict[str, bytes]) -> str:
    return hashlib.sha256(logs.get("stdout", b"") + b"\0" + logs.get("stderr", b"")).hexdigest()


def screenshot_of(store: Store, run_id: str, evidence_id: str) -> bytes:
    """The PNG a browser check kept as an artifact of this evidence item."""
    item = load_evidence(store, run_id, evidence_id)
    shots = (run_file(store, run_id, a) for a in item.artifacts if a.endswith(".png"))
    shot = next((data for data in shots if data is not None), None)
    if shot is None:
        raise NotFound(
            "screenshot", f"{run_id}/{evidence_id}", hint="only browser evidence has one"
        )
    return shot


def run_change(store: Store, run_id: str) -> str:
    """The change a run judged (its changed files, base against the evaluated tree) as a
    unified diff: what the judge reads, rather than a working tree that may have moved on."""
    target = load_run(store, run_id).evaluation.target
    if target.tree.startswith("dir:"):
        raise NotFound("run", run_id, hint="change:// needs a run of a git repository")
    try:
        paths = [unshown(p) for p in target.changed_files]
        return change_diff(Path(target.repo), target.base, target.tree, paths)
    except (GitError, OSError) as exc:
        raise NotFound("run", run_id, hint=f"change:// cannot read its objects ({exc})") from exc
