"""What the client reports an iteration cost (the generator's tokens, money and time), and which
contracts delivered their first iteration: the loop's budget (tools/aggregate/budget.py)."""

from __future__ import annotations

import json
from typing import Any

from referee.tools.store.db import Store

__all__ = ["first_iteration_deliveries", "save_usage", "usage_for"]


def save_usage(
    store: Store, *, contract_id: str, iteration: int, role: str, body: dict[str, Any], at: str
) -> None:
    """Record reported usage; a later report for the same iteration and role replaces it."""
    with store.transaction() as conn:
        store.insert(
            conn,
            "usage",
            {
                "contract_id": contract_id,
                "iteration": iteration,
                "role": role,
                "body": json.dumps(body),
                "created_at": at,
            },
        )


def usage_for(store: Store, contract_id: str, role: str) -> dict[int, dict[str, Any]]:
    """The latest reported usage of `role` per iteration."""
    rows = store.query(
        "SELECT * FROM usage WHERE contract_id = ? AND role = ? ORDER BY id", (contract_id, role)
    )
    found: dict[int, dict[str, Any]] = {}
    for row in rows:
        store.verified("usage", row, f"usage #{row['id']}")
        found[int(row["iteration"])] = json.loads(row["body"])
    return found


def first_iteration_deliveries(store: Store) -> dict[str, bool]:
    """Each contract whose first iteration was decided: whether that decision was DELIVER."""
    rows = store.query(
        "SELECT * FROM aggregates WHERE iteration = 1 AND decision != 'PENDING' ORDER BY id"
    )
    found: dict[str, bool] = {}
    for row in rows:
        store.verified("aggregates", row, f"stored aggregate #{row['id']}")
        found[row["contract_id"]] = row["decision"] == "DELIVER"
    return found
