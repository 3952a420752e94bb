"""The database behind a store: embedded SQLite (the default) or a team's PostgreSQL, by URL.

SQLite keeps today's behaviour: one connection per store in WAL mode, `BEGIN IMMEDIATE` for every
write, so a CLI process and the server serialise their writes. PostgreSQL gets the same
semantics from a transaction-scoped advisory lock taken first in every write: many machines write
one store, and each write transaction (an iteration number, a superseded scorecard, a contract id
suffix) sees the last one's result, as on SQLite.

The URL's password is never shown: `display_url` is what messages, logs and reports name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.pool import StaticPool

from referee.tools.store import schema
from referee.tools.store.location import STORE_URL_ENV

__all__ = [
    "POSTGRES_SCHEMES",
    "STORE_URL_ENV",
    "Backend",
    "display_url",
    "open_backend",
    "parse_store_url",
    "shown_url",
    "url_secrets",
]

POSTGRES_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")
# One number for every writer of a PostgreSQL store ("referee" in ASCII): the lock serialises
# write transactions exactly as SQLite's write lock does.
_WRITE_LOCK = 0x7265666572656500
_CONNECT_TIMEOUT_S = 10


@dataclass(frozen=True)
class Backend:
    """An engine and what differs between the two databases."""

    engine: Engine
    kind: str
    """"sqlite" or "postgresql"."""
    where: str
    """The database, as messages name it (a file path, or the URL without its password)."""

    def begin_write(self, conn: Connection) -> None:
        """Start a write transaction on `conn` (its first statement)."""
        if self.kind == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _WRITE_LOCK})


def parse_store_url(raw: str) -> URL:
    """A team store's URL, with psycopg 3 as its driver.

    Raises:
        ValueError: not a PostgreSQL URL.
    """
    try:
        url = make_url(raw)
    except ArgumentError as exc:
        raise ValueError("the store URL is not a URL (postgresql://user@host/db)") from exc
    if url.drivername not in POSTGRES_SCHEMES:
        raise ValueError(
            f"the store URL's scheme {url.drivername!r} is not postgresql:// (the embedded"
            " store needs no URL: leave it out)"
        )
    return url.set(drivername="postgresql+psycopg")


def display_url(url: URL) -> str:
    """The URL without its password (and with the plain scheme the user wrote)."""
    return url.set(drivername="postgresql").render_as_string(hide_password=True)


def shown_url(raw: str) -> str:
    """A store URL as referee shows it (no password), or why it is not one."""
    try:
        return display_url(parse_store_url(raw))
    except ValueError as exc:
        return f"not a store URL: {exc}"


def url_secrets(raw: str | None) -> list[str]:
    """What of a store URL evidence must never show: the URL itself and its password."""
    if not raw:
        return []
    try:
        password = make_url(raw).password
    except ArgumentError:
        password = None
    return [raw, *([str(password)] if password else [])]


def open_backend(home: Path, url: str | None) -> Backend:
    """The SQLite database in `home`, or the PostgreSQL database at `url`.

    Raises:
        ValueError: `url` is not a PostgreSQL URL.
    """
    if url is None:
        return _sqlite(home / "referee.db")
    parsed = parse_store_url(url)
    engine = create_engine(
        parsed,
        pool_pre_ping=True,  # a connection the server dropped is replaced, not reused
        pool_size=2,
        max_overflow=2,
        connect_args={"connect_timeout": _CONNECT_TIMEOUT_S, "application_name": "referee"},
    )
    return Backend(engine=engine, kind="postgresql", where=display_url(parsed))


def _sqlite(path: Path) -> Backend:
    # One connection shared by the server's threads, as before (a lock in Store serialises them);
    # the driver's own transaction handling is off, and Store begins each transaction itself.
    engine = create_engine(
        URL.create("sqlite", database=str(path)),
        poolclass=StaticPool,
        connect_args={"check_same_thread": False, "isolation_level": None},
    )

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi: Any, _record: Any) -> None:
        cursor = dbapi.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=10000")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        if not conn.get_execution_options().get("referee_write"):
            conn.exec_driver_sql("BEGIN")

    return Backend(engine=engine, kind="sqlite", where=str(path))


_PG_OBJECTS = """
SELECT CASE c.relkind WHEN 'r' THEN 'table' WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence'
       WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'p' THEN 'table'
       WHEN 'f' THEN 'foreign table' ELSE 'relation' END, c.relname
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = current_schema() AND c.relkind <> 'c'
UNION ALL
SELECT 'trigger', t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = current_schema() AND NOT t.tgisinternal
UNION ALL
SELECT 'rule', r.rulename FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class
  JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = current_schema() AND r.rulename <> '_RETURN'
UNION ALL
SELECT 'policy', p.polname FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema()
UNION ALL
SELECT 'function', p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = current_schema()
UNION ALL
SELECT 'event trigger', e.evtname FROM pg_event_trigger e
"""


def unexpected_objects(backend: Backend, conn: Connection) -> list[str]:
    """Objects in the database that referee never creates: triggers, views, rules, policies,
    functions, unknown tables or indexes. Any of them could rewrite or hide a verdict."""
    if backend.kind == "sqlite":
        rows = conn.exec_driver_sql("SELECT type, name FROM sqlite_master").all()
    else:
        rows = conn.execute(text(_PG_OBJECTS)).all()
    own = backend.kind == "sqlite"
    return [f"{kind} {name!r}" for kind, name in rows if not _expected(kind, name, own)]


_TABLE_NAMES = frozenset(schema.METADATA.tables)
# What PostgreSQL makes for the declared tables: primary-key indexes and the SERIAL sequences.
_IMPLIED = frozenset({f"{t}_pkey" for t in _TABLE_NAMES} | {f"{t}_id_seq" for t in schema.AUTO_IDS})


def _expected(kind: str, name: str, sqlite: bool) -> bool:
    if sqlite and name.startswith("sqlite_"):  # sqlite_sequence, sqlite_autoindex_*: its own
        return kind in ("table", "index")
    if kind == "table":
        return name in _TABLE_NAMES
    if kind == "index":
        return name in schema.INDEXES or name in _IMPLIED
    return kind == "sequence" and name in _IMPLIED
