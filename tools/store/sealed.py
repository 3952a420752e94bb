"""Sealed evidence: what a hold-out check printed is kept outside the repository.

A hold-out's test output quotes the test (pytest shows the failing lines, JUnit carries the
messages), and `.referee/` sits inside the repository the generator works in. So the evidence of a
hold-out criterion is stored in two parts: the database keeps a stub (command, exit code, outcome
names, summary, and the SHA-256 of the full item), and the full item and its artifacts go to the
sealed folder beside the hold-out vault, which the sandbox masks. Reading the item back joins the
two and checks the digest: a sealed file changed or removed is `StoreTampered`.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from referee.tools.models.evidence import EvidenceItem
from referee.tools.store.integrity import StoreTampered

__all__ = ["seal", "unseal"]


def seal(item: EvidenceItem, folder: Path) -> EvidenceItem:
    """Write the full item to `folder` and return the stub the database keeps."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    body = item.model_dump_json(by_alias=True).encode("utf-8")
    temporary = folder / f"{item.id}.json.tmp"
    temporary.write_bytes(body)
    os.replace(temporary, folder / f"{item.id}.json")
    tests = [t.model_copy(update={"message": ""}) for t in item.tests]
    return item.model_copy(
        update={
            "stdout": "",
            "stderr": "",
            "tests": tests,
            "details": {},
            "artifacts": [],
            "sealed": hashlib.sha256(body).hexdigest(),
        }
    )


def unseal(stub: EvidenceItem, folder: Path) -> EvidenceItem:
    """The full item of a stub, checked against the stub's digest."""
    path = folder / f"{stub.id}.json"
    try:
        body = path.read_bytes()
    except OSError as exc:
        raise StoreTampered(f"sealed evidence {path}", f"cannot be read ({exc.strerror})") from exc
    if hashlib.sha256(body).hexdigest() != stub.sealed:
        raise StoreTampered(f"sealed evidence {path}", "differs from what referee stored")
    return EvidenceItem.model_validate_json(body)
