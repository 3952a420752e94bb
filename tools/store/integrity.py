"""Row integrity: every row referee stores carries an HMAC over its content.

The key lives outside the store (store/keys.py), so a row written or edited by anyone but referee
(a hostile test in a run without sandbox, a hand-edited database) does not verify and is refused
with the code `store_tampered`. On open, and before every write, the database is checked for
objects referee did not create: a trigger could rewrite every verdict stored after it
(store/backend.py lists them for each database).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from referee.tools.errors import InvalidInput, Problem

__all__ = [
    "MAC_COLUMN",
    "Columns",
    "StoreKeyMismatch",
    "StoreProblem",
    "StoreTampered",
    "StoreUnavailable",
    "row_mac",
]

MAC_COLUMN = "mac"


class Columns(Protocol):
    """A stored row, read by column name."""

    def __getitem__(self, name: str, /) -> Any: ...


class StoreProblem(InvalidInput):
    """One problem with the store as a whole (not with the caller's input): its code and message.

    `code` is keyword-only, so the codes table's finder reads it at every call."""

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(
            [Problem(path="", code=code, message=message)], summary=f"{code}: {message}"
        )


class StoreTampered(StoreProblem):
    """A stored row does not verify, or the database holds objects referee did not create."""

    def __init__(self, what: str, detail: str) -> None:
        self.what = what
        super().__init__(
            f"{what} {detail}: referee's store was modified outside referee, so it is refused; "
            "evaluate again into a fresh store (REFEREE_HOME) and investigate who wrote it",
            code="store_tampered",
        )


def row_mac(
    key: bytes, table: str, columns: Sequence[str], row: Mapping[str, Any] | Columns
) -> str:
    """The HMAC-SHA256 of one row: its table name and every column but the MAC itself, in order."""
    payload = json.dumps(
        [table, *(row[c] for c in columns)], separators=(",", ":"), ensure_ascii=False, default=str
    )
    return hmac.new(key, payload.encode("utf-8"), hashlib.sha256).hexdigest()


class StoreUnavailable(StoreProblem):
    """The store's database cannot be reached, or the connection was lost during a call; the
    call's transaction was rolled back, so nothing of it is stored."""

    def __init__(self, where: str, detail: str) -> None:
        self.where = where
        super().__init__(
            f"the store {where} {detail}; nothing of this call was stored: check that the"
            " database is up and reachable, then call again",
            code="store_unavailable",
        )


class StoreKeyMismatch(StoreProblem):
    """The store's rows (or an export's) were sealed with another key than the one referee was
    given."""

    def __init__(self, where: str, fix: str | None = None) -> None:
        fix = fix or (
            "give referee the key its writers share (REFEREE_KEY, e.g. the team's CI secret)"
        )
        super().__init__(
            f"the store {where} was sealed with another key: {fix}", code="store_wrong_key"
        )
