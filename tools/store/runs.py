"""Stored evaluation runs and their evidence."""

from __future__ import annotations

import json
from dataclasses import dataclass

from referee.tools.errors import NotFound
from referee.tools.models.evaluation import Evaluation
from referee.tools.models.evidence import EvidenceItem
from referee.tools.store.db import Row, Store, Tx
from referee.tools.store.files import keep_run_files
from referee.tools.store.integrity import StoreTampered
from referee.tools.store.schema import SEALED
from referee.tools.store.sealed import opened, seal, stub_of, unseal


@dataclass(frozen=True)
class StoredRun:
    evaluation: Evaluation
    evidence: dict[str, EvidenceItem]
    signature: str

    @property
    def run_id(self) -> str:
        return self.evaluation.run_id


def save_run(
    store: Store,
    evaluation: Evaluation,
    evidence: list[EvidenceItem],
    signature: str,
    created_at: str,
) -> None:
    """Store an evaluation with every evidence item (and, in a team store, every file they
    name), in one transaction."""
    with store.transaction() as conn:
        last = conn.execute("SELECT MAX(seq) AS n FROM runs").fetchone()
        store.insert(
            conn,
            "runs",
            {
                "run_id": evaluation.run_id,
                "contract_id": evaluation.contract_ref,
                "evaluator": evaluation.evaluator,
                "iteration": evaluation.iteration,
                "created_at": created_at,
                "tree": evaluation.target.tree,
                "commit_sha": evaluation.target.commit,
                "body": evaluation.model_dump_json(by_alias=True),
                "signature": signature,
                "seq": int(last["n"] or 0) + 1 if last else 1,
            },
        )
        if store.shared:  # its files go where its rows go: the next machine reads them there
            keep_run_files(store, conn, evaluation.run_id, evidence)
        for item in evidence:
            if sealed_item(evaluation, item):  # it may quote the hold-out test
                item = _seal(store, conn, evaluation.run_id, item)
            save_evidence(store, conn, evaluation.run_id, item)


def sealed_item(evaluation: Evaluation, item: EvidenceItem) -> bool:
    """The item is a hold-out's (or what a hold-out drove): kept outside the repository."""
    return item.holdout or any(c.holdout and c.id == item.criterion_id for c in evaluation.criteria)


def _seal(store: Store, conn: Tx, run_id: str, item: EvidenceItem) -> EvidenceItem:
    if not store.shared:
        return seal(item, store.sealed / run_id)
    stub, body = stub_of(item)
    row = {"run_id": run_id, "evidence_id": item.id, "body": body.decode("utf-8")}
    store.insert(conn, SEALED, row)
    return stub


def _unseal(store: Store, run_id: str, stub: EvidenceItem) -> EvidenceItem:
    if not store.shared:
        return unseal(stub, store.sealed / run_id)
    what = f"sealed evidence {run_id}/{stub.id}"
    row = store.query_one(
        "SELECT * FROM sealed_evidence WHERE run_id = ? AND evidence_id = ?", (run_id, stub.id)
    )
    if row is None:
        raise StoreTampered(what, "is missing from the store")
    store.verified(SEALED, row, what)
    return opened(stub, str(row["body"]).encode("utf-8"), what)


def save_evidence(store: Store, conn: Tx, run_id: str, item: EvidenceItem) -> None:
    """Store one evidence item (inside the caller's transaction)."""
    store.insert(
        conn,
        "evidence",
        {"run_id": run_id, "evidence_id": item.id, "body": item.model_dump_json(by_alias=True)},
    )


def load_run(store: Store, run_id: str, path: str = "/run_id") -> StoredRun:
    row = store.query_one("SELECT * FROM runs WHERE run_id = ?", (run_id,))
    if row is None:
        raise NotFound("run", run_id, path=path, hint="run ids come from evaluate")
    return _stored(store, row)


def _stored(store: Store, row: Row) -> StoredRun:
    store.verified("runs", row, f"stored run {row['run_id']}")
    evaluation = Evaluation.model_validate(json.loads(row["body"]))
    rows = store.query("SELECT * FROM evidence WHERE run_id = ?", (evaluation.run_id,))
    items = [_evidence(store, r) for r in rows]
    return StoredRun(
        evaluation=evaluation, evidence={i.id: i for i in items}, signature=row["signature"]
    )


def _evidence(store: Store, row: Row) -> EvidenceItem:
    store.verified("evidence", row, f"stored evidence {row['run_id']}/{row['evidence_id']}")
    item = EvidenceItem.model_validate(json.loads(row["body"]))
    return _unseal(store, row["run_id"], item) if item.sealed else item


