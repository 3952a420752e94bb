"""Stored scorecards: one active scorecard per contract, evaluator and iteration; history kept."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from referee.tools.errors import NotFound
from referee.tools.store.db import Store


@dataclass(frozen=True)
class StoredScorecard:
    id: int
    contract_id: str
    evaluator: str
    iteration: int
    format: str
    variant: str
    stored_at: str
    run_id: str | None
    body: dict[str, Any]
    computed: dict[str, Any]
    superseded_by: int | None


def save_scorecard(
    store: Store,
    *,
    contract_id: str,
    evaluator: str,
    iteration: int,
    format: str,
    body: dict[str, Any],
    computed: dict[str, Any],
    run_id: str | None,
    stored_at: str,
    variant: str = "original",
) -> tuple[int, bool]:
    """Store a scorecard as the evaluator's verdict for the iteration; returns (id, replaced an
    earlier one).

    `variant` is "perturbed" for the re-scoring of an anti-gaming copy (depth deep).
    """
    with store.transaction() as conn:
        previous = conn.execute(
            "SELECT id FROM scorecards WHERE contract_id = ? AND evaluator = ? AND iteration = ?"
            " AND variant = ? AND superseded_by IS NULL",
            (contract_id, evaluator, iteration, variant),
        ).fetchall()
        new_id = store.insert(
            conn,
            "scorecards",
            {
                "contract_id": contract_id,
                "evaluator": evaluator,
                "iteration": iteration,
                "format": format,
                "variant": variant,
                "stored_at": stored_at,
                "run_id": run_id,
                "body": json.dumps(body),
                "computed": json.dumps(computed),
            },
        )
        for (old_id,) in previous:
            conn.execute("UPDATE scorecards SET superseded_by = ? WHERE id = ?", (new_id, old_id))
            store.reseal(conn, "scorecards", old_id)
    return new_id, bool(previous)


def _row(store: Store, row: Any) -> StoredScorecard:
    store.verified("scorecards", row, f"stored scorecard #{row['id']}")
    return StoredScorecard(
        id=row["id"],
        contract_id=row["contract_id"],
        evaluator=row["evaluator"],
        iteration=row["iteration"],
        format=row["format"],
        variant=row["variant"],
        stored_at=row["stored_at"],
        run_id=row["run_id"],
        body=json.loads(row["body"]),
        computed=json.loads(row["computed"]),
        superseded_by=row["superseded_by"],
    )


def scorecards_for(
    store: Store,
    contract_id: str,
    iteration: int | None = None,
    *,
    history: bool = False,
    variant: str | None = "original",
) -> list[StoredScorecard]:
    """Active scorecards of a contract (all iterations unless one is given), oldest first.

    With history=True, replaced scorecards are included too; variant None returns every variant.
    """
    sql = "SELECT * FROM scorecards WHERE contract_id = ?"
    params: list[object] = [contract_id]
    if variant is not None:
        sql += " AND variant = ?"
        params.append(variant)
    if iteration is not None:
        sql += " AND iteration = ?"
        params.append(iteration)
    if not history:
        sql += " AND superseded_by IS NULL"
    return [_row(store, r) for r in store.query(sql + " ORDER BY iteration, id", params)]


def load_scorecard(store: Store, scorecard_id: int) -> StoredScorecard:
    row = store.query_one("SELECT * FROM scorecards WHERE id = ?", (scorecard_id,))
    if row is None:
        raise NotFound(
            "scorecard",
            str(scorecard_id),
            path="/scorecard_id",
            hint="ids come from validate_scorecard",
        )
    return _row(store, row)
