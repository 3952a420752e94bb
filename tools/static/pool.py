"""Parent side of the worker processes: one feeding thread per worker, batches from a shared
queue."""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, cast

from referee.tools.static.model import Outcome, StaticConfig
from referee.tools.static.worker import encode_request

Work = tuple[str, tuple[str, ...]]
# -P: a `referee` folder in the current directory must not shadow the installed package.
_WORKER = [sys.executable, "-P", "-m", "referee.tools.static.worker"]
_MAX_RESTARTS = 2


@dataclass
class PoolResult:
    """Outcomes by path and analyser, and the paths whose worker died."""

    outcomes: dict[str, dict[str, Outcome]] = field(default_factory=dict)
    crashed: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Worker:
    """One `referee.tools.static.worker` process and its pipes."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(_WORKER, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.stdin = cast(IO[bytes], self.proc.stdin)
        self.stdout = cast(IO[bytes], self.proc.stdout)

    def exchange(
        self, root: str, config: StaticConfig, batch: list[Work]
    ) -> list[dict[str, Outcome]] | None:
        """Send one batch and read its outcomes; None when the worker died."""
        try:
            self.stdin.write(encode_request(root, config, batch))
            self.stdin.flush()
            line = self.stdout.readline()
        except OSError:
            return None
        if not line:
            return None
        return [
            {a: Outcome.from_data(o) for a, o in per_file.items()} for per_file in json.loads(line)
        ]

    def stop(self) -> None:
        """Close stdin (the worker exits at end of input) and reap the process."""
        with contextlib.suppress(OSError):
            self.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.stdout.close()


def run_in_workers(
    root: Path, batches: Sequence[list[Work]], jobs: int, config: StaticConfig
) -> PoolResult:
    """Analyse `batches` across `jobs` worker processes and gather their outcomes."""
    todo: queue.SimpleQueue[list[Work]] = queue.SimpleQueue()
    for batch in batches:
        todo.put(batch)
    result = PoolResult()
    threads = [
        threading.Thread(target=_feed, args=(str(root), todo, config, result), daemon=True)
        for _ in range(max(1, min(jobs, len(batches))))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    while not todo.empty():  # every worker gave up: what is left was never analysed
        result.crashed.extend(name for name, _ in todo.get_nowait())
    return result


def _feed(
    root: str, todo: queue.SimpleQueue[list[Work]], config: StaticConfig, result: PoolResult
) -> None:
    """Keep one worker busy until the queue is empty, replacing it (a few times) if it dies."""
    try:
        worker, restarts = _Worker(), 0
    except OSError:
        return  # no process to be had: the batches left in the queue are reported as not analysed
    try:
        while True:
            try:
                batch = todo.get_nowait()
            except queue.Empty:
                return
            outcomes = worker.exchange(root, config, batch)
            with result.lock:
                if outcomes is not None:
                    result.outcomes.update(zip((name for name, _ in batch), outcomes, strict=True))
                    continue
                # A grammar crash kills its worker: those files
                # go unanalysed (and uncached), not the run.
                result.crashed.extend(name for name, _ in batch)
            worker.stop()
            restarts += 1
            if restarts > _MAX_RESTARTS:
                return
            try:
                worker = _Worker()
            except OSError:
                return
    finally:
        worker.stop()
