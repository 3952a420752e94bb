"""Files kept in the store's database, so that they go where its rows go.

A team store (PostgreSQL) is read by many machines, and a file in one machine's `.referee/` is
not there for the next: its run artifacts (logs, reports, screenshots, traces), hold-out files
and screenshot baselines are kept in the database instead. Each file is one row of `blobs`, keyed
by the SHA-256 of its bytes (stored once, however many rows name it); the rows that name a file
(`run_files`, `holdout_files`, `baselines`) carry its digest under their own MAC. Reading a file
checks the blob's MAC and recomputes the digest, so a body edited in the database is
`store_tampered`, as an edited row is.

The embedded store (SQLite) keeps its files in folders, as it always has, and its database never
holds one (`.referee/` is inside the repository: no hold-out's bytes may be in it). A run imported
from another store has its files written into this store's own folder of the run (carried.py),
where the paths its evidence names (another machine's) are looked up too. Either way a run's file
is read through `run_file` (its bytes) or `local_run_file` (a file on this machine, for what is
served or embedded as one).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from referee.tools.store.integrity import StoreTampered
from referee.tools.store.schema import BLOBS

if TYPE_CHECKING:
    from referee.tools.models.evidence import EvidenceItem
    from referee.tools.store.db import Row, Store, Tx

__all__ = [
    "FILE_LIMIT",
    "RUN_FILES",
    "file_bytes",
    "keep_run_files",
    "kept_bytes",
    "local_copy",
    "local_run_file",
    "on_disk",
    "put_file",
    "read_capped",
    "run_file",
]

RUN_FILES = "run_files"
# Twice the recorder's cap on a log (16 MiB): room for a capped log whose redaction marks are
# longer than what they replaced. A file larger than this keeps its head and tail only.
FILE_LIMIT = 32 * 1024 * 1024
_MARKER_ROOM = 128  # what read_capped's marker line adds to the bytes it keeps


def read_capped(path: Path, limit: int) -> bytes:
    """A file's bytes; of a file larger than `limit`, its head and tail around a marker.

    Raises:
        OSError: the file cannot be read (FileNotFoundError when it is missing).
    """
    size = path.stat().st_size
    with path.open("rb") as handle:
        if size <= limit:
            return handle.read(limit)
        head = handle.read(limit // 2)
        handle.seek(size - limit // 2)
        return head + f"\n[... {size - limit} bytes cut by referee ...]\n".encode() + handle.read()


def kept_bytes(path: Path) -> bytes:
    """What the store keeps of a file: all of it, or its head and tail within FILE_LIMIT.

    Raises:
        OSError: the file cannot be read.
    """
    return read_capped(path, FILE_LIMIT - _MARKER_ROOM)


def put_file(store: Store, tx: Tx, data: bytes) -> str:
    """Keep `data` in the store (once per content), inside the caller's transaction; returns its
    SHA-256.

    Raises:
        ValueError: `data` is over FILE_LIMIT (callers cap what they keep).
    """
    if len(data) > FILE_LIMIT:
        raise ValueError(f"a stored file holds at most {FILE_LIMIT} bytes, not {len(data)}")
    digest = hashlib.sha256(data).hexdigest()
    if tx.execute(f"SELECT 1 FROM {BLOBS} WHERE sha256 = ?", (digest,)).fetchone() is None:
        store.insert(tx, BLOBS, {"sha256": digest, "size": len(data), "body": data})
    return digest


def file_bytes(store: Store, digest: str, what: str) -> bytes:
    """The bytes kept under `digest`, verified.

    Raises:
        StoreTampered: the blob is missing, its row does not verify, or its bytes are not the
            ones its digest names.
    """
    row = store.query_one(f"SELECT * FROM {BLOBS} WHERE sha256 = ?", (digest,))
    if row is None:
        raise StoreTampered(what, "is missing from the store")
    store.verified(BLOBS, row, what)
    data = bytes(row["body"])
    if len(data) != int(row["size"]) or hashlib.sha256(data).hexdigest() != digest:
        raise StoreTampered(what, "differs from what referee stored")
    return data


def keep_run_files(store: Store, tx: Tx, run_id: str, items: Iterable[EvidenceItem]) -> None:
    """Keep every artifact the items name in the database (a team store's runs), inside the
    transaction that stores the run: a run is never stored without its files."""
    kept: set[str] = set()
    for item in items:
        for path in item.artifacts:
            if path in kept:
                continue
            try:
                data = kept_bytes(Path(path))
                size = Path(path).stat().st_size
            except OSError:
                continue  # named but never written (the item's details say which)
            digest = put_file(store, tx, data)
            row = {"run_id": run_id, "path": path, "sha256": digest, "size": size}
            store.insert(tx, RUN_FILES, row)
            kept.add(path)


def run_file(store: Store, run_id: str, path: str) -> bytes | None:
    """The bytes of a file a run's evidence names: from the database when it keeps the file (a
    team store's run), else from this machine's disk; None when neither has it.

    Raises:
        StoreTampered: the database's copy does not verify.
    """
    row = _run_file_row(store, run_id, path)
    if row is None:
        local = on_disk(store, run_id, path)
        return local.read_bytes() if local else None
    return file_bytes(store, str(row["sha256"]), _what(run_id, path))


def local_run_file(store: Store, run_id: str, path: str, *, sealed: bool) -> Path | None:
    """A file a run's evidence names, as a file on this machine: for what is served or embedded
    by path (a trace, a report's screenshot). A file the database keeps is written into this
    store's own folder of the run (a hold-out's into the vault's, never under the repository's
    `.referee/`), once; else the file on disk, if any.

    Raises:
        StoreTampered: the database's copy does not verify.
    """
    row = _run_file_row(store, run_id, path)
    if row is None:
        return on_disk(store, run_id, path)
    target = _copy_of(store, run_id, path, sealed)
    if not (target.is_file() and _digest(target) == row["sha256"]):
        data = file_bytes(store, str(row["sha256"]), _what(run_id, path))
        local_copy(store, run_id, path, data, sealed=sealed)
    return target


def on_disk(store: Store, run_id: str, path: str) -> Path | None:
    """Where a run's file is on this machine: the path its evidence names, or (a run imported
    from another store) this store's own copy of it."""
    for found in (
        Path(path),
        _copy_of(store, run_id, path, False),
        _copy_of(store, run_id, path, True),
    ):
        if found.is_file():
            return found
    return None


