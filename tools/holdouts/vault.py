"""The hold-out vault: hold-out test files kept where the generator cannot read them.

A hold-out criterion is only worth something if the generator never sees its test. The files are
therefore not kept in the repository, nor in `.referee/` (which sits inside it). The embedded
store's live beside the signing key, in `$XDG_DATA_HOME/referee/holdouts/<store>/<contract>/` (or
under `$REFEREE_HOLDOUTS`), a folder the sandbox masks for every command. A manifest lists each
file with its SHA-256, and the manifest carries an HMAC with the signing key, so a file swapped or
added behind referee's back is refused (`StoreTampered`) rather than laid into a run. A team
store's live in its database (`StoredVault`), outside every repository and every sandbox, one
sealed row per file, so that a hold-out added from one clone runs in every other.

When a hold-out check runs, its files are copied into a fresh folder of the run and laid over the
tree in the sandbox's overlay, for that criterion only; the generator's tree never holds them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Protocol

from referee.tools.settings import Settings
from referee.tools.store.db import Row, Store
from referee.tools.store.files import file_bytes, put_file
from referee.tools.store.integrity import StoreTampered

__all__ = [
    "BUNDLE_CONTRACT",
    "BUNDLE_FILES",
    "FolderSource",
    "HoldoutFile",
    "HoldoutSource",
    "HoldoutVault",
    "StoredVault",
    "Vault",
    "holdout_source",
    "store_vault",
    "tree_path",
]

_MANIFEST = "manifest.json"
# A bundle (`referee holdout export`, read by `referee ci --holdout-dir`): the full contract and
# the files at their tree paths.
BUNDLE_CONTRACT, BUNDLE_FILES = "contract.yaml", "files"


@dataclass(frozen=True)
class HoldoutFile:
    """One file of the vault: where it lies in the tree, its digest, its criterion (None: all)."""

    path: str
    sha256: str
    size: int
    criterion: str | None
    added_at: str


def tree_path(raw: str) -> str | None:
    """`raw` as a normalised tree-relative posix path, or None when it may not be one.

    Absolute paths, `..`, and referee's or git's own folders are refused: a hold-out file is laid
    over the tree and must stay inside it.
    """
    text = raw.replace("\\", "/").strip()
    if not text or text.startswith("/") or re.match(r"^[A-Za-z]:", text):
        return None
    parts = [p for p in PurePosixPath(text).parts if p not in ("", ".")]
    if not parts or ".." in parts or parts[0] in (".git", ".referee"):
        return None
    return "/".join(parts)


class HoldoutSource(Protocol):
    """Where a run gets a hold-out criterion's files: the vault, or a folder CI was given."""

    def lay(self, contract_id: str, criterion_id: str, dest: Path) -> Path | None: ...

    def names(self, contract_id: str) -> list[str]:
        """The tree paths of the contract's hold-out files."""
        ...

    def texts(self, contract_id: str) -> list[str]:
        """What the contract's hold-out files say (the guard withholds an issue that quotes it)."""
        ...


@dataclass(frozen=True)
class FolderSource:
    """A folder of hold-out files at their tree paths, from outside the repository (CI's
    `--holdout-dir`, filled from a secret or a protected artifact); it serves every hold-out."""

    folder: Path

    def lay(self, contract_id: str, criterion_id: str, dest: Path) -> Path | None:
        return self.folder if self.folder.is_dir() and any(self.folder.iterdir()) else None

    def names(self, contract_id: str) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(
            p.relative_to(self.folder).as_posix() for p in self.folder.rglob("*") if p.is_file()
        )

    def texts(self, contract_id: str) -> list[str]:
        return [_text((self.folder / name).read_bytes()) for name in self.names(contract_id)]