def runs_for(store: Store, contract_id: str, iteration: int | None = None) -> list[StoredRun]:
    """Every stored run of a contract (optionally one iteration), oldest first."""
    sql = "SELECT * FROM runs WHERE contract_id = ?"
    params: list[object] = [contract_id]
    if iteration is not None:
        sql += " AND iteration = ?"
        params.append(iteration)
    rows = store.query(sql + " ORDER BY created_at, seq", params)
    return [_stored(store, r) for r in rows]


def run_index(store: Store, contract_id: str) -> list[tuple[str, int, str | None]]:
    """(run id, iteration, evaluator) of each run of a contract, oldest first: enough to link
    to runs without reading their bodies (the page a link opens reads and verifies its run)."""
    rows = store.query(
        "SELECT run_id, iteration, evaluator FROM runs WHERE contract_id = ?"
        " ORDER BY created_at, seq",
        (contract_id,),
    )
    return [(str(r["run_id"]), int(r["iteration"]), r["evaluator"]) for r in rows]


def latest_iteration(store: Store, contract_id: str) -> int:
    """The highest iteration with a run or a scorecard, 0 when there is none."""
    row = store.query_one(
        "SELECT MAX(i) AS m FROM (SELECT MAX(iteration) AS i FROM runs WHERE contract_id = ?"
        " UNION ALL SELECT MAX(iteration) FROM scorecards WHERE contract_id = ?) AS latest",
        (contract_id, contract_id),
    )
    return int(row["m"] or 0) if row else 0


def load_evidence(store: Store, run_id: str, evidence_id: str) -> EvidenceItem:
    row = store.query_one(
        "SELECT * FROM evidence WHERE run_id = ? AND evidence_id = ?", (run_id, evidence_id)
    )
    if row is None:
        raise NotFound(
            "evidence", f"{run_id}/{evidence_id}", hint="evidence ids come from evaluate's result"
        )
    return _evidence(store, row)


def evidence_of(store: Store, run_id: str) -> list[EvidenceItem]:
    """Every evidence item of a run (an evaluation or a captured session), in id order."""
    rows = store.query(
        "SELECT * FROM evidence WHERE run_id = ? ORDER BY CAST(substr(evidence_id, 2) AS INTEGER)",
        (run_id,),
    )
    return [_evidence(store, r) for r in rows]


def tree_iteration(store: Store, contract_id: str, tree: str) -> int | None:
    """The iteration a tree was evaluated in (the latest, should it appear in several), or the
    one an evaluation of it running now claimed, or None."""
    row = store.query_one(
        "SELECT MAX(i) AS i FROM (SELECT MAX(iteration) AS i FROM runs WHERE contract_id = ?"
        " AND tree = ? UNION ALL SELECT MAX(iteration) FROM iteration_claims"
        " WHERE contract_id = ? AND tree = ?) AS found",
        (contract_id, tree, contract_id, tree),
    )
    return int(row["i"]) if row and row["i"] is not None else None


def claimed_iteration(store: Store, contract_id: str) -> int:
    """The highest iteration claimed by an evaluation that started (0 when none)."""
    row = store.query_one(
        "SELECT MAX(iteration) AS i FROM iteration_claims WHERE contract_id = ?", (contract_id,)
    )
    return int(row["i"]) if row and row["i"] is not None else 0


def claim_iteration(store: Store, conn: Tx, contract_id: str, tree: str, iteration: int) -> None:
    """Claim `iteration` for a new tree, inside the transaction that chose it."""
    row = {"contract_id": contract_id, "tree": tree, "iteration": iteration}
    store.insert(conn, "iteration_claims", row)


def release_claim(store: Store, contract_id: str, tree: str) -> None:
    """Give back the claim of an evaluation that stored no run (it failed or was cancelled)."""
    with store.transaction() as conn:
        conn.execute(
            "DELETE FROM iteration_claims WHERE contract_id = ? AND tree = ? AND NOT EXISTS"
            " (SELECT 1 FROM runs WHERE contract_id = ? AND tree = ?)",
            (contract_id, tree, contract_id, tree),
        )


def evaluated_trees(store: Store, contract_id: str) -> dict[int, set[str]]:
    """The trees each iteration of a contract evaluated, from rows whose MAC verifies (what a pin
    in the repository's refs must agree with)."""
    found: dict[int, set[str]] = {}
    for row in store.query("SELECT * FROM runs WHERE contract_id = ?", (contract_id,)):
        store.verified("runs", row, f"stored run {row['run_id']}")
        found.setdefault(int(row["iteration"]), set()).add(str(row["tree"]))
    return found


def captured_evidence_ids(store: Store) -> dict[str, set[str]]:
    """Evidence ids of every captured generator session (run ids G-…), by session."""
    rows = store.query("SELECT run_id, evidence_id FROM evidence WHERE run_id LIKE 'G-%'")
    found: dict[str, set[str]] = {}
    for row in rows:
        found.setdefault(row["run_id"], set()).add(row["evidence_id"])
    return found
