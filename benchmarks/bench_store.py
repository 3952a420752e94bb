"""Benchmark the store on both backends; prints a table, then the figures as JSON.

    python benchmarks/bench_store.py [--ops 200] [--file-ops 40] [--history 100000]
                                     [--url postgresql://…]

For the embedded SQLite (a temporary `.referee/`) and PostgreSQL (`--url`, else a throwaway
cluster started as the tests start one, tests/postgres.py):

(a) p50/p99 of storing one run (with three evidence items), one scorecard, one aggregate, each
    its own write transaction, as evaluate, validate_scorecard and aggregate store them;
(b) p50/p99 of storing one run whose three evidence items name the files a browser check leaves
    (two logs, 64 KiB and 256 KiB, a 128 KiB screenshot, a 1 MiB trace: 1.4 MiB, different for
    every run), `--file-ops` times: on SQLite the files stay in its folder, on PostgreSQL they go
    into the database in the run's transaction; and p50/p99 of reading one run's logs back
    (evidence://, 64 + 256 KiB), on PostgreSQL from another home than the one that stored it;
(c) `--history` runs of other contracts stored (sealed rows, bulk-inserted), then p50/p99 of the
    strategic-history query (evaluate --scope strategic: every run, scorecard and aggregate of one
    contract with five iterations of two evaluators, verified and analysed), once the database
    has its statistics (ANALYZE, as autovacuum runs after a bulk load). Target: <= 100 ms on
    PostgreSQL with 100,000 runs stored.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# The test suite's builders make the realistic history (contracts, signed runs, validated cards).
sys.path.insert(0, str(ROOT / "tests"))

from aggregate_cards import card, store_card, two_evaluator_contract  # noqa: E402
from gitrepo import make_repo  # noqa: E402
from postgres import start_cluster  # noqa: E402
from runs import CORPUS  # noqa: E402

from referee.tools.evidence import full_evidence  # noqa: E402
from referee.tools.models import Evaluation, EvidenceItem  # noqa: E402
from referee.tools.report import strategic_assessment  # noqa: E402
from referee.tools.store import Store, save_run, save_scorecard  # noqa: E402
from referee.tools.store.aggregates import save_aggregate  # noqa: E402
from referee.tools.store.schema import METADATA  # noqa: E402

KEY = b"bench-store-key-of-some-length"


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return {"p50_ms": round(statistics.median(ordered) * 1000, 3), "p99_ms": round(p99 * 1000, 3)}


def timed(action: Callable[[int], object], count: int) -> dict[str, float]:
    samples = []
    for n in range(count):
        start = time.perf_counter()
        action(n)
        samples.append(time.perf_counter() - start)
    return percentiles(samples)


def corpus_run(run_id: str, contract_id: str, iteration: int) -> tuple[Evaluation, list[Any]]:
    doc = json.loads((CORPUS / "run.json").read_text(encoding="utf-8"))
    doc["evaluation"].update(run_id=run_id, contract_ref=contract_id, iteration=iteration)
    evaluation = Evaluation.model_validate(doc["evaluation"])
    evidence = [EvidenceItem.model_validate(e) for e in doc["evidence"]][:3]
    return evaluation, evidence


def writes(store: Store, ops: int) -> dict[str, dict[str, float]]:
    def run(n: int) -> None:
        evaluation, evidence = corpus_run(f"R-bench-{n}", "SC-bench-20260101", 1)
        save_run(store, evaluation, evidence, "sig", "2026-01-01T00:00:00+00:00")

    def scorecard(n: int) -> None:
        body = {"verdict": "REVISE", "dimensions": {"craft": {"score": 2}}, "n": n}
        save_scorecard(
            store,
            contract_id="SC-bench-20260101",
            evaluator="judge",
            iteration=n % 5 + 1,
            format="json",
            body=body,
            computed=body,
            run_id=f"R-bench-{n}",
            stored_at="2026-01-01T00:00:00Z",
        )

    def aggregate(n: int) -> None:
        save_aggregate(
            store,
            contract_id="SC-bench-20260101",
            iteration=n % 5 + 1,
            decision="REVISE",
            body={"decision": "REVISE", "n": n},
            created_at="2026-01-01T00:00:00Z",
        )

    return {
        "store a run": timed(run, ops),
        "store a scorecard": timed(scorecard, ops),
        "store an aggregate": timed(aggregate, ops),
    }


_FILES = (("stdout.log", 64), ("stderr.log", 256), ("shot.png", 128), ("trace.zip", 1024))


def filed_evidence(folder: Path, n: int, evidence: list[EvidenceItem]) -> list[EvidenceItem]:
    """The corpus items of run `n`, naming files of the sizes a browser check leaves."""
    folder.mkdir(parents=True, exist_ok=True)
    found = []
    for index, item in enumerate(evidence):
        names = _FILES if index == 0 else _FILES[:1]
        paths, logs = [], {"stdout.log": b"", "stderr.log": b""}
        for name, kib in names:
            path = folder / f"{item.id}.{name}"
            path.write_bytes(_content(f"run {n} {item.id} {name}", name, kib * 1024))
            paths.append(str(path))
            logs[name] = path.read_bytes() if name in logs else b""
        digest = hashlib.sha256(logs["stdout.log"] + b"\0" + logs["stderr.log"]).hexdigest()
        found.append(item.model_copy(update={"artifacts": paths, "sha256": digest}))
    return found


def _content(seed: str, name: str, size: int) -> bytes:
    """A log's text (it compresses, as logs do) or an image's or a zip's bytes (they do not)."""
    if name.endswith(".log"):
        line = f"{seed}: PASSED tests/test_cart.py::test_total\n".encode()
        return (line * (size // len(line) + 1))[:size]
    return random.Random(seed).randbytes(size)


def with_files(store: Store, other: Store, ops: int) -> dict[str, dict[str, float]]:
    """Storing runs with their files, then reading a log back (from `other`'s home)."""
    runs = []
    for n in range(ops):
        evaluation, evidence = corpus_run(f"R-files-{n}", "SC-files-20260101", 1)
        runs.append((evaluation, filed_evidence(store.artifacts / evaluation.run_id, n, evidence)))

    def run(n: int) -> None:
        evaluation, evidence = runs[n]
        save_run(store, evaluation, evidence, "sig", "2026-01-01T00:00:00+00:00")

    stored = timed(run, ops)
    read = timed(lambda n: full_evidence(other, f"R-files-{n}", "E1"), ops)
    return {"store a run with 1.4 MiB of files": stored, "read a run's 320 KiB of logs back": read}


def bulk_history(store: Store, count: int) -> None:
    """`count` sealed runs of 1,000 other contracts, inserted in batches (no evidence)."""
    evaluation, _ = corpus_run("R-template", "SC-other-20260101", 1)
    body = evaluation.model_dump_json(by_alias=True)
    table = METADATA.tables["runs"]
    batch: list[dict[str, Any]] = []
    for n in range(count):
        row = {
            "run_id": f"R-history-{n:07d}",
            "contract_id": f"SC-other-{n % 1000:04d}-20260101",
            "evaluator": "judge",
            "iteration": n // 1000 + 1,
            "created_at": "2026-01-01T00:00:00+00:00",
            "tree": f"{n:040x}",
            "commit_sha": None,
            "body": body,
            "signature": "sig",
        }
        batch.append({**row, "mac": store.mac("runs", row), "seq": 10_000_000 + n})
        if len(batch) == 5000 or n == count - 1:
            with store.transaction() as tx:
                tx.conn.execute(table.insert(), batch)
            batch = []
    if store.shared:
        # What autovacuum does shortly after a bulk load: statistics, so that the planner knows
        # the table is large (measured before it, the first queries scan it whole).
        with store.transaction() as tx:
            tx.execute("ANALYZE runs")


def strategic(store: Store, repo: Path, calls: int) -> dict[str, float]:
    contract = two_evaluator_contract(store, repo, max_iterations=5)
    for iteration in range(1, 6):
        for evaluator in ("judge", "radar"):
            store_card(store, contract, card(contract, evaluator, iteration, 2 + iteration % 2))
    strategic_assessment(store, contract.id)  # warm: imports, first connection
    return timed(lambda _n: strategic_assessment(store, contract.id), calls)


def measure(name: str, url: str | None, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix=f"bench-store-{name}-") as folder:
        repo = make_repo(Path(folder) / "repo")
        store = Store(repo / ".referee", key=KEY, url=url, vault=Path(folder) / "vault")
        figures: dict[str, Any] = writes(store, args.ops)
        # On PostgreSQL the log is read from another home: nothing of the first one's disk.
        other = store if url is None else Store(Path(folder) / "other", key=KEY, url=url)
        figures.update(with_files(store, other, args.file_ops))
        if other is not store:
            other.close()
        start = time.perf_counter()
        bulk_history(store, args.history)
        figures["load history (s)"] = round(time.perf_counter() - start, 1)
        figures[f"strategic query, {args.history:,} runs stored"] = strategic(
            store, repo, args.calls
        )
        store.close()
        return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", type=int, default=200)
    parser.add_argument("--file-ops", type=int, default=40)
    parser.add_argument("--history", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--url", help="an existing PostgreSQL database (default: a throwaway one)")
    args = parser.parse_args()
    cluster = None
    url = args.url
    if url is None:
        cluster = start_cluster(Path(tempfile.mkdtemp(prefix="bench-pg-")))
        url = cluster.database()
    try:
        results = {"sqlite": measure("sqlite", None, args), "postgresql": measure("pg", url, args)}
    finally:
        if cluster is not None:
            cluster.stop()
    for backend, figures in results.items():
        print(f"\n{backend}")
        for what, value in figures.items():
            shown = (
                value
                if not isinstance(value, dict)
                else "  ".join(f"{k} {v}" for k, v in value.items())
            )
            print(f"  {what:45} {shown}")
    print("\nratios (p50)")
    for backend, figures in results.items():
        plain, filed = figures["store a run"], figures["store a run with 1.4 MiB of files"]
        print(f"  {backend:12} a run with files / a run without  {ratio(filed, plain)}")
    sqlite, pg = results["sqlite"], results["postgresql"]
    for what in ("store a run with 1.4 MiB of files", "read a run's 320 KiB of logs back"):
        print(f"  postgresql / sqlite, {what:35} {ratio(pg[what], sqlite[what])}")
    print(json.dumps(results))


def ratio(a: dict[str, float], b: dict[str, float]) -> float:
    return round(a["p50_ms"] / b["p50_ms"], 2) if b["p50_ms"] else float("inf")


if __name__ == "__main__":
    main()
