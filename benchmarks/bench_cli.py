"""Benchmark the CLI's start-up: what a pre-commit hook or a CI step pays per call.

    python benchmarks/bench_cli.py [--runs 10]

Each command runs RUNS times as a fresh process (the installed `referee` script of this
interpreter's environment); the table gives the median wall time, the median of `python -c pass`
(the interpreter's own start) and the difference. Targets on the development machine:
`referee --version` and `referee --help` <= 0.15 s, `referee validate CARD.json --contract
FILE.yaml` <= 0.4 s (a valid canonical scorecard of the test corpus against its exported contract,
no database: what CI does).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "scorecards"
TARGETS = {"--version": 0.15, "--help": 0.15, "validate": 0.4}


def _referee() -> str:
    script = Path(sys.executable).with_name("referee")
    return str(script) if script.exists() else shutil.which("referee") or "referee"


def _median(argv: list[str], runs: int, cwd: Path) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _card(folder: Path) -> Path:
    case = json.loads((CORPUS / "cases" / "referee-valid-accept.json").read_text(encoding="utf-8"))
    path = folder / "card.json"
    path.write_text(json.dumps(case["scorecard"]), encoding="utf-8")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    referee = _referee()
    with tempfile.TemporaryDirectory(prefix="referee-bench-cli-") as tmp:
        folder = Path(tmp)
        shutil.copy(CORPUS / "contract.yaml", folder / "contract.yaml")
        card = _card(folder)
        commands = {
            "--version": [referee, "--version"],
            "--help": [referee, "--help"],
            "validate": [
                referee,
                "validate",
                str(card),
                "--contract",
                "contract.yaml",
                "--no-store",
            ],
        }
        done = subprocess.run(commands["validate"], cwd=folder, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"the benchmark scorecard does not validate:\n{done.stdout}{done.stderr}")
            return 1
        base = _median([sys.executable, "-c", "pass"], args.runs, folder)
        rows = {name: _median(argv, args.runs, folder) for name, argv in commands.items()}
    print(f"median of {args.runs} runs; python -c pass: {base:.3f} s")
    print(f"{'command':<12} {'median s':>9} {'- python':>9} {'target':>7}")
    for name, seconds in rows.items():
        mark = "ok" if seconds <= TARGETS[name] else "OVER"
        print(f"{name:<12} {seconds:>9.3f} {seconds - base:>9.3f} {TARGETS[name]:>7.2f} {mark}")
    figures = {"python": round(base, 3), **{k: round(v, 3) for k, v in rows.items()}}
    print(json.dumps(figures))
    return 0 if all(rows[k] <= TARGETS[k] for k in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
