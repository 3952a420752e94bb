"""Row integrity: every row referee stores carries an HMAC over its content.

The key lives outside the store (store/keys.py), so a row written or edited by anyone but referee
(a hostile test in a run without sandbox, a hand-edited database) does not verify and is refused
with the code `store_tampered`. On open, and before every write, the database is checked for
objects referee did not create: a trigger could rewrite every verdict stored after it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from referee.tools.errors import InvalidInput, Problem

__all__ = ["MAC_COLUMN", "StoreTampered", "row_mac", "unexpected_objects"]

MAC_COLUMN = "mac"


class StoreTampered(InvalidInput):
    """A stored row does not verify, or the database holds objects referee did not create."""

    def __init__(self, what: str, detail: str) -> None:
        self.what = what
        message = (
            f"{what} {detail}: referee's store was modified outside referee, so it is refused; "
            "evaluate again into a fresh store (REFEREE_HOME) and investigate who wrote it"
        )
        super().__init__(
            [Problem(path="", code="store_tampered", message=message)],
            summary=f"store_tampered: {message}",
        )


def row_mac(
    key: bytes, table: str, columns: Sequence[str], row: Mapping[str, Any] | sqlite3.Row
) -> str:
    """The HMAC-SHA256 of one row: its table name and every column but the MAC itself, in order."""
    payload = json.dumps(
        [table, *(row[c] for c in columns)], separators=(",", ":"), ensure_ascii=False, default=str
    )
    return hmac.new(key, payload.encode("utf-8"), hashlib.sha256).hexdigest()


def unexpected_objects(conn: sqlite3.Connection, tables: set[str], indexes: set[str]) -> list[str]:
    """Triggers, views and unknown tables or indexes in the database (referee creates none)."""
    found = []
    for kind, name in conn.execute("SELECT type, name FROM sqlite_master"):
        if name.startswith("sqlite_"):  # sqlite_sequence, sqlite_autoindex_*: sqlite's own
            continue
        if (kind == "table" and name in tables) or (kind == "index" and name in indexes):
            continue
        found.append(f"{kind} {name!r}")
    return found