def local_copy(store: Store, run_id: str, path: str, data: bytes, *, sealed: bool) -> bool:
    """Write this store's own copy of a run's file; False when it holds those bytes already."""
    target = _copy_of(store, run_id, path, sealed)
    if target.is_file() and target.read_bytes() == data:
        return False
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    partial = target.with_name(target.name + ".partial")
    partial.write_bytes(data)
    os.replace(partial, target)
    return True


def _copy_of(store: Store, run_id: str, path: str, sealed: bool) -> Path:
    return (store.sealed if sealed else store.artifacts) / run_id / _inside_run(path, run_id)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _run_file_row(store: Store, run_id: str, path: str) -> Row | None:
    """The verified row naming a run's file, or None when the database does not keep it."""
    row = store.query_one(
        f"SELECT * FROM {RUN_FILES} WHERE run_id = ? AND path = ?", (run_id, path)
    )
    return None if row is None else store.verified(RUN_FILES, row, _what(run_id, path))


def _what(run_id: str, path: str) -> str:
    return f"the file {PurePath(path).name} of run {run_id}"


def _inside_run(path: str, run_id: str) -> str:
    """Where a file lies in its run's folder: what follows the run id in the recorded path, else
    its name alone (never a part that leaves the folder)."""
    parts = PurePath(path).parts
    if run_id in parts:
        rest = parts[len(parts) - parts[::-1].index(run_id) :]
        if rest and all(p not in ("", ".", "..") for p in rest):
            return "/".join(rest)
    return PurePath(path).name
