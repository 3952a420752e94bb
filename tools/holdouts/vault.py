"""The hold-out vault: hold-out test files kept where the generator cannot read them.

A hold-out criterion is only worth something if the generator never sees its test. The files are
therefore not kept in the repository, nor in `.referee/` (which sits inside it): they live beside
the signing key, in `$XDG_DATA_HOME/referee/holdouts/<store>/<contract>/` (or under
`$REFEREE_HOLDOUTS`), a folder the sandbox masks for every command. A manifest lists each file
with its SHA-256, and the manifest carries an HMAC with the signing key, so a file swapped or
added behind referee's back is refused (`StoreTampered`) rather than laid into a run.

When a hold-out check runs, its files are copied into a fresh folder of the run and laid over the
tree in the sandbox's overlay, for that criterion only; the generator's tree never holds them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Protocol

from referee.tools.settings import Settings
from referee.tools.store.integrity import StoreTampered

__all__ = [
    "BUNDLE_CONTRACT",
    "BUNDLE_FILES",
    "FolderSource",
    "HoldoutFile",
    "HoldoutSource",
    "Vault",
    "holdout_source",
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


class Vault:
    """The hold-out files of one store, one folder per contract.

    Args:
        root: The vault's folder for this store.
        key: The signing key (the manifests' MACs).
    """

    def __init__(self, root: Path, key: bytes) -> None:
        self.root, self._key = root, key

    def files(self, contract_id: str) -> list[HoldoutFile]:
        """The contract's hold-out files (none when it has none).

        Raises:
            StoreTampered: the manifest does not verify with the key.
        """
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

    def add(
        self,
        contract_id: str,
        files: Sequence[tuple[str, bytes]],
        criterion: str | None,
        now: str,
    ) -> tuple[list[tuple[HoldoutFile, bool]], int]:
        """Store files (replacing the same paths), the manifest read and written once.

        Returns:
            Each file's entry and whether it replaced one; how many files the contract now has.
        """
        kept = {e.path: e for e in self.files(contract_id)}
        stored = []
        for path, data in files:
            target = self._folder(contract_id) / "files" / path
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            target.write_bytes(data)
            entry = HoldoutFile(path, hashlib.sha256(data).hexdigest(), len(data), criterion, now)
            stored.append((entry, path in kept))
            kept[path] = entry
        self._write(contract_id, sorted(kept.values(), key=lambda e: e.path))
        return stored, len(kept)

    def lay(self, contract_id: str, criterion_id: str, dest: Path) -> Path | None:
        """Copy one criterion's files into `dest` (a layer for its check); None when it has none.

        Raises:
            StoreTampered: a file's digest differs from the manifest's.
        """
        chosen = [e for e in self.files(contract_id) if e.criterion in (None, criterion_id)]
        if not chosen:
            return None
        for entry in chosen:
            target = dest / entry.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(self._verified(contract_id, entry))
        return dest

    def names(self, contract_id: str) -> list[str]:
        return [e.path for e in self.files(contract_id)]

    def texts(self, contract_id: str) -> list[str]:
        """What the files say.

        Raises:
            StoreTampered: a file's digest differs from the manifest's.
        """
        return [_text(self._verified(contract_id, e)) for e in self.files(contract_id)]

    def _verified(self, contract_id: str, entry: HoldoutFile) -> bytes:
        source = self._folder(contract_id) / "files" / entry.path
        data = source.read_bytes() if source.is_file() else b""
        if hashlib.sha256(data).hexdigest() != entry.sha256:
            raise StoreTampered(
                f"the hold-out file {source}", "differs from the one referee stored"
            )
        return data

    def export(self, contract_id: str, dest: Path) -> list[str]:
        """Copy every hold-out file of the contract under `dest` (for CI's `--holdout-dir`)."""
        entries = self.files(contract_id)
        for entry in entries:
            target = dest / entry.path
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(self._folder(contract_id) / "files" / entry.path, target)
        return [e.path for e in entries]

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


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def holdout_source(settings: Settings, key: bytes) -> HoldoutSource:
    """CI's `--holdout-dir` when given, else this store's vault."""
    if settings.holdout_dir is not None:
        return FolderSource(settings.holdout_dir)
    return Vault(settings.vault_root, key)
