"""The store's schema, declared once for both backends (SQLAlchemy Core).

SQLite and PostgreSQL get the same tables from these declarations (`CREATE TABLE` is rendered
per dialect), so a column added here exists on both. The column order is part of every row's MAC
(store/integrity.py): `mac` stays the last column of each table, and a new column goes at the end.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, Integer, LargeBinary, MetaData, Table, Text

__all__ = [
    "AUTO_IDS",
    "BLOBS",
    "COLUMNS",
    "INDEXES",
    "KEYS",
    "METADATA",
    "SEALED",
    "TABLES",
    "UNSEALED",
    "meta",
    "sealed_columns",
]

METADATA = MetaData()


def _text(name: str, *, nullable: bool = False, key: bool = False) -> Column[str]:
    return Column(name, Text, nullable=nullable, primary_key=key)


def _auto_id() -> Column[int]:
    # AUTOINCREMENT on SQLite (ids are never reused after a delete), SERIAL on PostgreSQL.
    return Column("id", Integer, primary_key=True, autoincrement=True)


def _size() -> Column[int]:
    return Column("size", BigInteger, nullable=False)


def _mac() -> Column[str]:
    return Column("mac", Text, nullable=True)


contracts = Table(
    "contracts",
    METADATA,
    _text("id", key=True),
    _text("created_at"),
    _text("goal"),
    _text("body"),
    _mac(),
)
contract_config = Table(
    "contract_config",
    METADATA,
    _text("contract_id", key=True),
    _text("digest"),
    _text("body"),
    _mac(),
)
runs = Table(
    "runs",
    METADATA,
    _text("run_id", key=True),
    _text("contract_id"),
    _text("evaluator", nullable=True),
    Column("iteration", Integer, nullable=False),
    _text("created_at"),
    _text("tree", nullable=True),
    _text("commit_sha", nullable=True),
    _text("body"),
    _text("signature"),
    _mac(),
    # Schema 3. The order runs were stored in (what SQLite's rowid gave before): runs stored
    # with one timestamp keep it on PostgreSQL too. Outside the MAC, so that the rows of a store
    # of schema 2 still verify once it is added; it orders runs of one timestamp, nothing more.
    Column("seq", Integer, nullable=True),
    Index("runs_by_contract", "contract_id", "iteration"),
    Index("runs_in_order", "seq"),
)
evidence = Table(
    "evidence",
    METADATA,
    _text("run_id", key=True),
    _text("evidence_id", key=True),
    _text("body"),
    _mac(),
)
scorecards = Table(
    "scorecards",
    METADATA,
    _auto_id(),
    _text("contract_id"),
    _text("evaluator"),
    Column("iteration", Integer, nullable=False),
    _text("format"),
    Column("variant", Text, nullable=False, server_default="original"),
    _text("stored_at"),
    _text("run_id", nullable=True),
    _text("body"),
    _text("computed"),
    Column("superseded_by", Integer, nullable=True),
    _mac(),
    Index("scorecards_by_contract", "contract_id", "iteration", "evaluator"),
    sqlite_autoincrement=True,
)
aggregates = Table(
    "aggregates",
    METADATA,
    _auto_id(),
    _text("contract_id"),
    Column("iteration", Integer, nullable=False),
    _text("decision"),
    _text("created_at"),
    _text("body"),
    _mac(),
    sqlite_autoincrement=True,
)
calibration = Table(
    "calibration",
    METADATA,
    _auto_id(),
    Column("scorecard_id", Integer, nullable=False),
    _text("verdict"),
    _text("note"),
    _text("created_at"),
    _mac(),
    sqlite_autoincrement=True,
)
captures = Table(
    "captures",
    METADATA,
    _text("run_id", key=True),
    _text("session_id"),
    _text("cwd"),
    _text("started_at"),
    _text("last_at"),
    Column("items", Integer, nullable=False, server_default="0"),
    _mac(),
)
# Schema 3. The root commits of the repository a contract was created in: any clone of that
# history evaluates the contract (store/clones.py), wherever it is checked out.
contract_repos = Table(
    "contract_repos",
    METADATA,
    _text("contract_id", key=True),
    _text("roots"),
    _mac(),
)
# Schema 3. The full evidence of hold-out criteria in a server store: the team's database is
# outside every repository, and a folder on one machine is not there for the next (store/sealed.py).
sealed_evidence = Table(
    "sealed_evidence",
    METADATA,
    _text("run_id", key=True),
    _text("evidence_id", key=True),
    _text("body"),
    _mac(),
)
# Schema 3. The iteration a tree was given when its evaluation started, before its run is stored:
# two evaluations of new trees running at once (two CI jobs) get two iterations, not one each.
iteration_claims = Table(
    "iteration_claims",
    METADATA,
    _text("contract_id", key=True),
    _text("tree", key=True),
    Column("iteration", Integer, nullable=False),
    _mac(),
)
# Schema 4. Which runs carry a planted defect, and what the judge's card made of it
# (store/canaries.py): the only place that tells a canary's run from a real one.
canaries = Table(
    "canaries",
    METADATA,
    _text("run_id", key=True),
    _text("contract_id"),
    _text("evaluator", nullable=True),
    Column("iteration", Integer, nullable=False),
    _text("source_run_id"),
    _text("created_at"),
    _text("defect"),
    Column("scorecard_id", Integer, nullable=True),
    _text("outcome", nullable=True),
    _mac(),
)
# Schema 4. What the client reported an iteration cost (store/budget.py).
usage = Table(
    "usage",
    METADATA,
    _auto_id(),
    _text("contract_id"),
    Column("iteration", Integer, nullable=False),
    _text("role"),
    _text("body"),
    _text("created_at"),
    _mac(),
    sqlite_autoincrement=True,
)
# Schema 5. The files of a store that must travel with its rows (a team store's run artifacts,
# hold-out files and screenshot baselines), each kept once by its SHA-256 (store/files.py). The
# MAC covers the digest and the size; the bytes are bound to them by the digest, checked on
# every read, so a body edited in the database is refused like an edited row.
blobs = Table(
    "blobs",
    METADATA,
    _text("sha256", key=True),
    _size(),
    Column("body", LargeBinary, nullable=False),
    _mac(),
)
# Schema 5. Which file a run's evidence names by `path` (as the recording machine wrote it) and
# the blob that holds it; `size` is the file's size on that machine (larger than the blob's
# when the file was over the cap and only its head and tail were kept).
run_files = Table(
    "run_files",
    METADATA,
    _text("run_id", key=True),
    _text("path", key=True),
    _text("sha256"),
    _size(),
    _mac(),
)
# Schema 5. A team store's hold-out vault: a contract's hold-out files at their tree paths.
holdout_files = Table(
    "holdout_files",
    METADATA,
    _text("contract_id", key=True),
    _text("path", key=True),
    _text("sha256"),
    _size(),
    _text("criterion", nullable=True),
    _text("added_at"),
    _mac(),
)
# Schema 5. A team store's screenshot baselines (tools/browser/baselines.py).
baselines = Table(
    "baselines",
    METADATA,
    _text("contract_id", key=True),
    _text("criterion_id", key=True),
    _text("name", key=True),
    _text("sha256"),
    _text("run_id"),
    _text("how"),
    _text("at"),
    _mac(),
)
# The schema version, the key check and nothing else: no row MAC, nothing a verdict rests on.
meta = Table("meta", METADATA, _text("key", key=True), _text("value"))

SEALED = sealed_evidence.name
TABLES = tuple(t.name for t in METADATA.sorted_tables if t.name != "meta")
"""Every table that carries row MACs."""
INDEXES = frozenset(i.name for t in METADATA.tables.values() for i in t.indexes if i.name)
KEYS = {t.name: tuple(c.name for c in t.primary_key.columns) for t in METADATA.tables.values()}
"""Each table's primary key columns (how a row is found again to reseal it)."""
COLUMNS = {t.name: tuple(c.name for c in t.columns) for t in METADATA.tables.values()}
UNSEALED = frozenset({"mac", "seq"})
"""Columns outside a row's MAC: the MAC itself, and the order of runs."""
BLOBS = blobs.name
_BY_DIGEST = {(BLOBS, "body")}
"""Columns the MAC covers through a digest column instead (a file's bytes: its SHA-256)."""


def sealed_columns(table: str) -> tuple[str, ...]:
    """The columns a row's MAC covers, in order."""
    return tuple(c for c in COLUMNS[table] if c not in UNSEALED and (table, c) not in _BY_DIGEST)


AUTO_IDS = frozenset(
    t.name
    for t in METADATA.tables.values()
    if KEYS[t.name] == ("id",) and isinstance(t.c.id.type, Integer)
)
"""Tables whose id the database assigns."""
