"""The store: `.referee/` (artifacts, and the embedded SQLite database) and the database itself,
SQLite in that folder by default or a team's PostgreSQL named by URL (store/backend.py).

Every row carries an HMAC (`mac`) made with the signing key, which lives outside the store; reads
verify it (store/integrity.py). The database must hold only the objects created here. Statements
are written once, with `?` placeholders, in the SQL both databases speak.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import threading
import weakref
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, text
from sqlalchemy.exc import DBAPIError

from referee.tools.store import schema
from referee.tools.store.backend import Backend, open_backend, unexpected_objects
from referee.tools.store.integrity import (
    MAC_COLUMN,
    Columns,
    StoreKeyMismatch,
    StoreTampered,
    StoreUnavailable,
    row_mac,
)
from referee.tools.store.keys import KeySource
from referee.tools.store.location import vault_root
from referee.tools.store.migrations import SCHEMA_VERSION, migrate, schema_version, set_meta

__all__ = ["KEY_CHECK", "SCHEMA_VERSION", "Row", "Store", "Tx"]

# Everything here is local state (database, artifacts, signing key, vault), except the two folders
# a team commits for `referee ci`: the exported contracts and the evaluators' scorecards. Both stay
# out of the tree hash, so committing them does not change the tree they judge.
_GITIGNORE = (
    "# referee's local state: database, artifacts, signing key\n*\n"
    "# committed for `referee ci`: contracts (referee contract export) and scorecards\n"
    "!contracts/\n!contracts/**\n!scorecards/\n!scorecards/**\n"
)
# What the meta table keeps to tell a wrong key from tampered rows: an HMAC of a fixed text, which
# says nothing about the key but whether it is the one the store's rows were sealed with.
KEY_CHECK = b"referee store key check"


class Row:
    """A stored row, read by column name (`row["body"]`) or position (`row[0]`)."""

    __slots__ = ("_index", "_values")

    def __init__(self, values: Sequence[Any], names: Sequence[str]) -> None:
        self._values = tuple(values)
        index: dict[str, int] = {}
        for position, name in enumerate(names):
            index.setdefault(name, position)  # a join's first column of a name, as sqlite3.Row
        self._index = index

    def __getitem__(self, key: int | str) -> Any:
        return self._values[self._index[key] if isinstance(key, str) else key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def keys(self) -> list[str]:
        return list(self._index)


class Rows:
    """The rows a statement returned (the part of a DB-API cursor the store's modules use)."""

    def __init__(self, rows: list[Row], rowcount: int = -1) -> None:
        self._rows = rows
        self.rowcount = rowcount

    def fetchone(self) -> Row | None:
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list[Row]:
        return list(self._rows)

    def __iter__(self) -> Iterator[Row]:
        return iter(self._rows)


class Tx:
    """A write transaction: statements with `?` placeholders, on either database."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        return _run(self.conn, sql, params)


class Store:
    """One store: the `.referee/` folder (artifacts, the embedded database) and its database.

    The store is shared by the server's tasks; a lock serialises its use in one process, and each
    write is a transaction that holds the database's write lock (SQLite's, or an advisory lock on
    PostgreSQL), so several processes and machines can write one store.
    """

    def __init__(
        self,
        home: Path,
        key: bytes | None = None,
        vault: Path | None = None,
        url: str | None = None,
    ) -> None:
        """Open (or create) the store at `home`, migrating its schema to the current version.

        Args:
            home: The `.referee/` folder (or REFEREE_HOME); artifacts live here.
            key: The signing key; default REFEREE_KEY or the user's key file.
            vault: The store's hold-out vault (outside the repository); default from the
                environment. Hold-out evidence is sealed there (store/sealed.py).
            url: A PostgreSQL database (`postgresql://…`) instead of `home/referee.db`.

        Raises:
            StoreTampered: the database holds objects referee did not create.
            StoreUnavailable: the database cannot be reached, or the URL is not PostgreSQL's.
            StoreKeyMismatch: the store's rows were sealed with another key.
        """
        self.home = home
        self.key = key if key is not None else KeySource.from_env(os.environ).load()
        self.home.mkdir(parents=True, exist_ok=True)
        self._ensure_gitignore()
        self.artifacts = home / "artifacts"
        self.artifacts.mkdir(exist_ok=True)
        self.vault = vault or vault_root(os.environ, home)
        """The embedded store's hold-out vault (outside the repository; tools/holdouts/)."""
        self.sealed = self.vault / "evidence"
        self._lock = threading.RLock()
        self._local = threading.local()
        try:
            self._backend: Backend = open_backend(home, url)
        except ValueError as exc:
            raise StoreUnavailable("URL", f"is refused ({exc})") from exc
        # A store dropped without close() still closes its pooled connections, when it goes.
        weakref.finalize(self, self._backend.engine.dispose)
        self.where = self._backend.where
        """The database as messages name it (never with a password)."""
        self.columns = {t: list(schema.sealed_columns(t)) for t in schema.TABLES}
        self._open()

    @property
    def backend(self) -> str:
        """ "sqlite" (the embedded store) or "postgresql" (a team store)."""
        return self._backend.kind

    @property
    def shared(self) -> bool:
        """The database is a server's, outside every repository (a team store)."""
        return self._backend.kind != "sqlite"

    def _ensure_gitignore(self) -> None:
        gitignore = self.home / ".gitignore"
        if not gitignore.exists():
            gitignore.write_text(_GITIGNORE, encoding="utf-8")

    def _open(self) -> None:
        """Migrate when behind and check the key; a store already current is only read."""
        check = hmac.new(self.key, KEY_CHECK, hashlib.sha256).hexdigest()
        with self._connected() as conn:
            self._check_objects(conn)
            current = schema_version(conn) == SCHEMA_VERSION
            stored = self._meta(conn, "key_check") if current else None
            conn.rollback()
        if not current or stored is None:
            with self.transaction() as tx:
                migrate(tx.conn)
                stored = self._meta(tx.conn, "key_check")
                if stored is None:
                    set_meta(tx.conn, "key_check", check)
                    stored = check
        if not hmac.compare_digest(stored, check):
            self.close()
            raise StoreKeyMismatch(self.where)

    @staticmethod
    def _meta(conn: Connection, key: str) -> str | None:
        row = conn.execute(text("SELECT value FROM meta WHERE key = :k"), {"k": key}).first()
        return None if row is None else str(row[0])

    def migrate(self) -> list[int]:
        """Run the migrations the database has not had (the constructor already did); returns
        the versions applied."""
        with self.transaction() as tx:
            return [m.version for m in migrate(tx.conn)]

    def schema_version(self) -> int:
        with self._connected() as conn:
            return schema_version(conn)

    def _check_objects(self, conn: Connection) -> None:
        found = unexpected_objects(self._backend, conn)
        if found:
            raise StoreTampered(
                f"the database {self.where}",
                f"holds objects referee never creates ({', '.join(found)})",
            )

    def mac(self, table: str, row: Mapping[str, Any] | Columns) -> str:
        """The MAC of a row of `table` (every column but the MAC)."""
        return row_mac(self.key, table, self.columns[table], row)

    def insert(self, conn: Tx, table: str, row: Mapping[str, Any]) -> int:
        """Insert a row with its MAC inside a transaction; returns its id (tables whose id the
        database assigns), else 0."""
        if table not in _ASSIGNED:
            # Every sealed column is known before the insert: one statement, MAC included.
            full = {c: row.get(c) for c in self.columns[table]}
            extra = {c: row[c] for c in row if c not in full}
            values = {**full, **extra, MAC_COLUMN: self.mac(table, full)}
            names = ", ".join(values)
            conn.execute(
                f"INSERT INTO {table} ({names}) VALUES ({', '.join('?' * len(values))})",
                list(values.values()),
            )
            return 0
        columns = [c for c in schema.COLUMNS[table] if c in row and c != MAC_COLUMN]
        marks = ", ".join("?" * (len(columns) + 1))
        stored = conn.execute(
            f"INSERT INTO {table} ({', '.join(columns)}, {MAC_COLUMN}) VALUES ({marks})"
            " RETURNING *",
            [*(row[c] for c in columns), ""],
        ).fetchone()
        assert stored is not None  # an INSERT … RETURNING returns its row
        self._seal(conn, table, stored)
        return int(stored["id"]) if table in schema.AUTO_IDS else 0

    def reseal(self, conn: Tx, table: str, key: Any) -> None:
        """Recompute a row's MAC after referee changed it (`key`: its primary key's value)."""
        (column,) = schema.KEYS[table]
        stored = conn.execute(f"SELECT * FROM {table} WHERE {column} = ?", (key,)).fetchone()
        if stored is not None:
            self._seal(conn, table, stored)

    def _seal(self, conn: Tx, table: str, stored: Row) -> None:
        keys = schema.KEYS[table]
        where = " AND ".join(f"{k} = ?" for k in keys)
        conn.execute(
            f"UPDATE {table} SET {MAC_COLUMN} = ? WHERE {where}",
            (self.mac(table, stored), *(stored[k] for k in keys)),
        )

    def verified(self, table: str, row: Row, what: str) -> Row:
        """The row itself when its MAC verifies, else StoreTampered naming `what`."""
        if row[MAC_COLUMN] is None or not hmac.compare_digest(
            self.mac(table, row), row[MAC_COLUMN]
        ):
            raise StoreTampered(
                what, "does not verify (its row was written or changed outside referee)"
            )
        return row

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """A write transaction; rolled back if the block raises (a lost connection included:
        StoreUnavailable, with nothing of the block stored)."""
        with self._lock, self._connected(write=True) as conn:
            tx = Tx(conn)
            self._local.tx = tx
            try:
                self._backend.begin_write(conn)
                self._check_objects(conn)
                yield tx
                conn.commit()
            except BaseException:
                _rollback(conn)
                raise
            finally:
                self._local.tx = None

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Rows of a read (inside this thread's transaction when one is open)."""
        tx: Tx | None = getattr(self._local, "tx", None)
        if tx is not None:
            return tx.execute(sql, params).fetchall()
        with self._lock, self._connected() as conn:
            rows = _run(conn, sql, params).fetchall()
            conn.rollback()
            return rows

    def query_one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    @contextmanager
    def _connected(self, write: bool = False) -> Iterator[Connection]:
        """A connection; a database error of the driver (server gone, connection lost) becomes
        StoreUnavailable, naming the database without its password."""
        try:
            with self._backend.engine.connect() as conn:
                if write:
                    conn = conn.execution_options(referee_write=True)
                yield conn
        except DBAPIError as exc:
            if not _lost(exc):
                raise
            raise StoreUnavailable(self.where, _reason(exc)) from None

    def run_artifacts(self, run_id: str) -> Path:
        path = self.artifacts / run_id
        path.mkdir(parents=True, exist_ok=True)
        return path

    def close(self) -> None:
        with self._lock:
            self._backend.engine.dispose()


# Tables where the database fills a sealed column (an id, a default): their rows are sealed once
# inserted, as the database wrote them.
_ASSIGNED = schema.AUTO_IDS | {
    t.name for t in schema.METADATA.tables.values() if any(c.server_default for c in t.columns)
}


def _run(conn: Connection, sql: str, params: Sequence[Any]) -> Rows:
    names = iter(range(len(params)))
    bound = _PLACEHOLDER.sub(lambda _m: f":p{next(names)}", sql)
    result = conn.execute(text(bound), {f"p{i}": v for i, v in enumerate(params)})
    if not result.returns_rows:
        return Rows([], result.rowcount)
    keys = list(result.keys())
    return Rows([Row(r, keys) for r in result.all()])


# A `?` outside a quoted literal (the store's statements quote no `?`).
_PLACEHOLDER = re.compile(r"\?(?=(?:[^']*'[^']*')*[^']*$)")


def _rollback(conn: Connection) -> None:
    try:
        conn.rollback()
    except DBAPIError:  # the connection is gone: the server rolls the transaction back itself
        conn.invalidate()


def _lost(exc: DBAPIError) -> bool:
    """The server is gone, unreachable or dropped the connection (psycopg's OperationalError);
    SQLite's OperationalError also means a bad statement, so its errors stay what they are."""
    from sqlalchemy.exc import InterfaceError, OperationalError

    if exc.connection_invalidated:
        return True
    return (
        isinstance(exc, (OperationalError, InterfaceError))
        and "psycopg" in type(exc.orig).__module__
    )


def _reason(exc: DBAPIError) -> str:
    # The driver's first line (psycopg's "connection to server at … failed: …"): never the URL,
    # which psycopg does not repeat, and never a statement's parameters.
    first = str(exc.orig).strip().splitlines()[0] if str(exc.orig).strip() else type(exc).__name__
    return f"cannot be reached or lost its connection ({first[:200]})"
