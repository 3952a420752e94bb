"""The running app's cache of the contracts list: gathering every contract's status costs a few
queries per contract (seconds for thousands), and the list is asked for far more often than the
store changes.

The cache is kept while the store's files are unchanged: SQLite in WAL mode writes every commit to
`referee.db-wal` (and a checkpoint to `referee.db`), so their size and modification time change
with any write, by this process or another (an evaluate in a terminal). A store that keeps no
such files (a database server) is re-read after `ttl_s` seconds instead.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

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


class RowCache:
    """The contracts list's rows per audience, gathered again when the store changed."""

    def __init__(self, store: Store, ttl_s: float = 2.0) -> None:
        self.store, self.ttl_s = store, ttl_s
        self._lock = threading.Lock()
        self._rows: dict[Audience, tuple[Version, list[ContractRow]]] = {}

    def rows(self, audience: Audience) -> list[ContractRow]:
        version = store_version(self.store, self.ttl_s)
        with self._lock:  # one gathering at a time: concurrent requests wait for it
            cached = self._rows.get(audience)
            if cached is not None and cached[0] == version:
                return cached[1]
            rows = contract_rows(self.store, audience)
            self._rows[audience] = (version, rows)
            return rows
