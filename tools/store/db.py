"""The embedded store: `.referee/` with a SQLite database (WAL) and an artifacts folder."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS contracts (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    goal TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    contract_id TEXT NOT NULL,
    evaluator TEXT,
    iteration INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    tree TEXT,
    commit_sha TEXT,
    body TEXT NOT NULL,
    signature TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_contract ON runs (contract_id, iteration);
CREATE TABLE IF NOT EXISTS evidence (
    run_id TEXT NOT NULL,
    evidence_id TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (run_id, evidence_id)
);
CREATE TABLE IF NOT EXISTS scorecards (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    contract_id TEXT NOT NULL,
    evaluator TEXT NOT NULL,
    iteration INTEGER NOT NULL,
    format TEXT NOT NULL,
    variant TEXT NOT NULL DEFAULT 'original',
    stored_at TEXT NOT NULL,
    run_id TEXT,
    body TEXT NOT NULL,
    computed TEXT NOT NULL,
    superseded_by INTEGER
);
CREATE INDEX IF NOT EXISTS scorecards_by_contract ON scorecards (contract_id, iteration, evaluator);
CREATE TABLE IF NOT EXISTS aggregates (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    contract_id TEXT NOT NULL,
    iteration INTEGER NOT NULL,
    decision TEXT NOT NULL,
    created_at TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS calibration (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    scorecard_id INTEGER NOT NULL,
    verdict TEXT NOT NULL,
    note TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS captures (
    run_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    cwd TEXT NOT NULL,
    started_at TEXT NOT NULL,
    last_at TEXT NOT NULL,
    items INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

_GITIGNORE = "# referee's local state: database, artifacts, signing key\n*\n"


class Store:
    """One `.referee/` folder: referee.db, artifacts/ and the evaluation signing key.

    The connection is shared by the server's tasks; a lock serialises writes and
    `busy_timeout` lets a CLI process and the server use the same database.
    """

    def __init__(self, home: Path) -> None:
        self.home = home
        self.home.mkdir(parents=True, exist_ok=True)
        self._ensure_gitignore()
        self.artifacts = home / "artifacts"
        self.artifacts.mkdir(exist_ok=True)
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(
            home / "referee.db", check_same_thread=False, isolation_level=None
        )
        self._conn.row_factory = sqlite3.Row
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA busy_timeout=10000")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._migrate()

    def _ensure_gitignore(self) -> None:
        gitignore = self.home / ".gitignore"
        if not gitignore.exists():
            gitignore.write_text(_GITIGNORE, encoding="utf-8")

    def _migrate(self) -> None:
        with self._lock:
            self._conn.executescript(_SCHEMA)
            self._conn.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)",
                (str(SCHEMA_VERSION),),
            )

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; rolled back if the block raises."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def query_one(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Row | None:
        with self._lock:
            row: sqlite3.Row | None = self._conn.execute(sql, params).fetchone()
            return row

    def run_artifacts(self, run_id: str) -> Path:
        path = self.artifacts / run_id
        path.mkdir(parents=True, exist_ok=True)
        return path

    def close(self) -> None:
        with self._lock:
            self._conn.close()
