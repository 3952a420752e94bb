"""The baselines `screenshot` expectations compare with, kept in referee's store.

Never in the evaluated tree: a generator that could write the baseline would write its own
page's image there, as a rewritten snapshot file passes a snapshot test. A baseline is the
image of a delivered iteration (recorded when aggregate delivers it) or one accepted by hand
(`referee baseline accept RUN CRITERION`). The embedded store keeps it as `<home>/baselines/
<contract>/<criterion>/<name>.png` beside a record of where it came from, MAC'd with the store's
key; a team store keeps it in its database (a sealed `baselines` row naming the image's blob), so
that a baseline delivered on one machine holds on every other. Either way a baseline replaced
outside referee is refused, as a store row edited outside it is.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from referee.tools.store.files import file_bytes, put_file
from referee.tools.store.integrity import StoreTampered

if TYPE_CHECKING:
    from referee.tools.store.db import Store

__all__ = [
    "Baseline",
    "BaselineStore",
    "Baselines",
    "StoredBaselines",
    "shot_file",
    "store_baselines",
]

_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,120}$")


def store_baselines(store: Store) -> Baselines:
    """The baselines kept by `store`: in its database for a team store, else in its home."""
    if store.shared:
        return StoredBaselines(store)
    return BaselineStore(store.home / "baselines", store.key)


def shot_file(criterion: str, name: str, kind: str = "actual") -> str:
    """The file name a run keeps a screenshot expectation's image under (`actual` or `diff`)."""
    return f"{criterion}.shot-{name}.{kind}.png"


@dataclass(frozen=True)
class Baseline:
    contract_id: str
    criterion_id: str
    name: str
    sha256: str
    run_id: str  # the run whose image it is
    how: str  # delivered · accepted by hand
    at: str  # ISO time it was stored
    png: bytes = b""


class Baselines(ABC):
    """The baselines of one store."""

    @abstractmethod
    def load(self, contract_id: str, criterion_id: str, name: str) -> Baseline | None:
        """The stored baseline, or None.

        Raises:
            StoreTampered: the image or its record was written outside referee.
        """

    @abstractmethod
    def save(self, baseline: Baseline) -> Path | None:
        """Store (or replace) a baseline; returns its image's path when it is a file."""

    @abstractmethod
    def names(self, contract_id: str) -> list[tuple[str, str]]:
        """(criterion, name) of every baseline kept for a contract."""


class BaselineStore(Baselines):
    """The baselines of an embedded store (its folder and its key)."""

    def __init__(self, root: Path, key: bytes) -> None:
        self.root, self._key = root, key

    def load(self, contract_id: str, criterion_id: str, name: str) -> Baseline | None:
        folder = self._folder(contract_id, criterion_id)
        record, image = folder / f"{name}.json", folder / f"{name}.png"
        if not record.is_file() and not image.is_file():
            return None
        what = f"the baseline {contract_id}/{criterion_id}/{name}"
        try:
            data = json.loads(record.read_text(encoding="utf-8"))
            png = image.read_bytes()
            found = Baseline(**{k: str(data[k]) for k in _FIELDS}, png=png)
            mac = str(data["mac"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise StoreTampered(what, f"cannot be read ({exc})") from exc
        if not hmac.compare_digest(mac, self._mac(found)):
            raise StoreTampered(what, "does not verify")
        if hashlib.sha256(png).hexdigest() != found.sha256:
            raise StoreTampered(what, "does not match its digest")
        return found

    def save(self, baseline: Baseline) -> Path:
        folder = self._folder(baseline.contract_id, baseline.criterion_id)
        _safe(baseline.name)
        folder.mkdir(parents=True, exist_ok=True)
        record = {k: v for k, v in asdict(baseline).items() if k != "png"}
        record["mac"] = self._mac(baseline)
        image = folder / f"{baseline.name}.png"
        # The image first: a record that verifies never points at an image not yet written.
        _write(image, baseline.png)
        _write(folder / f"{baseline.name}.json", json.dumps(record, indent=1).encode())
        return image

    def names(self, contract_id: str) -> list[tuple[str, str]]:
        folder = self.root / _safe(contract_id)
        return sorted(
            (p.parent.name, p.stem) for p in folder.glob("*/*.json") if _SAFE.match(p.stem)
        )

    def _folder(self, contract_id: str, criterion_id: str) -> Path:
        return self.root / _safe(contract_id) / _safe(criterion_id)

    def _mac(self, b: Baseline) -> str:
        fields = [getattr(b, k) for k in _FIELDS]
        return hmac.new(self._key, "\0".join(fields).encode(), hashlib.sha256).hexdigest()


class StoredBaselines(Baselines):
    """A team store's baselines: a sealed row each, its image a blob of the database."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def load(self, contract_id: str, criterion_id: str, name: str) -> Baseline | None:
        for part in (contract_id, criterion_id, name):
            _safe(part)
        row = self._store.query_one(
            f"SELECT * FROM {_TABLE} WHERE contract_id = ? AND criterion_id = ? AND name = ?",
            (contract_id, criterion_id, name),
        )
        if row is None:
            return None
        what = f"the baseline {contract_id}/{criterion_id}/{name}"
        self._store.verified(_TABLE, row, what)
        png = file_bytes(self._store, str(row["sha256"]), what)
        return Baseline(**{k: str(row[k]) for k in _FIELDS}, png=png)

    def save(self, baseline: Baseline) -> None:
        for part in (baseline.contract_id, baseline.criterion_id, baseline.name):
            _safe(part)
        if hashlib.sha256(baseline.png).hexdigest() != baseline.sha256:
            raise ValueError(f"the baseline {baseline.name}'s image is not the one it names")
        record = {k: v for k, v in asdict(baseline).items() if k != "png"}
        with self._store.transaction() as tx:
            put_file(self._store, tx, baseline.png)
            tx.execute(
                f"DELETE FROM {_TABLE} WHERE contract_id = ? AND criterion_id = ? AND name = ?",
                (baseline.contract_id, baseline.criterion_id, baseline.name),
            )
            self._store.insert(tx, _TABLE, record)

    def names(self, contract_id: str) -> list[tuple[str, str]]:
        rows = self._store.query(
            f"SELECT criterion_id, name FROM {_TABLE} WHERE contract_id = ?", (contract_id,)
        )
        return sorted((str(r["criterion_id"]), str(r["name"])) for r in rows)


_TABLE = "baselines"
_FIELDS = ("contract_id", "criterion_id", "name", "sha256", "run_id", "how", "at")


def _safe(part: str) -> str:
    if not _SAFE.match(part):
        raise ValueError(f"{part!r} is not a plain name")
    return part


def _write(path: Path, data: bytes) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(data)
    partial.replace(path)
