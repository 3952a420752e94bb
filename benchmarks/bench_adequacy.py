"""The cost of test adequacy: diff coverage in the criterion's own run, and the mutation stage.

    python benchmarks/bench_adequacy.py [--runs 3] [--seconds 3] [--share 0.2] [--mutants 20]
    python benchmarks/bench_adequacy.py --only coverage --repo DIR --command 'python3 -m …'

1. Coverage: a generated CPU-bound pytest suite (about --seconds) whose change since base is one
   module; --share of the suite's work runs in the changed lines (0.2: a typical change; 1.0: the
   worst case, every line the suite executes is changed). With --repo, a real project instead: its
   uncommitted change, measured by --command. The criterion's run is timed with coverage (the
   default) and with `coverage: false`, in the sandbox, alternately; medians of the tests
   evidence's `duration_s` are compared. Target: coverage / bare <= 1.3.
2. Mutation: the same project's check with `mutation: true` on a suite of about 2 s: the mutation
   stage's wall time for --mutants mutants, run in parallel up to the CPU count.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio

from referee.tools.create_contract.entry import create_contract
from referee.tools.evaluate.entry import EvaluateDeps, EvaluateInput, evaluate
from referee.tools.models import Evaluation
from referee.tools.repo import describe_repo
from referee.tools.rubrics import load_rubrics
from referee.tools.settings import Settings
from referee.tools.store import Store

# Unchanged code the suite also runs (another module: not measured), and the change: one module
# with many lines worth mutating (comparisons, arithmetic, constants).
_OTHER = "def unchanged(n):\n    total = 0\n    for i in range(n):\n        total += i % 7\n"
_OTHER += "    return total\n"
_BASE = "LIMIT = 10\n"
_CHANGED = (
    _BASE
    + """

