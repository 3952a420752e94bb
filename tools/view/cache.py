"""The running app's cache of what reads the whole store: the contracts list (a few queries per
contract, seconds for thousands) and the calibration page (every scorecard). Both are asked for
far more often than the store changes.

The cache is kept while the store's files are unchanged: SQLite in WAL mode writes every commit to
`referee.db-wal` (and a checkpoint to `referee.db`), so their size and modification time change
with any write, by this process or another (an evaluate in a terminal). A store that keeps no
such files (a database server) is re-read after `ttl_s` seconds instead. Once the store changed,
each is gathered again in the background while the previous one is served, marked as being
brought up to date: no request waits seconds for it, except the very first.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from referee.tools.store import Store
from referee.tools.view.compare import calibration_page
from referee.tools.view.gather import contract_rows
from referee.tools.view.pages import Audience, CalibrationPage, ContractRow

Version = tuple[object, ...]


def store_version(
    store: Store, ttl_s: float, clock: Callable[[], float] = time.monotonic
) -> Version:
    """What changes whenever the store is written to."""
    stats: list[tuple[int, int, int] | None] = []
    for name in ("referee.db", "referee.db-wal"):
        try:
            st = os.stat(store.home / name)
        except OSError:
            stats.append(None)
            continue
        stats.append((st.st_mtime_ns, st.st_size, st.st_ino))
    if stats[0] is None:  # no database file here: fall back to a time-to-live
        return (int(clock() // ttl_s),)
    return tuple(stats)


@dataclass(frozen=True)
class Rows:
    rows: list[ContractRow]
    updating: bool  # the store changed since: a fresh list is being gathered


@dataclass(frozen=True)
class Calibration:
    page: CalibrationPage
    updating: bool


class RowCache:
    """What the running app gathers across the whole store (the contracts list per audience, the
    calibration page), kept while the store is unchanged and gathered again when it changed."""

    def __init__(self, store: Store, ttl_s: float = 2.0) -> None:
        self.store, self.ttl_s = store, ttl_s
        self._lock = threading.Lock()
        self._kept: dict[Hashable, tuple[Version, Any]] = {}
        self._refreshing: dict[Hashable, threading.Thread] = {}

    def rows(self, audience: Audience) -> Rows:
        rows, updating = self._get(("rows", audience), lambda: contract_rows(self.store, audience))
        return Rows(rows, updating)

    def calibration(self) -> Calibration:
        # Judge reliability reads every scorecard (seconds for 10,000), the page is asked for
        # far more often than a human verdict is recorded.
        page, updating = self._get(("calibration",), lambda: calibration_page(self.store))
        return Calibration(page, updating)

    def wait(self) -> None:
        """Until every background gathering has ended (tests, shutting down)."""
        for thread in list(self._refreshing.values()):
            thread.join()

    def _get(self, key: Hashable, gather: Callable[[], Any]) -> tuple[Any, bool]:
        version = store_version(self.store, self.ttl_s)
        with self._lock:
            cached = self._kept.get(key)
            if cached is not None and cached[0] == version:
                return cached[1], False
            if cached is not None:
                self._refresh(key, version, gather)
                return cached[1], True
        return self._gather(key, version, gather), False  # the first: wait for it

    def _refresh(self, key: Hashable, version: Version, gather: Callable[[], Any]) -> None:
        running = self._refreshing.get(key)
        if running is not None and running.is_alive():
            return
        thread = threading.Thread(
            target=self._gather, args=(key, version, gather), name="referee-view-cache", daemon=True
        )
        self._refreshing[key] = thread
        thread.start()

    def _gather(self, key: Hashable, version: Version, gather: Callable[[], Any]) -> Any:
        # The version is read before gathering: a write during it makes the next request gather
        # again rather than keep a value older than its version says.
        value = gather()
        with self._lock:
            self._kept[key] = (version, value)
        return value
