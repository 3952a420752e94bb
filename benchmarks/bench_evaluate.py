"""evaluate's overhead on one `tests` check: wall time of evaluate / wall time of the bare command.

    python benchmarks/bench_evaluate.py [--runs 3] [--seconds 5]

A generated pytest suite that takes about --seconds alone is run bare (the same argv referee runs,
JUnit report included) and through `evaluate` (task scope, nothing changed, so the static pipeline
has nothing to analyse) in the sandbox and in place, alternately; medians are compared. Target:
sandbox / bare <= 1.05. Also prints the peak RSS of this process and of its children.

    python benchmarks/bench_evaluate.py --holdout [--runs 3] [--seconds 5]

The cost of running hold-outs alone: a contract with a visible and a hold-out criterion (each the
suite) against one with two visible criteria (the same two runs, side by side). The hold-out runs
after the visible one has ended, so on a machine with the cores the ratio nears 2; with one core
it is 1. Reported, no target: it is the price of the boundary (docs/contracts.md).

    python benchmarks/bench_evaluate.py --adds-test [--runs 3] [--seconds 5]

The cost of the base tests' run: a change that adds one test file (a test that passes at once)
against no change. The base's tests run again without it (a new test can act on the others as
it runs, tools/evaluate/views.py), so the ratio nears 2 for a suite as slow as this one.
Reported, no target: it is the price of the boundary (docs/evaluate.md).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import anyio

from referee.tools.create_contract.entry import create_contract
from referee.tools.evaluate.entry import EvaluateDeps, EvaluateInput, evaluate
from referee.tools.repo import describe_repo
from referee.tools.rubrics import load_rubrics
from referee.tools.settings import Settings
from referee.tools.store import Store


def make_project(root: Path, seconds: float) -> Path:
    tests = 50
    body = "\n".join(
        f"def test_{i}():\n    time.sleep({seconds / tests:.4f})\n    assert {i} >= 0\n"
        for i in range(tests)
    )
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_slow.py").write_text("import time\n\n" + body, encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (root / ".gitignore").write_text("__pycache__/\n", encoding="utf-8")
    for args in (
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "x"],
    ):
        subprocess.run(["git", *args], cwd=root, check=True)
    return root


def bare(root: Path, argv: list[str]) -> float:
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [*argv, f"--junitxml={tmp}/r.xml", "-p", "no:cacheprovider"],
            cwd=root,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={"PYTHONDONTWRITEBYTECODE": "1", "PATH": "/usr/bin:/bin"},
        )
    return time.perf_counter() - began


def through_referee(
    store: Store, settings: Settings, contract_id: str, isolation: str = "sandbox"
) -> float:
    deps = EvaluateDeps(store=store, settings=settings, now=lambda: datetime.now(UTC))
    began = time.perf_counter()
    request = EvaluateInput(contract_id=contract_id, isolation=isolation)  # type: ignore[arg-type]
    result = anyio.run(evaluate, request, deps)
    elapsed = time.perf_counter() - began
    assert result.criteria[0].status == "pass", result.criteria[0].reason
    assert isolation != "sandbox" or result.sandbox == "bubblewrap", result.warnings
    return elapsed


def _contract(store: Store, root: Path, *checks: tuple[list[str], bool]) -> str:
    functional = [
        {
            "criterion": f"suite passes ({i})",
            "verification_method": "test",
            "holdout": holdout,
            "check": {"kind": "tests", "argv": argv},
        }
        for i, (argv, holdout) in enumerate(checks)
    ]
    return create_contract(
        {"goal": "bench", "out_of_scope": ["other"], "functional": functional},
        store=store,
        rubrics=load_rubrics(root),
        repo=describe_repo(root),
        now=lambda: datetime.now(UTC),
    ).contract.id


def holdout_cost(store: Store, settings: Settings, root: Path, argv: list[str], runs: int) -> None:
    # Two argv so the two criteria never share one run of the suite.
    other = [*argv, "-p", "no:cacheprovider"]
    side_by_side = _contract(store, root, (argv, False), (other, False))
    phased = _contract(store, root, (argv, False), (other, True))
    through_referee(store, settings, side_by_side)  # warm the static cache and imports
    visible, hidden = [], []
    for _ in range(runs):
        visible.append(through_referee(store, settings, side_by_side))
        hidden.append(through_referee(store, settings, phased))
    result = {
        "two_visible_s": round(statistics.median(visible), 3),
        "visible_then_holdout_s": round(statistics.median(hidden), 3),
        "ratio": round(statistics.median(hidden) / statistics.median(visible), 3),
        "cores": len(os.sched_getaffinity(0)),
    }
    print(json.dumps(result, indent=2))


def adds_test_cost(
    store: Store, settings: Settings, root: Path, argv: list[str], runs: int
) -> None:
    contract_id = _contract(store, root, (argv, False))
    added = root / "tests" / "test_added.py"
    through_referee(store, settings, contract_id)  # warm the static cache and imports
    unchanged, adding = [], []
    for _ in range(runs):
        added.unlink(missing_ok=True)
        unchanged.append(through_referee(store, settings, contract_id))
        added.write_text("def test_added():\n    assert True\n", encoding="utf-8")
        adding.append(through_referee(store, settings, contract_id))
    added.unlink(missing_ok=True)
    result = {
        "unchanged_s": round(statistics.median(unchanged), 3),
        "adds_a_test_file_s": round(statistics.median(adding), 3),
        "ratio": round(statistics.median(adding) / statistics.median(unchanged), 3),
    }
    print(json.dumps(result, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--holdout", action="store_true", help="the cost of hold-outs alone")
    parser.add_argument("--adds-test", action="store_true", help="the cost of the base tests' run")
    args = parser.parse_args()
    root = make_project(Path(tempfile.mkdtemp(prefix="referee-bench-")) / "suite", args.seconds)
    argv = [sys.executable, "-m", "pytest", "-q", "tests"]
    settings = Settings.build([root])
    store = Store(settings.home)
    if args.holdout:
        holdout_cost(store, settings, root, argv, args.runs)
        return
    if args.adds_test:
        adds_test_cost(store, settings, root, argv, args.runs)
        return
    contract_id = _contract(store, root, (argv, False))
    through_referee(store, settings, contract_id)  # warm the static cache and imports
    bares, referees, inplace = [], [], []
    for _ in range(args.runs):
        bares.append(bare(root, argv))
        referees.append(through_referee(store, settings, contract_id))
        inplace.append(through_referee(store, settings, contract_id, "inplace"))
    result = {
        "bare_s": round(statistics.median(bares), 3),
        "evaluate_sandbox_s": round(statistics.median(referees), 3),
        "evaluate_inplace_s": round(statistics.median(inplace), 3),
        "ratio": round(statistics.median(referees) / statistics.median(bares), 3),
        "ratio_inplace": round(statistics.median(inplace) / statistics.median(bares), 3),
        "target": 1.05,
        "peak_rss_self_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "peak_rss_children_mib": round(
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1
        ),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
