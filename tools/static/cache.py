"""SQLite cache of analysis results keyed by (content SHA, config key, analyser).

Per-file rows hold `Outcome`s (rule, line, message, measure: no path, no secret value). The
cross-file duplicate scan is stored in the same table under a SHA of the whole file list.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from referee.tools.static.model import Outcome

_BATCH = 500
_KEEP_DOCUMENTS = 8
_SCHEMA = """
CREATE TABLE IF NOT EXISTS static_cache (
    sha TEXT NOT NULL, cfg TEXT NOT NULL, analyser TEXT NOT NULL, result TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (sha, cfg, analyser)
) WITHOUT ROWID
"""
_INSERT = "INSERT OR REPLACE INTO static_cache VALUES (?, ?, ?, ?, ?)"
_EMPTY = ""
# Shared by every empty row; outcomes read from the cache are never mutated.
_NOTHING = Outcome()


class ResultCache:
    """A connection to the cache database, or a no-op cache when `path` is None.

    A cache that cannot be opened, read or written costs speed only: the problem is noted in
    `errors` and the run goes on uncached.
    """

    def __init__(self, path: Path | None, cfg: str) -> None:
        self.cfg = cfg
        self.errors: list[str] = []
        self._db: sqlite3.Connection | None = None
        if path is not None:
            with self._guard("open"):
                self._db = _connect(path)

    def close(self) -> None:
        """Close the connection (idempotent)."""
        if self._db is not None:
            self._db.close()
            self._db = None

    def outcomes(self, shas: Iterable[str]) -> dict[tuple[str, str], Outcome]:
        """Stored outcomes by (sha, analyser) for the given content SHAs."""
        found: dict[tuple[str, str], Outcome] = {}
        unique = list(set(shas))
        if self._db is not None:
            with self._guard("read"):
                for start in range(0, len(unique), _BATCH):
                    found.update(_read(self._db, self.cfg, unique[start : start + _BATCH]))
        return found

    def store_outcomes(self, rows: Sequence[tuple[str, str, Outcome]]) -> None:
        """Store outcomes by (sha, analyser) in one transaction."""
        if self._db is None or not rows:
            return
        now = time.time()
        with self._guard("write"), self._db:
            self._db.execute("BEGIN")
            self._db.executemany(
                _INSERT, [(sha, self.cfg, a, _encode(o), now) for sha, a, o in rows]
            )

    def document(self, key: str, analyser: str) -> object | None:
        """A stored JSON document (e.g. a duplicate scan) or None."""
        row = None
        if self._db is not None:
            with self._guard("read"):
                row = self._db.execute(
                    "SELECT result FROM static_cache WHERE sha = ? AND cfg = ? AND analyser = ?",
                    (key, self.cfg, analyser),
                ).fetchone()
        return json.loads(row[0]) if row else None

    def store_document(self, key: str, analyser: str, value: object) -> None:
        """Store a JSON document, keeping only the most recent few of that analyser."""
        if self._db is None:
            return
        with self._guard("write"), self._db:
            self._db.execute("BEGIN")
            self._db.execute(_INSERT, (key, self.cfg, analyser, json.dumps(value), time.time()))
            self._db.execute(
                "DELETE FROM static_cache WHERE analyser = ? AND sha NOT IN "
                "(SELECT sha FROM static_cache WHERE analyser = ? ORDER BY created DESC LIMIT ?)",
                (analyser, analyser, _KEEP_DOCUMENTS),
            )

    @contextmanager
    def _guard(self, action: str) -> Iterator[None]:
        try:
            yield
        except (sqlite3.Error, OSError) as exc:
            self.errors.append(f"static cache: could not {action}: {exc}")
            self.close()


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(_SCHEMA)
    except sqlite3.Error:
        db.close()
        raise
    return db


def _read(
    db: sqlite3.Connection, cfg: str, shas: list[str]
) -> Iterator[tuple[tuple[str, str], Outcome]]:
    marks = ",".join("?" * len(shas))
    # Only placeholders are formatted into the statement; values are bound.
    query = f"SELECT sha, analyser, result FROM static_cache WHERE cfg = ? AND sha IN ({marks})"
    for sha, analyser, result in db.execute(query, [cfg, *shas]):
        yield (sha, analyser), _decode(result)


def _encode(outcome: Outcome) -> str:
    # Most files have nothing to report: an empty string skips JSON on the warm path.
    return json.dumps(outcome.to_data()) if outcome.items or outcome.errors else _EMPTY


def _decode(text: str) -> Outcome:
    return Outcome.from_data(json.loads(text)) if text else _NOTHING
