"""Benchmark validate_scorecard; prints a table, then the figures as JSON.

    python benchmarks/bench_validate.py [--count 10000] [--invalid-share 0.3] [--calls 200]

(a) in-process: COUNT scorecards of both formats, drawn from the test corpus (valid ones, and
    invalid ones in the given share), each validated against the corpus contract, with a recorded
    signed run as evidence where the case has one; p50/p99 per scorecard overall and per kind
    (target: p50 <= 0.5 ms);
(b) MCP over stdio: `referee serve` as a subprocess, p50/p99 of one validate_scorecard round trip
    (target: <= 5 ms), with get_contract as the baseline; with and without a `target.tree`, which
    makes the server hash the working tree with git.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from referee.tools.create_contract.files import load_contract_file
from referee.tools.evidence.signing import sign
from referee.tools.models import Evaluation, EvidenceItem
from referee.tools.rubrics import load_rubrics
from referee.tools.store import Store, StoredRun, replace_contract
from referee.tools.validate_scorecard.entry import EvidenceContext, validate_scorecard

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "scorecards"
KEY = b"bench-signing-key"
# Registers the tool when server/app.py does not yet: the benchmark measures the adapter either way.
LAUNCHER = """
import sys
from referee.server import app
from referee.server.adapters import validate
_build = app.build_server
def build_server(settings):
    server = _build(settings)
    if all(t.name != "validate_scorecard" for t in server._tool_manager.list_tools()):
        validate.register(server)
    return server
app.build_server = build_server
from referee.server.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _run() -> StoredRun:
    doc = json.loads((CORPUS / "run.json").read_text(encoding="utf-8"))
    evaluation = Evaluation.model_validate(doc["evaluation"])
    evidence = [EvidenceItem.model_validate(e) for e in doc["evidence"]]
    return StoredRun(evaluation, {e.id: e for e in evidence}, sign(KEY, evaluation, evidence))


def _cases() -> list[dict[str, Any]]:
    run = _run()
    cases = []
    for path in sorted((CORPUS / "cases").glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        card = case["scorecard"]
        if isinstance(card, dict) and card.get("signature") == "$SIGNATURE":
            card["signature"] = run.signature
        spec = case["evidence"]
        evidence = (
            None
            if spec is None
            else EvidenceContext(
                runs=[run] if spec["runs"] else [],
                key=KEY if spec["key"] else None,
                tree=run.evaluation.target.tree if spec["tree"] == "current" else spec["tree"],
            )
        )
        cases.append({**case, "evidence": evidence, "name": path.stem})
    return cases


def _kind(case: dict[str, Any]) -> str:
    if case["expect"]["valid"]:
        return "valid"
    schema_codes = {
        "required",
        "type",
        "out_of_range",
        "not_allowed",
        "unknown_field",
        "empty",
        "dispatch_count",
        "not_an_object",
        "format_unknown",
        "score_not_integer",
        "spec_defect_shape",
        "evidence_empty",
    }
    return "invalid (schema)" if schema_codes & set(case["expect"]["errors"]) else "invalid (rules)"


def in_process(count: int, invalid_share: float) -> dict[str, Any]:
    """Validate `count` scorecards one at a time; per-scorecard latencies by kind."""
    cases, contract, rubrics = (
        _cases(),
        load_contract_file(CORPUS / "contract.yaml"),
        load_rubrics(None),
    )
    valid = [c for c in cases if c["expect"]["valid"]]
    invalid = [c for c in cases if not c["expect"]["valid"]]
    rng = random.Random(7)
    picks = [rng.choice(invalid if rng.random() < invalid_share else valid) for _ in range(count)]
    work = [
        (c, copy.deepcopy(c["scorecard"])) for c in picks
    ]  # fresh objects: nothing is cached per card
    times: dict[str, list[float]] = {}
    for case, card in work:
        started = time.perf_counter_ns()
        validate_scorecard(
            card,
            contract=contract if case["contract"] else None,
            rubrics=rubrics,
            format=case["format"],
            evidence=case["evidence"],
            require_evidence=case["require_evidence"],
        )
        elapsed = (time.perf_counter_ns() - started) / 1e6
        times.setdefault("all", []).append(elapsed)
        times.setdefault(_kind(case), []).append(elapsed)
    return {kind: _stats(values) for kind, values in times.items()}


def _stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "n": len(ordered),
        "p50_ms": round(statistics.median(ordered), 4),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 4),
    }


def _repo(folder: Path) -> Path:
    repo = folder / "repo"
    repo.mkdir()
    (repo / "app.py").write_text("print('hello')\n", encoding="utf-8")
    env = ["-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], [*env, "commit", "-q", "-m", "init"]):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    contract = load_contract_file(CORPUS / "contract.yaml").model_copy(update={"repo": str(repo)})
    store = Store(repo / ".referee")
    replace_contract(store, contract)
    store.close()
    return repo


async def _timed(
    client: Client, tool: str, arguments: dict[str, Any], calls: int
) -> dict[str, float]:
    for _ in range(10):
        await client.call_tool(tool, arguments)
    values = []
    for _ in range(calls):
        started = time.perf_counter_ns()
        result = await client.call_tool(tool, arguments)
        values.append((time.perf_counter_ns() - started) / 1e6)
        assert not result.is_error, result.content
    return _stats(values)


async def _registered_by_app() -> bool:
    from referee.server.app import build_server
    from referee.tools.settings import Settings

    server = build_server(Settings.build([tempfile.gettempdir()], env={}))
    return "validate_scorecard" in {t.name for t in await server.list_tools()}


async def over_stdio(calls: int) -> dict[str, Any]:
    """Round trips to `referee serve` over stdio."""
    folder = Path(tempfile.mkdtemp(prefix="referee-bench-"))
    try:
        repo = _repo(folder)
        params = StdioServerParameters(
            command=sys.executable,
            args=["-c", LAUNCHER, "--root", str(repo), "serve"],
            cwd=str(repo),
        )
        card = json.loads(
            (CORPUS / "cases" / "referee-valid-accept.json").read_text(encoding="utf-8")
        )["scorecard"]
        untargeted = {k: v for k, v in card.items() if k != "target"}
        async with Client(params) as client:
            wired = await _registered_by_app()
            return {
                "get_contract": await _timed(
                    client, "get_contract", {"contract_id": card["contract_ref"]}, calls
                ),
                "validate_scorecard": await _timed(
                    client, "validate_scorecard", {"scorecard": untargeted, "store": False}, calls
                ),
                "validate_scorecard_store": await _timed(
                    client, "validate_scorecard", {"scorecard": untargeted}, calls
                ),
                "validate_scorecard_with_tree": await _timed(
                    client,
                    "validate_scorecard",
                    {"scorecard": card, "store": False},
                    max(20, calls // 4),
                ),
                "tool_registered_by_app": wired,
            }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--invalid-share", type=float, default=0.3)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args(argv)
    figures = {
        "in_process": in_process(args.count, args.invalid_share),
        "stdio": anyio.run(over_stdio, args.calls),
    }
    print(f"{'measure':<42}{'n':>7}{'p50 ms':>10}{'p99 ms':>10}")
    for group in ("in_process", "stdio"):
        for name, row in figures[group].items():
            if isinstance(row, dict):
                label = f"{group} {name}"
                print(f"{label:<42}{row['n']:>7}{row['p50_ms']:>10.3f}{row['p99_ms']:>10.3f}")
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
