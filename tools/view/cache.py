"""The running app's cache of the contracts list: gathering every contract's status costs a few
queries per contract (seconds for thousands), and the list is asked for far more often than the
store changes.

The cache is kept while the store's files are unchanged: SQLite in WAL mode writes every commit to
`referee.db-wal` (and a checkpoint to `referee.db`), so their size and modification time change
with any write, by this process or another (an evaluate in a terminal). A store that keeps no
such files (a database server) is re-read after `ttl_s` seconds instead. Once the store changed,
the list is gathered again in the background while the previous one is served, marked as being
brought up to date: no request waits seconds for it, except the very first.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from referee.tools.store import Store
from referee.tools.view.gather import contract_rows
from referee.tools.view.pages import Audience, ContractRow

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


class RowCache:
    """The contracts list's rows per audience, gathered again when the store changed."""

    def __init__(self, store: Store, ttl_s: float = 2.0) -> None:
        self.store, self.ttl_s = store, ttl_s
        self._lock = threading.Lock()
        self._rows: dict[Audience, tuple[Version, list[ContractRow]]] = {}
        self._refreshing: dict[Audience, threading.Thread] = {}

    def rows(self, audience: Audience) -> Rows:
        version = store_version(self.store, self.ttl_s)
        with self._lock:
            cached = self._rows.get(audience)
            if cached is not None and cached[0] == version:
                return Rows(cached[1], updating=False)
            if cached is not None:
                self._refresh(audience, version)
                return Rows(cached[1], updating=True)
        return Rows(self._gather(audience, version), updating=False)  # the first: wait for it

    def wait(self) -> None:
        """Until every background gathering has ended (tests, shutting down)."""
        for thread in list(self._refreshing.values()):
            thread.join()

    def _refresh(self, audience: Audience, version: Version) -> None:
        running = self._refreshing.get(audience)
        if running is not None and running.is_alive():
            return
        thread = threading.Thread(
            target=self._gather, args=(audience, version), name="referee-view-rows", daemon=True
        )
        self._refreshing[audience] = thread
        thread.start()

    def _gather(self, audience: Audience, version: Version) -> list[ContractRow]:
        # The version is read before gathering: a write during it makes the next request gather
        # again rather than keep rows older than their version says.
        rows = contract_rows(self.store, audience)
        with self._lock:
            self._rows[audience] = (version, rows)
        return rows
