"""The files an export carries beside the rows: run artifacts, hold-out files, screenshot baselines.

An export holds them as rows of the team store's tables (`blobs`, `run_files`, `holdout_files`,
`baselines`), each sealed with the exporting store's key, whichever store wrote it: a team store's
are its rows; an embedded store's are read from its folders (the run's files where its evidence
names them, the vault beside the key, the baselines under its home) and sealed on the way out.

Importing into a team store writes them as rows, like every other table. Importing into an
embedded store writes them where that store keeps its files: a run's files into its folder of the
run (a hold-out's into the vault's, never under the repository's `.referee/`), the hold-outs into
its vault, the baselines under its home; the embedded database never holds a file.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from referee.tools.store import schema
from referee.tools.store.db import Store
from referee.tools.store.files import RUN_FILES, kept_bytes, local_copy, on_disk
from referee.tools.store.integrity import MAC_COLUMN, StoreTampered

__all__ = ["Folders", "decoded", "encoded", "folder_rows"]

HOLDOUTS, BASELINES = "holdout_files", "baselines"


def encoded(table: str, row: dict[str, Any]) -> dict[str, Any]:
    """A row as JSON holds it: a blob's bytes in base64."""
    if table != schema.BLOBS:
        return row
    return {**row, "body": base64.b64encode(bytes(row["body"])).decode("ascii")}


def decoded(table: str, row: dict[str, Any]) -> dict[str, Any]:
    """A row of an export as the store holds it, a blob's bytes checked against their digest.

    Raises:
        StoreTampered: a blob's bytes are not the ones its (sealed) digest names.
    """
    if table != schema.BLOBS:
        return row
    try:
        body = base64.b64decode(str(row.get("body")), validate=True)
    except ValueError as exc:
        raise StoreTampered("the export's blobs row", "is not base64") from exc
    if hashlib.sha256(body).hexdigest() != row.get("sha256") or len(body) != row.get("size"):
        raise StoreTampered(f"the export's file {row.get('sha256')}", "differs from its digest")
    return {**row, "body": body}


@dataclass
class _Rows:
    """Rows gathered for an export, each sealed with the store's key."""

    store: Store
    tables: dict[str, list[dict[str, Any]]]

    def add(self, table: str, row: dict[str, Any]) -> None:
        sealed = {**row, MAC_COLUMN: self.store.mac(table, row)}
        self.tables.setdefault(table, []).append(encoded(table, sealed))

    def file(self, data: bytes, known: set[str]) -> str:
        digest = hashlib.sha256(data).hexdigest()
        if digest not in known:
            known.add(digest)
            self.add(schema.BLOBS, {"sha256": digest, "size": len(data), "body": data})
        return digest


def folder_rows(store: Store, tables: dict[str, list[dict[str, Any]]]) -> None:
    """Add an embedded store's files to the rows of its export (`tables`, its rows so far)."""
    from referee.tools.browser.baselines import BaselineStore
    from referee.tools.holdouts.vault import Vault

    rows = _Rows(store, tables)
    known = {str(r["sha256"]) for r in tables.get(schema.BLOBS, [])}
    for run_id, path in _named_files(tables):
        found = on_disk(store, run_id, path)
        if found is None:
            continue
        data, size = kept_bytes(found), found.stat().st_size
        row = {"run_id": run_id, "path": path, "sha256": rows.file(data, known), "size": size}
        rows.add(RUN_FILES, row)
    vault = Vault(store.vault, store.key)
    baselines = BaselineStore(store.home / "baselines", store.key)
    for contract in tables.get("contracts", []):
        cid = str(contract["id"])
        for entry in vault.files(cid):
            digest = rows.file(vault.data(cid, entry), known)
            rows.add(HOLDOUTS, {"contract_id": cid, **_entry_fields(entry), "sha256": digest})
        for criterion, name in baselines.names(cid):
            kept = baselines.load(cid, criterion, name)
            if kept is not None:
                rows.file(kept.png, known)
                rows.add(BASELINES, {k: v for k, v in vars(kept).items() if k != "png"})


