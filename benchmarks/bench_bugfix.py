"""A bug-fix contract's cost: evaluate with `must_fail_at_base` / the bare suite, and the fixed
overhead of one evaluation.

    python benchmarks/bench_bugfix.py [--runs 3] [--seconds 4] [--coverage]

A generated project has a bug at base (adding a negative number subtracts it); the change fixes
it and adds the test that proves it. Its suite of CPU-bound tests takes about --seconds alone. It
is run bare (the same argv referee runs, JUnit report included) and through `evaluate` (task
scope, sandbox, must_fail_at_base), alternately; medians are compared. The criterion needs four
runs of the suite, one at a time (docs/evaluate.md: runs that are compared never overlap): the
base code with the change's tests twice (around the run now, in a drawn order), now, and the
evaluated code with the base's tests (without the change's new test file). Targets:
evaluate / (4 x bare) <= 1.15; the fixed overhead, measured the same way on a one-test suite,
evaluate - 4 x bare <= 0.4 s.
`--coverage` keeps the check's diff coverage on (every run of the criterion is then measured:
slower before Python 3.12).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import anyio
from bench_evaluate import bare  # the same bare run, JUnit report included

from referee.tools.create_contract.entry import create_contract
from referee.tools.evaluate.entry import EvaluateDeps, EvaluateInput, evaluate
from referee.tools.repo import describe_repo
from referee.tools.rubrics import load_rubrics
from referee.tools.settings import Settings
from referee.tools.store import Store

BUGGY = "def add(a, b):\n    return a - b if b < 0 else a + b\n"
FIXED = "def add(a, b):\n    return a + b\n"
HEADER = ""  # pytest.ini's `pythonpath = src` finds the code, as a real project's setup would


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@b", *args], cwd=root, check=True
    )


def make_project(root: Path, seconds: float, tests: int) -> Path:
    """The base commit (the bug) with the fix and its test left in the working tree."""
    spin = seconds / tests
    body = "\n".join(
        f"def test_{i}():\n    spin({spin:.4f})\n    assert add({i}, 1) == {i + 1}\n"
        for i in range(tests)
    )
    helper = (
        "import time\n\ndef spin(s):\n    end = time.process_time() + s\n"
        "    while time.process_time() < end:\n        pass\n"
    )
    (root / "tests").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "calc.py").write_text(BUGGY)
    (root / "tests" / "test_many.py").write_text(HEADER + "from calc import add\n" + helper + body)
    (root / ".gitignore").write_text("__pycache__/\n")
    (root / "pytest.ini").write_text("[pytest]\npythonpath = src\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    (root / "src" / "calc.py").write_text(FIXED)
    negative = HEADER + "from calc import add\n\ndef test_negative():\n    assert add(1, -1) == 0\n"
    (root / "tests" / "test_negative.py").write_text(negative)
    return root


def through_referee(store: Store, settings: Settings, contract_id: str) -> float:
    deps = EvaluateDeps(store=store, settings=settings, now=lambda: datetime.now(UTC))
    began = time.perf_counter()
    result = anyio.run(evaluate, EvaluateInput(contract_id=contract_id), deps)
    elapsed = time.perf_counter() - began
    assert result.criteria[0].status == "pass", result.criteria[0].reason
    return elapsed


SUITE_RUNS = 4  # the base code's twice, now, the base's tests over the fix


def measure(seconds: float, tests: int, runs: int, coverage: bool) -> dict[str, float]:
    root = make_project(Path(tempfile.mkdtemp(prefix="referee-bench-")) / "calc", seconds, tests)
    argv = [sys.executable, "-m", "pytest", "-q", "tests"]
    settings = Settings.build([root])
    store = Store(settings.home)
    check = {"kind": "tests", "argv": argv, "must_fail_at_base": True, "coverage": coverage}
    contract = create_contract(
        {
            "goal": "Fix adding a negative number.",
            "task_type": "bug",
            "functional": [{"criterion": "fixed", "verification_method": "test", "check": check}],
        },
        store=store,
        rubrics=load_rubrics(root),
        repo=describe_repo(root),
        now=lambda: datetime.now(UTC),
    ).contract
    through_referee(store, settings, contract.id)  # warm imports and the static cache
    bares, referees = [], []
    for _ in range(runs):
        bares.append(bare(root, argv))
        referees.append(through_referee(store, settings, contract.id))
    bare_s, referee_s = statistics.median(bares), statistics.median(referees)
    return {
        "bare_s": round(bare_s, 3),
        "evaluate_s": round(referee_s, 3),
        "ratio": round(referee_s / bare_s, 3),
        "per_run_ratio": round(referee_s / (SUITE_RUNS * bare_s), 3),
        "overhead_s": round(referee_s - SUITE_RUNS * bare_s, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--coverage", action="store_true")
    args = parser.parse_args()
    suite = measure(args.seconds, 40, args.runs, args.coverage)
    tiny = measure(0.0, 1, args.runs, args.coverage)
    print(
        json.dumps(
            {
                "suite": {**suite, "target_per_run_ratio": 1.15},
                "tiny": {**tiny, "target_overhead_s": 0.4},
                "cores": len(os.sched_getaffinity(0)),
                "coverage": args.coverage,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
