"""Sealed evidence: what a hold-out check printed is kept outside the repository.

A hold-out's test output quotes the test (pytest shows the failing lines, JUnit carries the
messages), and `.referee/` sits inside the repository the generator works in. So the evidence of a
hold-out criterion is stored in two parts: the database keeps a stub (command, exit code, outcome
names, summary, and the SHA-256 of the full item), and the full item and its artifacts go to the
sealed folder beside the hold-out vault, which the sandbox masks. Reading the item back joins the
two and checks the digest: a sealed file changed or removed is `StoreTampered`.

A team store (PostgreSQL) is outside every repository already, and a folder on one machine is not
there for the next: its full items go to the `sealed_evidence` table instead (store/runs.py), with
the same stub and digest.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from referee.tools.models.evidence import EvidenceItem
from referee.tools.store.integrity import StoreTampered

__all__ = ["opened", "seal", "stub_of", "unseal"]


def seal(item: EvidenceItem, folder: Path) -> EvidenceItem:
    """Write the full item to `folder` and return the stub the database keeps."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    stub, body = stub_of(item)
    temporary = folder / f"{item.id}.json.tmp"
    temporary.write_bytes(body)
    os.replace(temporary, folder / f"{item.id}.json")
    return stub


def stub_of(item: EvidenceItem) -> tuple[EvidenceItem, bytes]:
    """The stub the evidence table keeps, and the full item's bytes (kept elsewhere)."""
    body = item.model_dump_json(by_alias=True).encode("utf-8")
    tests = [t.model_copy(update={"message": ""}) for t in item.tests]
    stub = item.model_copy(
        update={
            "stdout": "",
            "stderr": "",
            "tests": tests,
            "details": {},
            "artifacts": [],
            "sealed": hashlib.sha256(body).hexdigest(),
        }
    )
    return stub, body


def unseal(stub: EvidenceItem, folder: Path) -> EvidenceItem:
    """The full item of a stub, checked against the stub's digest."""
    path = folder / f"{stub.id}.json"
    try:
        body = path.read_bytes()
    except OSError as exc:
        raise StoreTampered(f"sealed evidence {path}", f"cannot be read ({exc.strerror})") from exc
    return opened(stub, body, f"sealed evidence {path}")


def opened(stub: EvidenceItem, body: bytes, what: str) -> EvidenceItem:
    """The full item kept for a stub, when its digest is the stub's."""
    if hashlib.sha256(body).hexdigest() != stub.sealed:
        raise StoreTampered(what, "differs from what referee stored")
    return EvidenceItem.model_validate_json(body)
