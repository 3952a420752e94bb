"""The calibration log: a human's verdict on a stored scorecard (the evaluator-tuning dataset)."""

from __future__ import annotations

from dataclasses import dataclass

from referee.tools.store.db import Store


@dataclass(frozen=True)
class CalibrationRow:
    """One human verdict, joined with the scorecard it judges."""

    id: int
    scorecard_id: int
    verdict: str
    note: str
    created_at: str
    contract_id: str
    evaluator: str
    iteration: int


def insert_calibration(
    store: Store, *, scorecard_id: int, verdict: str, note: str, created_at: str
) -> int:
    """Record a human verdict on a scorecard; returns the entry's id."""
    with store.transaction() as conn:
        return store.insert(
            conn,
            "calibration",
            {
                "scorecard_id": scorecard_id,
                "verdict": verdict,
                "note": note,
                "created_at": created_at,
            },
        )


def calibration_rows(store: Store, contract_id: str | None = None) -> list[CalibrationRow]:
    """Every human verdict (optionally for one contract's scorecards), oldest first."""
    sql = (
        "SELECT c.*, s.contract_id, s.evaluator, s.iteration FROM calibration c"
        " JOIN scorecards s ON s.id = c.scorecard_id"
    )
    params: list[object] = []
    if contract_id is not None:
        sql += " WHERE s.contract_id = ?"
        params.append(contract_id)
    rows = store.query(sql + " ORDER BY c.id", params)
    for row in rows:
        store.verified("calibration", row, f"calibration entry #{row['id']}")
    fields = (
        "id",
        "scorecard_id",
        "verdict",
        "note",
        "created_at",
        "contract_id",
        "evaluator",
        "iteration",
    )
    return [CalibrationRow(**{k: r[k] for k in fields}) for r in rows]
