"""What the CI gate costs over the evaluation it re-runs: `referee ci` against `referee evaluate`.

    python benchmarks/bench_gate.py [--runs 3] [--tests 200]

A two-branch repository is built in a temporary folder: the contract on main, a change and its
scorecard on a branch, a pytest suite of `--tests` tests that each sleep 5 ms. Both commands run
as fresh processes through the CLI, alternately, each in a fresh store (evaluate's holds the
exported contract); the gate also reads the contract from git, makes its own store and key,
validates the card and aggregates. Prints medians in seconds and the ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REFEREE = [str(Path(sys.executable).parent / "referee")]


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=b@e", "-c", "user.name=bench", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def referee(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*REFEREE, "--root", str(repo), "--home", str(home), *args],
        capture_output=True,
        text=True,
    )


def build(folder: Path, tests: int) -> tuple[Path, str]:
    repo = folder / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    body = "import time\nfrom calc import add\n\n" + "".join(
        f"def test_{i}():\n    time.sleep(0.005)\n    assert add({i}, 1) == {i + 1}\n\n"
        for i in range(tests)
    )
    (repo / "tests" / "test_calc.py").write_text(body)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    request = {
        "goal": "Keep add correct.",
        "out_of_scope": ["the rest"],
        "functional": [
            {
                "criterion": "the suite passes",
                "verification_method": "test",
                "check": {"kind": "tests", "argv": [sys.executable, "-m", "pytest", "-q", "tests"]},
            }
        ],
    }
    source = folder / "request.yaml"
    source.write_text(yaml.safe_dump(request))
    home = folder / "author"
    made = referee(repo, home, "contract", "create", str(source), "--json")
    cid = json.loads(made.stdout)["contract"]["id"]
    (repo / ".referee" / "contracts").mkdir(parents=True)
    referee(repo, home, "contract", "export", cid, "-o", str(repo / ".referee/contracts/c.yaml"))
    git(repo, "add", "-f", ".referee/contracts")
    git(repo, "commit", "-qm", "contract")
    git(repo, "checkout", "-qb", "change")
    (repo / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    draft = folder / "draft.json"
    referee(repo, home, "evaluate", cid, "--draft", str(draft))
    card = {k: v for k, v in json.loads(draft.read_text()).items() if v is not None}
    for dim in card["dimensions"].values():
        dim["score"] = 3 if dim.get("score") is None else dim["score"]
        dim["evidence"] = dim.get("evidence") or "read the diff"
    card.pop("verdict", None)
    card.pop("weighted_score", None)
    (repo / ".referee" / "scorecards").mkdir()
    (repo / ".referee" / "scorecards" / "card.json").write_text(json.dumps(card))
    git(repo, "add", "-A")
    git(repo, "add", "-f", ".referee/scorecards")
    git(repo, "commit", "-qm", "change and card")
    return repo, cid


def timed(repo: Path, home: Path, *args: str) -> float:
    began = time.perf_counter()
    done = referee(repo, home, *args)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tests", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        repo, cid = build(folder, args.tests)
        evaluate_s, gate_s = [], []
        for n in range(args.runs):
            home = folder / f"eval-{n}"
            referee(repo, home, "contract", "create", str(repo / ".referee/contracts/c.yaml"))
            evaluate_s.append(timed(repo, home, "evaluate", cid))
            ref = "main:.referee/contracts/c.yaml"
            gate_s.append(timed(repo, folder / f"ci-{n}", "ci", "--contract-ref", ref))
    evaluate_m, gate_m = statistics.median(evaluate_s), statistics.median(gate_s)
    print(
        json.dumps(
            {
                "tests": args.tests,
                "evaluate_s": round(evaluate_m, 2),
                "gate_s": round(gate_m, 2),
                "gate_over_evaluate": round(gate_m / evaluate_m, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
