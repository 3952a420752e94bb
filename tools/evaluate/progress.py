"""The evaluations running now, published for `referee view`: each evaluate writes its progress
(the same messages as MCP's progress notifications) to a small file in the store's `progress/`
folder while it runs, and removes it when it ends.

A file, not the database: progress changes several times a second, is of no use once the run is
stored, and a viewer in another process reads it without a lock. The store's folder is invisible
to the code under test (the sandbox), so it cannot forge progress. Writing it never fails an
evaluation.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from referee.tools.evaluate.run import Progress

__all__ = ["LiveProgress", "Running", "live_progress", "running"]

FOLDER = "progress"
RECENT = 8
MAX_BYTES = 64 * 1024


@dataclass
class LiveProgress:
    """One evaluation's progress file."""

    path: Path
    state: dict[str, Any]
    now: Callable[[], datetime]

    def relay(self, inner: Progress | None) -> Progress:
        """A progress callback that publishes each message, then hands it to `inner`."""

        async def report(done: float, total: float | None, message: str) -> None:
            recent = [*self.state["recent"], message][-RECENT:]
            self.state.update(done=done, total=total, message=message, recent=recent)
            self.write()
            if inner is not None:
                await inner(done, total, message)

        return report

    def write(self) -> None:
        self.state["updated_at"] = self.now().isoformat()
        with suppress(OSError):  # a full disk must not fail the evaluation
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_suffix(".part")
            partial.write_text(json.dumps(self.state), encoding="utf-8")
            os.replace(partial, self.path)  # a reader never sees half a file


@contextmanager
def live_progress(
    home: Path, contract_id: str, evaluator: str | None, now: Callable[[], datetime]
) -> Iterator[LiveProgress]:
    """Publish an evaluation's progress while the block runs."""
    started = now().isoformat()
    live = LiveProgress(
        path=home / FOLDER / f"{os.getpid()}-{uuid.uuid4().hex[:12]}.json",
        state={
            "contract_id": contract_id,
            "evaluator": evaluator,
            "pid": os.getpid(),
            "started_at": started,
            "done": 0,
            "total": None,
            "message": "starting",
            "recent": [],
        },
        now=now,
    )
    live.write()
    try:
        yield live
    finally:
        with suppress(OSError):
            live.path.unlink(missing_ok=True)


@dataclass(frozen=True)
class Running:
    """An evaluation in progress, as its file says."""

    contract_id: str
    evaluator: str | None
    started_at: str
    updated_at: str
    done: float
    total: float | None
    message: str
    recent: list[str] = field(default_factory=list)


def running(home: Path) -> list[Running]:
    """The evaluations running now (files of processes that are gone are left out), oldest
    first."""
    found = []
    for path in sorted((home / FOLDER).glob("*.json")):
        state = _read(path)
        if state is not None and _alive(state.get("pid")):
            with suppress(KeyError, TypeError, ValueError):
                found.append(_running(state))
    return sorted(found, key=lambda r: r.started_at)


def _read(path: Path) -> dict[str, Any] | None:
    try:
        if path.stat().st_size > MAX_BYTES:
            return None
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # gone between the listing and the read, or being replaced
    return state if isinstance(state, dict) else None


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: it exists
    return True


def _running(state: dict[str, Any]) -> Running:
    total = state.get("total")
    return Running(
        contract_id=str(state["contract_id"]),
        evaluator=state.get("evaluator") if isinstance(state.get("evaluator"), str) else None,
        started_at=str(state["started_at"]),
        updated_at=str(state.get("updated_at", state["started_at"])),
        done=float(state.get("done") or 0),
        total=float(total) if isinstance(total, int | float) else None,
        message=str(state.get("message", "")),
        recent=[str(m) for m in state.get("recent") or []][-RECENT:],
    )
