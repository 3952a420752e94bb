"""The canaries table: sealed rows like every other table, so a judge (or anyone) who edits a
canary's outcome, or marks a run as a canary outside referee, is refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from referee.tools.store import Store, StoreTampered
from referee.tools.store.canaries import (
    canaries_for,
    canary_of_run,
    pending_canary,
    record_outcome,
    save_canary,
)

DEFECT = {"kind": "off_by_one", "path": "src/calc.py", "line": 8, "dimension": "correctness"}


def planted(store: Store, run_id: str = "R1") -> None:
    save_canary(
        store,
        run_id=run_id,
        contract_id="SC-x-20260101",
        evaluator="judge",
        iteration=1,
        source_run_id="R0",
        created_at="2026-01-01T00:00:00+00:00",
        defect=DEFECT,
    )


def test_a_canary_is_pending_until_a_card_judges_it(tmp_path: Path) -> None:
    store = Store(tmp_path / "home")
    planted(store)
    assert pending_canary(store, "SC-x-20260101", "judge", 1) is not None
    assert pending_canary(store, "SC-x-20260101", "other", 1) is None
    record_outcome(store, "R1", 7, {"caught": True})
    assert pending_canary(store, "SC-x-20260101", "judge", 1) is None
    judged = canary_of_run(store, "R1")
    assert judged is not None and judged.outcome == {"caught": True} and judged.scorecard_id == 7
    store.close()


@pytest.mark.parametrize(
    "edit",
    [
        "UPDATE canaries SET outcome = '{\"caught\": true}'",
        "UPDATE canaries SET evaluator = 'other'",
        "UPDATE canaries SET defect = '{}'",
        "INSERT INTO canaries (run_id, contract_id, evaluator, iteration, source_run_id,"
        " created_at, defect) VALUES ('R9', 'SC-x-20260101', 'judge', 1, 'R0', 't', '{}')",
    ],
)
def test_a_canary_row_changed_outside_referee_is_refused(tmp_path: Path, edit: str) -> None:
    store = Store(tmp_path / "home")
    planted(store)
    store.close()
    conn = sqlite3.connect(tmp_path / "home" / "referee.db")
    conn.execute(edit)
    conn.commit()
    conn.close()
    store = Store(tmp_path / "home")
    with pytest.raises(StoreTampered):
        canaries_for(store, "SC-x-20260101")
    store.close()
