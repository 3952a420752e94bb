"""Moving a store's rows to another store: `referee store export` and `referee store import`.

An export is one JSON document: every row of every table, each verified on the way out (a
tampered store is not copied), with its MAC, the full items of sealed evidence (from the vault
folder of an embedded store, or the `sealed_evidence` table of a team store), and the store's
files: run artifacts, hold-out files and screenshot baselines (carried.py). An import checks that
the file was sealed with the importing store's key, or with the key the caller names as the
source's (then every row is re-sealed with the importing key: rekey.py), and verifies every row
with it (a file edited in between is `store_tampered`), then writes the rows in one transaction:
ids the database assigns are given anew and the references to them (a superseded scorecard, a
human verdict's scorecard) follow; a row already there is skipped, and a different row under the
same key refuses the whole import (`import_conflict`), so nothing is lost either way.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from referee.tools.errors import InvalidInput, Problem
from referee.tools.store import schema
from referee.tools.store.carried import Folders, decoded, encoded, folder_rows
from referee.tools.store.db import KEY_CHECK, Store, Tx
from referee.tools.store.integrity import MAC_COLUMN, StoreKeyMismatch, StoreTampered, row_mac
from referee.tools.store.rekey import resealed

__all__ = ["FORMAT", "Imported", "export_store", "import_store"]

FORMAT = "referee-store-export"
_ORDER = {"runs": "seq", "evidence": "run_id, evidence_id"}


@dataclass
class Imported:
    """How many rows of each table were written, and how many were there already."""

    written: dict[str, int] = field(default_factory=dict)
    present: dict[str, int] = field(default_factory=dict)


def export_store(store: Store) -> dict[str, Any]:
    """Every row of the store, verified, as one JSON-ready document."""
    tables: dict[str, list[dict[str, Any]]] = {}
    for table in (*_in_order(), *([schema.SEALED] if store.shared else [])):
        keys = ", ".join(schema.KEYS[table])
        order = _ORDER.get(table, keys)
        rows = store.query(f"SELECT * FROM {table} ORDER BY {order}")
        tables[table] = [encoded(table, _row(store, table, r)) for r in rows]
    if not store.shared:
        tables[schema.SEALED] = list(_sealed_files(store, tables["evidence"]))
        folder_rows(store, tables)
    return {
        "format": FORMAT,
        "schema_version": store.schema_version(),
        "key_check": _key_check(store.key),
        "tables": tables,
    }


def import_store(
    store: Store, document: dict[str, Any], source_key: bytes | None = None
) -> Imported:
    """Write an export's rows into `store` (see the module docstring).

    Args:
        store: The store to write into.
        document: What `export_store` returned.
        source_key: The key the export was sealed with, when it is not `store`'s: every row is
            verified with it, then sealed again with `store`'s key.

    Raises:
        StoreKeyMismatch: the export was sealed with another key (than `source_key`, if given).
        StoreTampered: a row of the file does not verify.
        InvalidInput: not an export (`invalid_export`), or a row conflicts (`import_conflict`).
    """
    tables = _checked(store, document, source_key)
    if source_key is not None and source_key != store.key:
        tables = resealed(store, tables, source_key)
    done = Imported()
    ids: dict[str, dict[int, int]] = {}
    folders = None if store.shared else Folders(store, tables)
    with store.transaction() as tx:
        for table in (*_in_order(), schema.SEALED):
            for row in tables.get(table, []):
                if folders is not None and table in Folders.TABLES:
                    _import_file(folders, table, row, done)
                else:
                    _import_row(store, tx, table, row, ids, done)
        _follow_references(store, tx, tables, ids)
    return done


def _import_file(folders: Folders, table: str, row: dict[str, Any], done: Imported) -> None:
    """An export's file (or sealed item) into an embedded store's folders (its blobs go with the
    rows naming them)."""
    if table == schema.BLOBS:
        return
    try:
        wrote = folders.write(table, row)
    except ValueError:
        raise _conflict(table, [row[k] for k in schema.KEYS[table]]) from None
    counts = done.written if wrote else done.present
    counts[table] = counts.get(table, 0) + 1


def _in_order() -> Iterator[str]:
    # Scorecards before calibration, whose rows name them; the sealed items come last.
    first = ("contracts", "contract_config", "contract_repos", "runs", "evidence", "scorecards")
    yield from first
    yield from (t for t in schema.TABLES if t not in first and t != schema.SEALED)


def _row(store: Store, table: str, row: Any) -> dict[str, Any]:
    store.verified(table, row, f"{table} row {[row[k] for k in schema.KEYS[table]]}")
    return {c: row[c] for c in schema.COLUMNS[table] if c != "seq"}


def _sealed_files(store: Store, evidence: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The full items of an embedded store's sealed evidence, as rows of the team table."""
    for row in evidence:
        stub = json.loads(row["body"])
        if not stub.get("sealed"):
            continue
        path = store.sealed / row["run_id"] / f"{row['evidence_id']}.json"
        body = path.read_bytes()
        if hashlib.sha256(body).hexdigest() != stub["sealed"]:
            raise StoreTampered(f"sealed evidence {path}", "differs from what referee stored")
        sealed = {"run_id": row["run_id"], "evidence_id": row["evidence_id"]}
        sealed["body"] = body.decode("utf-8")
        yield {**sealed, MAC_COLUMN: store.mac(schema.SEALED, sealed)}