class HoldoutVault(ABC):
    """The hold-out files of one store, by contract: a folder beside the key (the embedded
    store's) or the team store's database."""

    @abstractmethod
    def files(self, contract_id: str) -> list[HoldoutFile]:
        """The contract's hold-out files (none when it has none).

        Raises:
            StoreTampered: what lists them does not verify with the key.
        """

    def add(
        self,
        contract_id: str,
        files: Sequence[tuple[str, bytes]],
        criterion: str | None,
        now: str,
    ) -> tuple[list[tuple[HoldoutFile, bool]], int]:
        """Store files (replacing the same paths) for `criterion` (None: every hold-out).

        Returns:
            Each file's entry and whether it replaced one; how many files the contract now has.
        """
        return self.keep(
            contract_id,
            [
                (
                    HoldoutFile(path, hashlib.sha256(data).hexdigest(), len(data), criterion, now),
                    data,
                )
                for path, data in files
            ],
        )

    @abstractmethod
    def keep(
        self, contract_id: str, files: Sequence[tuple[HoldoutFile, bytes]]
    ) -> tuple[list[tuple[HoldoutFile, bool]], int]:
        """Store files under their entries (replacing the same paths); as `add` returns."""

    @abstractmethod
    def data(self, contract_id: str, entry: HoldoutFile) -> bytes:
        """A file's bytes, checked against its entry's digest.

        Raises:
            StoreTampered: they differ from the ones referee stored.
        """

    def lay(self, contract_id: str, criterion_id: str, dest: Path) -> Path | None:
        """Copy one criterion's files into `dest` (a layer for its check); None when it has none.

        Raises:
            StoreTampered: a file differs from the one referee stored.
        """
        chosen = [e for e in self.files(contract_id) if e.criterion in (None, criterion_id)]
        if not chosen:
            return None
        for entry in chosen:
            target = dest / entry.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(self.data(contract_id, entry))
        return dest

    def names(self, contract_id: str) -> list[str]:
        return [e.path for e in self.files(contract_id)]

    def texts(self, contract_id: str) -> list[str]:
        """What the files say.

        Raises:
            StoreTampered: a file differs from the one referee stored.
        """
        return [_text(self.data(contract_id, e)) for e in self.files(contract_id)]

    def export(self, contract_id: str, dest: Path) -> list[str]:
        """Copy every hold-out file of the contract under `dest` (for CI's `--holdout-dir`)."""
        entries = self.files(contract_id)
        for entry in entries:
            target = dest / entry.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(self.data(contract_id, entry))
        return [e.path for e in entries]


