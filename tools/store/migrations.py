"""Versioned migrations of the store's schema, the same steps on SQLite and PostgreSQL.

The version lives in the `meta` table (`schema_version`), which referee has kept since its first
schema. Each step runs once, in order, inside the write transaction that opened the store (so two
processes starting at once do not both run a step: SQLite's write lock, PostgreSQL's advisory
lock), and the version moves with it. A store written by a newer referee is refused, not
downgraded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Connection, inspect, select, text

from referee.tools.store import schema

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "Migration", "migrate", "schema_version"]


@dataclass(frozen=True)
class Migration:
    version: int
    what: str
    apply: Callable[[Connection], None]


def _create(*names: str) -> Callable[[Connection], None]:
    def create(conn: Connection) -> None:
        tables = [schema.METADATA.tables[n] for n in names]
        schema.METADATA.create_all(conn, tables=tables, checkfirst=True)

    return create


_FIRST = (
    "meta",
    "contracts",
    "contract_config",
    "runs",
    "evidence",
    "scorecards",
    "aggregates",
    "calibration",
    "captures",
)


def _add_macs(conn: Connection) -> None:
    # Stores of schema 1 had no row MACs: the column is added empty, so their rows never verify
    # (store_tampered) and such a store has to be started afresh.
    for name in _FIRST[1:]:
        present = {c["name"] for c in inspect(conn).get_columns(name)}
        if "mac" not in present:
            conn.execute(text(f"ALTER TABLE {name} ADD COLUMN mac TEXT"))


def _schema_3(conn: Connection) -> None:
    _create(*schema.TABLES)(conn)
    present = {c["name"] for c in inspect(conn).get_columns("runs")}
    if "seq" not in present:  # a store of schema 2 (SQLite): its runs keep their rowid order
        conn.execute(text("ALTER TABLE runs ADD COLUMN seq INTEGER"))
        conn.execute(text("UPDATE runs SET seq = rowid"))
    for index in schema.METADATA.tables["runs"].indexes:
        index.create(conn, checkfirst=True)


MIGRATIONS = (
    Migration(
        1,
        "contracts, runs, evidence, scorecards, aggregates, calibration, captures",
        _create(*_FIRST),
    ),
    Migration(2, "a MAC on every row", _add_macs),
    Migration(3, "contracts known by root commit; sealed evidence; the order of runs", _schema_3),
    Migration(4, "canary runs and their outcomes; reported usage", _create("canaries", "usage")),
    Migration(
        5,
        "files in the store: run artifacts, hold-out files, screenshot baselines",
        _create("blobs", "run_files", "holdout_files", "baselines"),
    ),
)
SCHEMA_VERSION = MIGRATIONS[-1].version


def schema_version(conn: Connection) -> int:
    """The version the database is at (0 for an empty database)."""
    if not inspect(conn).has_table("meta"):
        return 0
    value = conn.execute(
        select(schema.meta.c.value).where(schema.meta.c.key == "schema_version")
    ).scalar()
    return int(value) if value is not None else 0


def migrate(conn: Connection) -> list[Migration]:
    """Run the steps the database has not had (inside the caller's write transaction).

    Raises:
        ValueError: the database is at a version this referee does not know.
    """
    found = schema_version(conn)
    if found > SCHEMA_VERSION:
        raise ValueError(
            f"the store is at schema {found}, newer than this referee's {SCHEMA_VERSION}:"
            " upgrade referee"
        )
    applied = [m for m in MIGRATIONS if m.version > found]
    for step in applied:
        step.apply(conn)
        set_meta(conn, "schema_version", str(step.version))
    return applied


def set_meta(conn: Connection, key: str, value: str) -> None:
    """Write one `meta` entry (delete and insert: the same statement on both backends)."""
    conn.execute(schema.meta.delete().where(schema.meta.c.key == key))
    conn.execute(schema.meta.insert().values(key=key, value=value))