def _key_check(key: bytes) -> str:
    return hmac.new(key, KEY_CHECK, hashlib.sha256).hexdigest()


def _checked(
    store: Store, document: dict[str, Any], source_key: bytes | None
) -> dict[str, list[dict[str, Any]]]:
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise InvalidInput(
            [
                Problem(
                    path="/format",
                    code="invalid_export",
                    message=f"not a store export (its format is not {FORMAT!r})",
                )
            ]
        )
    key = store.key if source_key is None else source_key
    if not hmac.compare_digest(str(document.get("key_check", "")), _key_check(key)):
        raise StoreKeyMismatch(
            "export",
            "pass the key it was sealed with (--from-key-file FILE) to re-seal its rows with"
            " this store's key"
            if source_key is None
            else "it is not the key of --from-key-file either",
        )
    tables: dict[str, list[dict[str, Any]]] = document.get("tables") or {}
    for table, rows in tables.items():
        if table not in schema.TABLES:
            raise StoreTampered(f"the export's table {table!r}", "is not one referee has")
        for row in rows:
            mac = row_mac(key, table, store.columns[table], row)
            if not hmac.compare_digest(mac, str(row.get(MAC_COLUMN))):
                raise StoreTampered(f"the export's {table} row", "does not verify")
    return {table: [decoded(table, row) for row in rows] for table, rows in tables.items()}


def _import_row(
    store: Store,
    tx: Tx,
    table: str,
    row: dict[str, Any],
    ids: dict[str, dict[int, int]],
    done: Imported,
) -> None:
    values = {c: v for c, v in row.items() if c != MAC_COLUMN}
    if table in schema.AUTO_IDS:
        old = int(values.pop("id"))
        if table == "scorecards":
            values["superseded_by"] = None  # set once every scorecard has its new id
        if table == "calibration":
            values["scorecard_id"] = ids["scorecards"][int(values["scorecard_id"])]
        found = _same(tx, table, values, set(ids.get(table, {}).values()))
        if found is not None:
            ids.setdefault(table, {})[old] = found
            done.present[table] = done.present.get(table, 0) + 1
            return
        ids.setdefault(table, {})[old] = store.insert(tx, table, values)
    else:
        keys = schema.KEYS[table]
        where = " AND ".join(f"{k} = ?" for k in keys)
        there = tx.execute(f"SELECT * FROM {table} WHERE {where}", [row[k] for k in keys])
        existing = there.fetchone()
        if existing is not None:
            if existing[MAC_COLUMN] != row[MAC_COLUMN]:
                raise _conflict(table, [row[k] for k in keys])
            done.present[table] = done.present.get(table, 0) + 1
            return
        if table == "runs":
            last = tx.execute("SELECT MAX(seq) AS n FROM runs").fetchone()
            values["seq"] = int(last["n"] or 0) + 1 if last else 1
        store.insert(tx, table, values)
    done.written[table] = done.written.get(table, 0) + 1


def _same(tx: Tx, table: str, values: dict[str, Any], taken: set[int]) -> int | None:
    """The id of a row equal to `values` (a re-import), a scorecard's successor aside, that no
    other row of this import matched (two equal rows stay two)."""
    columns = [c for c in values if c != "superseded_by"]
    where = " AND ".join(f"{c} = ?" if values[c] is not None else f"{c} IS NULL" for c in columns)
    params = [values[c] for c in columns if values[c] is not None]
    for found in tx.execute(f"SELECT id FROM {table} WHERE {where} ORDER BY id", params):
        if int(found["id"]) not in taken:
            return int(found["id"])
    return None


def _follow_references(
    store: Store, tx: Tx, tables: dict[str, list[dict[str, Any]]], ids: dict[str, dict[int, int]]
) -> None:
    """Point each imported scorecard that was superseded at its successor's new id."""
    mapped = ids.get("scorecards", {})
    for row in tables.get("scorecards", []):
        successor = row.get("superseded_by")
        if successor is None:
            continue
        new_id, new_successor = mapped[int(row["id"])], mapped.get(int(successor))
        tx.execute("UPDATE scorecards SET superseded_by = ? WHERE id = ?", (new_successor, new_id))
        store.reseal(tx, "scorecards", new_id)


def _conflict(table: str, key: list[Any]) -> InvalidInput:
    return InvalidInput(
        [
            Problem(
                path=f"/tables/{table}",
                code="import_conflict",
                message=(
                    f"the store already holds another {table} row {key}: nothing was imported;"
                    " import into a store that does not hold a different version of it"
                ),
            )
        ]
    )
