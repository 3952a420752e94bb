"""Canary runs: which stored runs carry a planted defect, and what the judge's card made of it.

A canary's run is an ordinary row of `runs` (the judge reads it like any other); this table is the
only place that says it is a canary, and only the orchestrator's answer and the reliability report
read it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from referee.tools.store.db import Row, Store
from referee.tools.store.runs import StoredRun, runs_for

__all__ = [
    "StoredCanary",
    "canaries_for",
    "canary_of_run",
    "canary_run_ids",
    "pending_canary",
    "real_runs",
    "record_outcome",
    "save_canary",
]


@dataclass(frozen=True)
class StoredCanary:
    run_id: str
    contract_id: str
    evaluator: str | None
    iteration: int
    source_run_id: str
    created_at: str
    defect: dict[str, Any]
    scorecard_id: int | None
    outcome: dict[str, Any] | None


def save_canary(
    store: Store,
    *,
    run_id: str,
    contract_id: str,
    evaluator: str | None,
    iteration: int,
    source_run_id: str,
    created_at: str,
    defect: dict[str, Any],
) -> None:
    with store.transaction() as conn:
        store.insert(
            conn,
            "canaries",
            {
                "run_id": run_id,
                "contract_id": contract_id,
                "evaluator": evaluator,
                "iteration": iteration,
                "source_run_id": source_run_id,
                "created_at": created_at,
                "defect": json.dumps(defect),
            },
        )


def record_outcome(store: Store, run_id: str, scorecard_id: int, outcome: dict[str, Any]) -> None:
    """The latest valid card for the canary's run, and whether it caught the defect."""
    with store.transaction() as conn:
        conn.execute(
            "UPDATE canaries SET scorecard_id = ?, outcome = ? WHERE run_id = ?",
            (scorecard_id, json.dumps(outcome), run_id),
        )
        store.reseal(conn, "canaries", run_id)  # no row: nothing to reseal


def _stored(store: Store, row: Row) -> StoredCanary:
    store.verified("canaries", row, f"canary {row['run_id']}")
    return StoredCanary(
        run_id=row["run_id"],
        contract_id=row["contract_id"],
        evaluator=row["evaluator"],
        iteration=row["iteration"],
        source_run_id=row["source_run_id"],
        created_at=row["created_at"],
        defect=json.loads(row["defect"]),
        scorecard_id=row["scorecard_id"],
        outcome=json.loads(row["outcome"]) if row["outcome"] else None,
    )


def canary_of_run(store: Store, run_id: str) -> StoredCanary | None:
    row = store.query_one("SELECT * FROM canaries WHERE run_id = ?", (run_id,))
    return _stored(store, row) if row is not None else None


def canaries_for(store: Store, contract_id: str | None = None) -> list[StoredCanary]:
    """Every canary (of one contract, or all), oldest first."""
    sql, params = "SELECT * FROM canaries", []
    if contract_id is not None:
        sql, params = sql + " WHERE contract_id = ?", [contract_id]
    return [_stored(store, r) for r in store.query(sql + " ORDER BY created_at, run_id", params)]


def canary_run_ids(store: Store, contract_id: str) -> set[str]:
    """The runs of a contract that are canaries (left out of every real decision)."""
    rows = store.query("SELECT * FROM canaries WHERE contract_id = ?", (contract_id,))
    return {_stored(store, r).run_id for r in rows}


def real_runs(store: Store, contract_id: str, iteration: int | None = None) -> list[StoredRun]:
    """The contract's runs without its canaries: what real cards bind to and decisions read."""
    canaries = canary_run_ids(store, contract_id)
    return [r for r in runs_for(store, contract_id, iteration) if r.run_id not in canaries]


def pending_canary(
    store: Store, contract_id: str, evaluator: str, iteration: int
) -> StoredCanary | None:
    """The oldest canary of this evaluator and iteration no valid card has judged yet."""
    rows = store.query(
        "SELECT * FROM canaries WHERE contract_id = ? AND evaluator = ? AND iteration = ?"
        " AND outcome IS NULL ORDER BY created_at, run_id",
        (contract_id, evaluator, iteration),
    )
    return _stored(store, rows[0]) if rows else None
