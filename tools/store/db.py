"""The embedded store: `.referee/` with a SQLite database (WAL) and an artifacts folder.

Every row carries an HMAC (`mac`) made with the signing key, which lives outside the store; reads
verify it (store/integrity.py). The database must hold only the objects created here.
"""

from __future__ import annotations

import hmac
import os
import re
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from referee.tools.store.integrity import MAC_COLUMN, StoreTampered, row_mac, unexpected_objects
from referee.tools.store.keys import KeySource
from referee.tools.store.location import vault_root

SCHEMA_VERSION = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS contracts (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    goal TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS contract_config (
    contract_id TEXT PRIMARY KEY,
    digest TEXT NOT NULL,
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
CREATE TABLE IF NOT EXISTS canaries (
    run_id TEXT PRIMARY KEY,
    contract_id TEXT NOT NULL,
    evaluator TEXT,
    iteration INTEGER NOT NULL,
    source_run_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    defect TEXT NOT NULL,
    scorecard_id INTEGER,
    outcome TEXT
);
CREATE TABLE IF NOT EXISTS usage (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    contract_id TEXT NOT NULL,
    iteration INTEGER NOT NULL,
    role TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

# Everything here is local state (database, artifacts, signing key, vault), except the two folders
# a team commits for `referee ci`: the exported contracts and the evaluators' scorecards. Both stay
# out of the tree hash, so committing them does not change the tree they judge.
_GITIGNORE = (
    "# referee's local state: database, artifacts, signing key\n*\n"
    "# committed for `referee ci`: contracts (referee contract export) and scorecards\n"
    "!contracts/\n!contracts/**\n!scorecards/\n!scorecards/**\n"
)


class Store:
    """One `.referee/` folder: referee.db, artifacts/ and the evaluation signing key.

    The connection is shared by the server's tasks; a lock serialises writes and
    `busy_timeout` lets a CLI process and the server use the same database.
    """

    def __init__(self, home: Path, key: bytes | None = None, vault: Path | None = None) -> None:
        """Open (or create) the store at `home`.

        Args:
            home: The `.referee/` folder (or REFEREE_HOME).
            key: The signing key; default REFEREE_KEY or the user's key file.
            vault: The store's hold-out vault (outside the repository); default from the
                environment. Hold-out evidence is sealed there (store/sealed.py).

        Raises:
            StoreTampered: the database holds objects referee did not create.
        """
        self.home = home
        self.key = key if key is not None else KeySource.from_env(os.environ).load()
        self.home.mkdir(parents=True, exist_ok=True)
        self._ensure_gitignore()
        self.artifacts = home / "artifacts"
        self.artifacts.mkdir(exist_ok=True)
        self.sealed = (vault or vault_root(os.environ, home)) / "evidence"
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
            self._check_objects()
            self._conn.executescript(_SCHEMA)
            self.columns = {table: self._add_mac(table) for table in _TABLES}
            self._conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                (str(SCHEMA_VERSION),),
            )

    def _add_mac(self, table: str) -> list[str]:
        names = [row[1] for row in self._conn.execute(f"PRAGMA table_info({table})")]
        if MAC_COLUMN not in names:  # a store of schema 1: its rows have no MAC and will not verify
            self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {MAC_COLUMN} TEXT")
        return [n for n in names if n != MAC_COLUMN]

    def _check_objects(self) -> None:
        found = unexpected_objects(self._conn, set(_TABLES) | {"meta"}, _INDEXES)
        if found:
            raise StoreTampered(
                f"the database {self.home / 'referee.db'}",
                f"holds objects referee never creates ({', '.join(found)})",
            )

    def mac(self, table: str, row: Mapping[str, Any] | sqlite3.Row) -> str:
        """The MAC of a row of `table` (every column but the MAC)."""
        return row_mac(self.key, table, self.columns[table], row)

    def insert(self, conn: sqlite3.Connection, table: str, row: Mapping[str, Any]) -> int:
        """Insert a row with its MAC inside a transaction; returns its rowid."""
        columns = [c for c in self.columns[table] if c in row]
        marks = ", ".join("?" * (len(columns) + 1))
        cursor = conn.execute(
            f"INSERT INTO {table} ({', '.join(columns)}, {MAC_COLUMN}) VALUES ({marks})",
            [*(row[c] for c in columns), ""],
        )
        rowid = int(cursor.lastrowid or 0)
        self.reseal(conn, table, rowid)
        return rowid

    def reseal(self, conn: sqlite3.Connection, table: str, rowid: int) -> None:
        """Recompute a row's MAC after referee changed it (defaults and ids included)."""
        stored = conn.execute(f"SELECT * FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
        conn.execute(
            f"UPDATE {table} SET {MAC_COLUMN} = ? WHERE rowid = ?", (self.mac(table, stored), rowid)
        )

    def verified(self, table: str, row: sqlite3.Row, what: str) -> sqlite3.Row:
        """The row itself when its MAC verifies, else StoreTampered naming `what`."""
        if row[MAC_COLUMN] is None or not hmac.compare_digest(
            self.mac(table, row), row[MAC_COLUMN]
        ):
            raise StoreTampered(
                what, "does not verify (its row was written or changed outside referee)"
            )
        return row

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; rolled back if the block raises."""
        with self._lock:
            self._check_objects()
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


# Every table but meta (which only holds the schema version) carries row MACs.
_TABLES = tuple(t for t in re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", _SCHEMA) if t != "meta")
_INDEXES = set(re.findall(r"CREATE INDEX IF NOT EXISTS (\w+)", _SCHEMA))