def score(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            total += i * 2
        elif i > 10 and i < 1000:
            total -= 1
        else:
            total += 3
    return total


def bounded(x, low, high):
    if x < low:
        return low
    if x > high:
        return high
    return x
"""
)


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@b", *args], cwd=root, check=True
    )


def make_project(root: Path, loops: int, share: float) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "lib.py").write_text(_BASE, encoding="utf-8")
    (root / "other.py").write_text(_OTHER, encoding="utf-8")
    (root / ".gitignore").write_text("__pycache__/\n", encoding="utf-8")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    (root / "lib.py").write_text(_CHANGED, encoding="utf-8")
    changed, other = int(loops * share), int(loops * (1 - share))
    tests = "".join(
        f"\n\ndef test_{i}():\n    assert other.unchanged({other}) >= 0\n"
        f"    assert lib.score({changed}) == lib.score({changed})\n"
        f"    assert lib.bounded({i}, 3, 10) == min(max({i}, 3), 10)\n"
        for i in range(20)
    )
    (root / "tests" / "test_lib.py").write_text(
        "import os, sys\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n"
        "import lib, other\n" + tests,
        encoding="utf-8",
    )
    return root


def _contract(store: Store, root: Path, check: dict[str, Any]) -> str:
    spec = {
        "goal": "bench",
        "functional": [
            {"criterion": "suite passes", "verification_method": "test", "check": check}
        ],
    }
    return create_contract(
        spec,
        store=store,
        rubrics=load_rubrics(root),
        repo=describe_repo(root),
        now=lambda: datetime.now(UTC),
    ).contract.id


def _evaluate(store: Store, settings: Settings, contract_id: str, **kw: Any) -> Evaluation:
    deps = EvaluateDeps(store=store, settings=settings, now=lambda: datetime.now(UTC))
    result = anyio.run(evaluate, EvaluateInput(contract_id=contract_id, **kw), deps)
    assert result.criteria[0].status == "pass", result.criteria[0].reason
    return result


def _run_s(result: Evaluation) -> float:
    first = result.criteria[0].evidence_ids[0]
    return next(e.duration_s for e in result.evidence if e.id == first)


def _calibrate(seconds: float) -> int:
    """Loop iterations that make the suite take about `seconds` (20 tests, two calls each)."""
    import time

    began = time.perf_counter()
    total = 0
    for i in range(1_000_000):
        total += i % 7
    per = (time.perf_counter() - began) / 1_000_000
    return int(seconds / 20 / per / 1.3)


def bench_coverage(args: argparse.Namespace) -> dict[str, Any]:
    if args.repo:
        root, argv = Path(args.repo).resolve(), shlex.split(args.command)
    else:
        root = make_project(
            Path(tempfile.mkdtemp(prefix="referee-bench-")) / "suite",
            _calibrate(args.seconds),
            args.share,
        )
        argv = [args.python, "-m", "pytest", "-q", "tests"]
    settings = Settings.build([root])
    store = Store(settings.home)
    measured = _contract(store, root, {"kind": "tests", "argv": argv})
    bare = _contract(store, root, {"kind": "tests", "argv": argv, "coverage": False})
    _evaluate(store, settings, measured)  # warm imports and the static cache
    with_cov, without = [], []
    for _ in range(args.runs):
        result = _evaluate(store, settings, measured)
        assert result.criteria[0].adequacy and result.criteria[0].adequacy.diff_coverage
        with_cov.append(_run_s(result))
        without.append(_run_s(_evaluate(store, settings, bare)))
    coverage = result.criteria[0].adequacy.diff_coverage
    return {
        "suite": str(root) if args.repo else "generated",
        "command": argv,
        "tool": coverage.tool,
        "diff_coverage": f"{coverage.covered}/{coverage.changed}",
        "share_in_changed_lines": None if args.repo else args.share,
        "bare_run_s": round(statistics.median(without), 3),
        "coverage_run_s": round(statistics.median(with_cov), 3),
        "ratio": round(statistics.median(with_cov) / statistics.median(without), 3),
        "target": 1.3,
    }


def bench_mutation(args: argparse.Namespace) -> dict[str, Any]:
    root = make_project(
        Path(tempfile.mkdtemp(prefix="referee-bench-")) / "suite", _calibrate(args.suite), 0.5
    )
    settings = Settings.build([root])
    store = Store(settings.home)
    check = {
        "kind": "tests",
        "argv": [args.python, "-m", "pytest", "-q", "tests"],
        "mutation": True,
        "max_mutants": args.mutants,
    }
    plain = {**check, "mutation": False, "coverage": False}
    bare_s = _run_s(_evaluate(store, settings, _contract(store, root, plain)))
    result = _evaluate(store, settings, _contract(store, root, check))
    adequacy = result.criteria[0].adequacy
    assert adequacy and adequacy.mutation
    mutation = adequacy.mutation
    return {
        "bare_suite_s": round(bare_s, 3),
        "suite_with_coverage_s": round(_run_s(result), 3),
        "mutants": mutation.run,
        "killed": mutation.killed,
        "stage_wall_s": mutation.duration_s,
        "per_mutant_s": round(mutation.duration_s / max(mutation.run, 1), 3),
        "cpus": os.cpu_count(),
        "evaluate_s": round(result.duration_s, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--share", type=float, default=0.2)
    parser.add_argument("--mutants", type=int, default=20)
    parser.add_argument("--suite", type=float, default=1.2, help="mutation: the suite's CPU work")
    parser.add_argument("--only", choices=["coverage", "mutation"])
    parser.add_argument("--python", default="python3", help="the interpreter the suite runs on")
    parser.add_argument(
        "--repo", help="coverage: a git repository whose uncommitted change is measured"
    )
    parser.add_argument("--command", help="with --repo: the tests check's command")
    args = parser.parse_args()
    out: dict[str, Any] = {}
    if args.only != "mutation":
        out["coverage"] = bench_coverage(args)
    if args.only != "coverage":
        out["mutation"] = bench_mutation(args)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
