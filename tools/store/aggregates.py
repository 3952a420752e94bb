"""Stored aggregates: every decision aggregate made, with its full result."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from referee.tools.store.db import Store


@dataclass(frozen=True)
class StoredAggregate:
    id: int
    contract_id: str
    iteration: int
    decision: str
    created_at: str
    body: dict[str, Any]


def save_aggregate(
    store: Store,
    *,
    contract_id: str,
    iteration: int,
    decision: str,
    body: dict[str, Any],
    created_at: str,
) -> int:
    """Store one aggregate result; returns its id."""
    with store.transaction() as conn:
        return store.insert(
            conn,
            "aggregates",
            {
                "contract_id": contract_id,
                "iteration": iteration,
                "decision": decision,
                "created_at": created_at,
                "body": json.dumps(body, ensure_ascii=False),
            },
        )


def _row(store: Store, row: Any) -> StoredAggregate:
    store.verified("aggregates", row, f"stored aggregate #{row['id']}")
    return StoredAggregate(
        id=row["id"],
        contract_id=row["contract_id"],
        iteration=row["iteration"],
        decision=row["decision"],
        created_at=row["created_at"],
        body=json.loads(row["body"]),
    )


def aggregates_for(store: Store, contract_id: str) -> list[StoredAggregate]:
    """Every stored aggregate of a contract, oldest first."""
    rows = store.query("SELECT * FROM aggregates WHERE contract_id = ? ORDER BY id", (contract_id,))
    return [_row(store, r) for r in rows]


def latest_decided(store: Store, contract_id: str) -> StoredAggregate | None:
    """The most recent aggregate of a contract that decided something (not PENDING), or None."""
    row = store.query_one(
        "SELECT * FROM aggregates WHERE contract_id = ? AND decision != 'PENDING' ORDER BY"
        " iteration DESC, id DESC LIMIT 1",
        (contract_id,),
    )
    return _row(store, row) if row is not None else None