def _named_files(tables: dict[str, list[dict[str, Any]]]) -> Iterator[tuple[str, str]]:
    """(run id, path) of every file a run's evidence names (a sealed item's full body included)
    that the store's database does not keep already."""
    kept = {(r["run_id"], r["path"]) for r in tables.get(RUN_FILES, [])}
    bodies = [*tables.get("evidence", []), *tables.get(schema.SEALED, [])]
    seen: set[tuple[str, str]] = set()
    for row in bodies:
        for path in json.loads(row["body"]).get("artifacts") or []:
            named = (str(row["run_id"]), str(path))
            if named not in kept and named not in seen:
                seen.add(named)
                yield named


def _entry_fields(entry: Any) -> dict[str, Any]:
    return {k: getattr(entry, k) for k in ("path", "size", "criterion", "added_at")}


class Folders:
    """Writes an export's files into an embedded store's folders (its database holds none), and
    the full items of its sealed evidence into the vault's."""

    TABLES = (schema.BLOBS, RUN_FILES, HOLDOUTS, BASELINES, schema.SEALED)
    """The tables whose rows an embedded store keeps as files."""

    def __init__(self, store: Store, tables: dict[str, list[dict[str, Any]]]) -> None:
        from referee.tools.browser.baselines import BaselineStore
        from referee.tools.holdouts.vault import Vault

        self._store = store
        self._blobs = {str(r["sha256"]): bytes(r["body"]) for r in tables.get(schema.BLOBS, [])}
        self._sealed = {
            (str(r["run_id"]), str(p))
            for r in tables.get(schema.SEALED, [])
            for p in json.loads(r["body"]).get("artifacts") or []
        }
        self._vault = Vault(store.vault, store.key)
        self._baselines = BaselineStore(store.home / "baselines", store.key)

    def write(self, table: str, row: dict[str, Any]) -> bool:
        """Write one row's file; False when the store holds it already.

        Raises:
            ValueError: the store holds another file under the same name (a conflict).
        """
        if table == schema.BLOBS:
            return False  # written with the rows that name it
        if table == schema.SEALED:
            return self._sealed_item(row)
        data = self._data(row)
        if table == RUN_FILES:
            return self._run_file(row, data)
        if table == HOLDOUTS:
            return self._holdout(row, data)
        return self._baseline(row, data)

    def _data(self, row: dict[str, Any]) -> bytes:
        digest = str(row["sha256"])
        if digest not in self._blobs:
            raise StoreTampered(f"the export's file {digest}", "is missing from it")
        return self._blobs[digest]

    def _run_file(self, row: dict[str, Any], data: bytes) -> bool:
        run_id, path = str(row["run_id"]), str(row["path"])
        sealed = (run_id, path) in self._sealed
        return local_copy(self._store, run_id, path, data, sealed=sealed)

    def _sealed_item(self, row: dict[str, Any]) -> bool:
        """A hold-out's full evidence item, where the embedded store seals it (store/sealed.py)."""
        target = self._store.sealed / str(row["run_id"]) / f"{row['evidence_id']}.json"
        data = str(row["body"]).encode("utf-8")
        if target.is_file() and target.read_bytes() == data:
            return False
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        target.write_bytes(data)
        return True

    def _holdout(self, row: dict[str, Any], data: bytes) -> bool:
        from referee.tools.holdouts.vault import HoldoutFile

        cid = str(row["contract_id"])
        entry = HoldoutFile(
            path=str(row["path"]),
            sha256=str(row["sha256"]),
            size=int(row["size"]),
            criterion=row["criterion"],
            added_at=str(row["added_at"]),
        )
        there = {e.path: e for e in self._vault.files(cid)}.get(entry.path)
        if there is not None:
            return _same(there == entry, f"hold-out file {entry.path} of {cid}")
        self._vault.keep(cid, [(entry, data)])
        return True

    def _baseline(self, row: dict[str, Any], data: bytes) -> bool:
        from referee.tools.browser.baselines import Baseline

        made = Baseline(**{k: str(row[k]) for k in _BASELINE_FIELDS}, png=data)
        there = self._baselines.load(made.contract_id, made.criterion_id, made.name)
        if there is not None:
            return _same(there == made, f"baseline {made.contract_id}/{made.name}")
        self._baselines.save(made)
        return True


_BASELINE_FIELDS = ("contract_id", "criterion_id", "name", "sha256", "run_id", "how", "at")


def _same(equal: bool, what: str) -> bool:
    if not equal:
        raise ValueError(what)
    return False
