"""Benchmark `referee view`'s pages over a large store; prints a table, then the figures as JSON.

    python benchmarks/bench_view.py [--contracts 2000] [--iterations 5] [--requests 40]

Fills a store with CONTRACTS × ITERATIONS signed runs (10,000 by default: the corpus run of
tests/fixtures/scorecards, three evidence items each), one scorecard and one aggregate per
iteration, then times each kind of page through the running app over HTTP (what a browser waits
for: gathering, rendering, the socket) and reports p50/p95 per kind, and the first request of each
kind apart: the contracts list is gathered once and kept while the store is unchanged
(tools/view/cache.py); after a write the previous list is served while a fresh one is gathered in
the background ("after a write": that request, and when the list is fresh again).
Target: p95 <= 100 ms for every page with 10,000 runs stored. The bundle of one 5-iteration
contract is measured too (target <= 5 MB without traces).
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from referee.server.view import ViewServer
from referee.tools.create_contract.files import load_contract_file
from referee.tools.evidence.signing import sign
from referee.tools.models import Evaluation, EvidenceItem
from referee.tools.store import Store, replace_contract, save_run, save_scorecard
from referee.tools.store.aggregates import save_aggregate
from referee.tools.view import links, write_bundle

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "scorecards"
KEY = b"bench-signing-key"
DIMENSIONS = ("correctness", "design_quality", "functionality", "craft", "security")


def _template() -> tuple[Evaluation, list[EvidenceItem]]:
    doc = json.loads((CORPUS / "run.json").read_text(encoding="utf-8"))
    return (
        Evaluation.model_validate(doc["evaluation"]),
        [EvidenceItem.model_validate(e) for e in doc["evidence"]],
    )


def fill(store: Store, contracts: int, iterations: int) -> list[str]:
    """Store the contracts, their runs, scorecards and aggregates; returns the contract ids."""
    template = load_contract_file(CORPUS / "contract.yaml")
    evaluation, evidence = _template()
    rng = random.Random(7)
    ids = []
    for c in range(contracts):
        cid = f"SC-bench-{c:05d}-20260325"
        replace_contract(store, template.model_copy(update={"id": cid, "max_iterations": 5}))
        for it in range(1, iterations + 1):
            score = rng.choice((1, 2, 3))
            _run(store, evaluation, evidence, cid, it, f"R20260325{c:06d}-{it:02d}")
            _card(store, cid, it, f"R20260325{c:06d}-{it:02d}", score)
            _aggregate(store, cid, it, "DELIVER" if score == 3 else "REVISE")
        ids.append(cid)
    return ids


def _run(
    store: Store, ev: Evaluation, items: list[EvidenceItem], cid: str, it: int, run_id: str
) -> None:
    mine = ev.model_copy(update={"run_id": run_id, "contract_ref": cid, "iteration": it})
    evidence = [i.model_copy(update={"run_id": run_id}) for i in items]
    signature = sign(KEY, mine, evidence)
    save_run(store, mine, evidence, signature, created_at=f"2026-03-25T12:{it:02d}:00+00:00")


def _card(store: Store, cid: str, it: int, run_id: str, score: int) -> None:
    dims = {k: float(score) for k in DIMENSIONS}
    body = {
        "contract_ref": cid,
        "evaluator": "judge",
        "iteration": it,
        "run_id": run_id,
        "dimensions": {k: {"score": score, "evidence": "bench"} for k in DIMENSIONS},
        "criteria": [{"id": "AC-F-001", "pass": score > 1, "evidence": "bench"}],
        "issues": [],
    }
    computed = {
        "verdict": "ACCEPT" if score == 3 else "REVISE",
        "weighted_score": float(score),
        "normalized": score / 3 * 100,
        "dimensions": dims,
        "scale_max": 3,
    }
    save_scorecard(
        store,
        contract_id=cid,
        evaluator="judge",
        iteration=it,
        format="referee",
        body=body,
        computed=computed,
        run_id=run_id,
        stored_at=f"2026-03-25T12:{it:02d}:30+00:00",
    )


def _aggregate(store: Store, cid: str, it: int, decision: str) -> None:
    body = {"contract_ref": cid, "iteration": it, "decision": decision, "reason": "bench"}
    save_aggregate(
        store,
        contract_id=cid,
        iteration=it,
        decision=decision,
        body=body,
        created_at=f"2026-03-25T12:{it:02d}:45+00:00",
    )


def _get(server: ViewServer, path: str) -> float:
    host, port = server.server_address[:2]
    conn = http.client.HTTPConnection(str(host), int(port), timeout=60)
    start = time.perf_counter()
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        assert response.status == 200, (path, response.status)
    finally:
        conn.close()
    return time.perf_counter() - start


def _pages(ids: list[str], iterations: int, rng: random.Random) -> dict[str, list[str]]:
    picked = [rng.choice(ids) for _ in range(200)]
    number = [int(cid.split("-")[2]) for cid in picked]
    return {
        "contracts list": ["/" + links.INDEX, "/index.html?decision=REVISE&q=bench-0001"],
        "contract": ["/" + links.contract(c) for c in picked],
        "run": [f"/run-R20260325{n:06d}-{rng.randint(1, iterations):02d}.html" for n in number],
        "scorecard": [f"/scorecard-{rng.randint(1, len(ids) * iterations)}.html" for _ in picked],
        "compare": ["/" + links.compare(c, 1, iterations) for c in picked],
        "calibration": ["/" + links.CALIBRATION],
    }


def measure(store: Store, ids: list[str], iterations: int, requests: int) -> dict[str, Any]:
    server = ViewServer(store, "127.0.0.1", 0)
    server.start()
    rng = random.Random(11)
    figures: dict[str, Any] = {}
    try:
        for kind, paths in _pages(ids, iterations, rng).items():
            # The first request of a kind gathers what the app caches (the contracts list).
            first = _get(server, paths[0])
            times = sorted(_get(server, paths[i % len(paths)]) for i in range(requests))
            figures[kind] = {
                "first_ms": round(first * 1000, 1),
                "p50_ms": round(statistics.median(times) * 1000, 1),
                "p95_ms": round(times[int(0.95 * (len(times) - 1))] * 1000, 1),
            }
        figures["after a write"] = _after_write(server, store, ids[0])
    finally:
        server.close()
    return figures


def _after_write(server: ViewServer, store: Store, cid: str) -> dict[str, float]:
    """The list's first request after a write (served from the previous list) and how long the
    background gathering takes to bring it up to date."""
    _aggregate(store, cid, 5, "DELIVER")
    served = _get(server, "/" + links.INDEX)
    start = time.perf_counter()
    server.rows.wait()
    fresh = time.perf_counter() - start + served
    return {
        "first_ms": round(served * 1000, 1),
        "p50_ms": round(served * 1000, 1),
        "p95_ms": round(served * 1000, 1),
        "fresh_after_ms": round(fresh * 1000, 1),
    }


def bundle_size(store: Store, folder: Path) -> dict[str, Any]:
    """Bytes of the whole bundle of the store (every contract), per contract."""
    start = time.perf_counter()
    written = write_bundle(store, folder, "evaluator")
    seconds = time.perf_counter() - start
    total = sum(p.stat().st_size for p in written)
    return {"pages": len(written), "bytes": total, "seconds": round(seconds, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contracts", type=int, default=2000)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--requests", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / ".referee", key=KEY, vault=Path(tmp) / "vault")
        start = time.perf_counter()
        ids = fill(store, args.contracts, args.iterations)
        filled = time.perf_counter() - start
        figures = measure(store, ids, args.iterations, args.requests)
        small = Store(Path(tmp) / "one", key=KEY, vault=Path(tmp) / "vault1")
        fill(small, 1, 5)
        one = bundle_size(small, Path(tmp) / "bundle")
        store.close()
        small.close()
    runs = args.contracts * args.iterations
    print(f"{runs} runs stored in {filled:.1f} s; {args.requests} requests per kind of page")
    print(f"{'page':<16} {'first ms':>9} {'p50 ms':>8} {'p95 ms':>8}")
    for kind, f in figures.items():
        print(f"{kind:<16} {f['first_ms']:>9} {f['p50_ms']:>8} {f['p95_ms']:>8}")
    print(f"list fresh again {figures['after a write']['fresh_after_ms']} ms after a write")
    print(f"bundle of one {args.iterations}-iteration contract: {one['bytes']} bytes")
    print(json.dumps({"runs": runs, "pages": figures, "bundle_one_contract": one}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