class Vault(HoldoutVault):
    """The embedded store's vault: a folder per contract beside the signing key.

    Args:
        root: The vault's folder for this store.
        key: The signing key (the manifests' MACs).
    """

    def __init__(self, root: Path, key: bytes) -> None:
        self.root, self._key = root, key

    def files(self, contract_id: str) -> list[HoldoutFile]:
        manifest = self._folder(contract_id) / _MANIFEST
        if not manifest.is_file():
            return []
        try:
            doc = json.loads(manifest.read_text(encoding="utf-8"))
            entries = [HoldoutFile(**e) for e in doc["files"]]
            stated = str(doc["mac"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise StoreTampered(
                f"the hold-out manifest {manifest}", f"cannot be read ({exc})"
            ) from exc
        if not hmac.compare_digest(stated, self._mac(contract_id, entries)):
            raise StoreTampered(
                f"the hold-out manifest {manifest}", "does not verify (changed outside referee)"
            )
        return entries

    def keep(
        self, contract_id: str, files: Sequence[tuple[HoldoutFile, bytes]]
    ) -> tuple[list[tuple[HoldoutFile, bool]], int]:
        """The manifest is read and written once."""
        kept = {e.path: e for e in self.files(contract_id)}
        stored = []
        for entry, data in files:
            target = self._folder(contract_id) / "files" / entry.path
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            target.write_bytes(data)
            stored.append((entry, entry.path in kept))
            kept[entry.path] = entry
        self._write(contract_id, sorted(kept.values(), key=lambda e: e.path))
        return stored, len(kept)

    def data(self, contract_id: str, entry: HoldoutFile) -> bytes:
        source = self._folder(contract_id) / "files" / entry.path
        data = source.read_bytes() if source.is_file() else b""
        if hashlib.sha256(data).hexdigest() != entry.sha256:
            raise StoreTampered(
                f"the hold-out file {source}", "differs from the one referee stored"
            )
        return data

    def _folder(self, contract_id: str) -> Path:
        # Contract ids are slugs; anything else is flattened so that it names one folder.
        return self.root / re.sub(r"[^A-Za-z0-9._-]", "_", contract_id)

    def _write(self, contract_id: str, entries: list[HoldoutFile]) -> None:
        folder = self._folder(contract_id)
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        doc = {"files": [asdict(e) for e in entries], "mac": self._mac(contract_id, entries)}
        temporary = folder / (_MANIFEST + ".tmp")
        temporary.write_text(json.dumps(doc, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(temporary, folder / _MANIFEST)

    def _mac(self, contract_id: str, entries: list[HoldoutFile]) -> str:
        body = json.dumps([contract_id, [asdict(e) for e in entries]], sort_keys=True)
        return hmac.new(self._key, body.encode("utf-8"), hashlib.sha256).hexdigest()


class StoredVault(HoldoutVault):
    """A team store's vault: the files in its database (`holdout_files` naming `blobs`), so that
    a hold-out added on one machine runs on every machine and CI job of the store. Every row is
    sealed with the store's key; a file's bytes are checked against its digest when read."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def files(self, contract_id: str) -> list[HoldoutFile]:
        rows = self._store.query(
            f"SELECT * FROM {_TABLE} WHERE contract_id = ? ORDER BY path", (contract_id,)
        )
        return [_entry(self._store.verified(_TABLE, r, _what(contract_id, r))) for r in rows]

    def keep(
        self, contract_id: str, files: Sequence[tuple[HoldoutFile, bytes]]
    ) -> tuple[list[tuple[HoldoutFile, bool]], int]:
        """In one transaction."""
        store, stored = self._store, []
        with store.transaction() as tx:
            for entry, data in files:
                if put_file(store, tx, data) != entry.sha256:
                    raise ValueError(f"the hold-out file {entry.path} is not the one it names")
                gone = tx.execute(
                    f"DELETE FROM {_TABLE} WHERE contract_id = ? AND path = ?",
                    (contract_id, entry.path),
                )
                store.insert(tx, _TABLE, {"contract_id": contract_id, **asdict(entry)})
                stored.append((entry, gone.rowcount > 0))
            count = tx.execute(
                f"SELECT COUNT(*) AS n FROM {_TABLE} WHERE contract_id = ?", (contract_id,)
            ).fetchone()
        return stored, int(count["n"]) if count else 0

    def data(self, contract_id: str, entry: HoldoutFile) -> bytes:
        return file_bytes(self._store, entry.sha256, f"the hold-out file {entry.path}")


_TABLE = "holdout_files"


def _entry(row: Row) -> HoldoutFile:
    return HoldoutFile(
        path=str(row["path"]),
        sha256=str(row["sha256"]),
        size=int(row["size"]),
        criterion=row["criterion"],
        added_at=str(row["added_at"]),
    )


def _what(contract_id: str, row: Row) -> str:
    return f"the hold-out file {row['path']} of {contract_id}"


def store_vault(store: Store) -> HoldoutVault:
    """The hold-out vault of `store`: its database for a team store, else the folder beside the
    key it was opened with."""
    return StoredVault(store) if store.shared else Vault(store.vault, store.key)


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def holdout_source(settings: Settings, store: Store) -> HoldoutSource:
    """CI's `--holdout-dir` when given, else this store's vault."""
    if settings.holdout_dir is not None:
        return FolderSource(settings.holdout_dir)
    return store_vault(store)
