"""Benchmark the static pipeline over the running interpreter's standard library.

    python benchmarks/bench_static.py [--repeat 3] [--keep]

The standard library (without site-packages, __pycache__, lib-dynload and the config-* build
folder: compiled objects, not source) is copied into a temporary git repository and committed, so
the run takes the same path as on a real project: `git ls-files` for the file list and the index
for blob SHAs. Project scope, all rules. Each measurement runs in a fresh process, so peak RSS is
per phase: `rss_self` is the pipeline process, `rss_children` the largest child (jscpd, or a
worker). Phases:

- cold: empty cache, all rules;          warm: the same cache again, nothing changed;
- alone/<analyser>: empty cache, only the rules of one analyser (jscpd, tree-sitter + complexipy,
  betterleaks, plain-text checks), and jscpd by itself (no pipeline around it) for reference.

Targets: warm / cold <= 0.02; cold / slowest analyser alone <= 1.3. Prints a table, then JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

ANALYSERS = {
    "jscpd": ["near_duplicates"],
    "tree-sitter+complexipy": ["function_length", "nesting_depth", "cognitive_complexity"],
    "betterleaks": ["hardcoded_secrets"],
    "text": ["file_length", "todo_density"],
}
_SKIP_DIRS = {"site-packages", "__pycache__", "lib-dynload"}
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def copy_stdlib(target: Path) -> Path:
    """Copy the standard library into `target` and commit it as one git repository."""
    source = Path(sysconfig.get_paths()["stdlib"])

    def ignore(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if n in _SKIP_DIRS or n.startswith("config-")]

    shutil.copytree(source, target, ignore=ignore, symlinks=True)
    env = {**os.environ, **_GIT_ENV}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "stdlib"]):
        subprocess.run(["git", *args], cwd=target, env=env, check=True, capture_output=True)
    return target


def phase(repo: Path, cache: Path | None, rules: list[str] | None) -> dict[str, float]:
    """One measured pipeline run in this process (list_files included)."""
    from referee.tools.static import list_files, run_pipeline

    started = time.perf_counter()
    files = list_files(repo, "project", None)
    report = run_pipeline(repo, files, cache_path=cache, rules=rules)
    wall = time.perf_counter() - started
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return {
        "wall_s": wall,
        "files": len(files),
        "analysed": report.files_analysed,
        "cache_hits": report.cache_hits,
        "findings": len(report.findings),
        "errors": len(report.errors),
        "cpu_self_s": me.ru_utime + me.ru_stime,
        "cpu_children_s": kids.ru_utime + kids.ru_stime,
        "rss_self_mb": me.ru_maxrss / 1024,
        "rss_children_mb": kids.ru_maxrss / 1024,
    }


def jscpd_alone(repo: Path) -> dict[str, float]:
    """jscpd by itself, started exactly as the pipeline starts it, on the files the pipeline gives
    it."""
    from referee.tools.static import StaticConfig, list_files
    from referee.tools.static.duplicates import JscpdRun
    from referee.tools.static.paths import language_of

    files = [f for f in list_files(repo, "project", None) if language_of(f) and ".min." not in f]
    started = time.perf_counter()
    clones = JscpdRun(repo, files, StaticConfig()).collect()
    wall = time.perf_counter() - started
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "wall_s": wall,
        "clones": len(clones),
        "cpu_children_s": kids.ru_utime + kids.ru_stime,
        "rss_children_mb": kids.ru_maxrss / 1024,
    }


def in_child(*args: str) -> dict[str, Any]:
    """Run one phase in a fresh interpreter and return its measurements."""
    done = subprocess.run(
        [sys.executable, __file__, "--phase", *args], check=True, capture_output=True, text=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    ordered = sorted(runs, key=lambda r: r["wall_s"])
    return {**ordered[len(ordered) // 2], "walls": [round(r["wall_s"], 3) for r in runs]}


def measure(work: Path, repeat: int) -> dict[str, Any]:
    """All phases; the fresh-cache ones interleaved round by round, so they share the machine's
    load."""
    repo = copy_stdlib(work / "stdlib")
    lines = sum(
        p.read_bytes().count(b"\n")
        for p in repo.rglob("*")
        if p.is_file() and ".git" not in p.parts
    )
    phases: dict[str, list[str] | None] = {
        "cold": None,
        **{f"alone/{n}": r for n, r in ANALYSERS.items()},
    }
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in [*phases, "jscpd-cli"]}
    for i in range(repeat):
        for name, rules in phases.items():
            cache = work / f"cache-{name.replace('/', '-')}-{i}.db"
            runs[name].append(in_child(str(repo), str(cache), ",".join(rules or [])))
        runs["jscpd-cli"].append(in_child(str(repo), "", "", "jscpd-only"))
    cold = _median(runs["cold"])
    warm = _median([in_child(str(repo), str(work / "cache-cold-0.db"), "") for _ in range(repeat)])
    alone = {name: _median(runs[f"alone/{name}"]) for name in ANALYSERS}
    slowest = max(alone, key=lambda n: alone[n]["wall_s"])
    cpu = cold["cpu_self_s"] + cold["cpu_children_s"]
    return {
        "stdlib": sysconfig.get_paths()["stdlib"],
        "cpus": os.cpu_count(),
        "lines": lines,
        "cold": cold,
        "warm": warm,
        "alone": alone,
        "jscpd_cli_alone": _median(runs["jscpd-cli"]),
        "cold_lines_per_s": lines / cold["wall_s"],
        "warm_over_cold": warm["wall_s"] / cold["wall_s"],
        "slowest_alone": slowest,
        "cold_over_slowest_alone": cold["wall_s"] / alone[slowest]["wall_s"],
        "cold_cpu_s": cpu,
        "cpu_floor_s": cpu / (os.cpu_count() or 1),
        "load_average": os.getloadavg(),
    }


def table(result: dict[str, Any]) -> str:
    cold, warm, alone = result["cold"], result["warm"], result["alone"]
    rows = [
        ("cold (all rules)", cold),
        ("warm (same cache)", warm),
        *((f"alone: {n}", r) for n, r in alone.items()),
        ("jscpd by itself", result["jscpd_cli_alone"]),
    ]
    out = [
        f"{'phase':28} {'wall s':>8} {'cpu self':>9} {'cpu kids':>9} {'rss self MB':>12}"
        f" {'rss kids MB':>12}"
    ]
    for label, r in rows:
        out.append(
            f"{label:28} {r['wall_s']:8.3f} {r.get('cpu_self_s', 0):9.2f}"
            f" {r['cpu_children_s']:9.2f} {r.get('rss_self_mb', 0):12.0f}"
            f" {r['rss_children_mb']:12.0f}"
        )
    out.append(
        f"lines {result['lines']}, files {cold['files']}, findings {cold['findings']}, cpus"
        f" {result['cpus']}"
    )
    out.append(
        f"cold CPU {result['cold_cpu_s']:.1f} s (self + children): at best"
        f" {result['cpu_floor_s']:.1f} s wall on {result['cpus']} cores; load average"
        f" {result['load_average'][0]:.1f}"
    )
    out.append(
        f"cold lines/s {result['cold_lines_per_s']:.0f}; warm/cold {result['warm_over_cold']:.4f} "
        f"(target <= 0.02); cold/slowest alone ({result['slowest_alone']}) "
        f"{result['cold_over_slowest_alone']:.2f} (target <= 1.3)"
    )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeat", type=int, default=3, help="fresh-cache runs per phase (median kept)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary copy and caches")
    parser.add_argument("--phase", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        repo, cache, rules, *flags = args.phase
        if flags == ["jscpd-only"]:
            print(json.dumps(jscpd_alone(Path(repo))))
        else:
            print(
                json.dumps(
                    phase(
                        Path(repo),
                        Path(cache) if cache else None,
                        rules.split(",") if rules else None,
                    )
                )
            )
        return
    work = Path(tempfile.mkdtemp(prefix="referee-bench-"))
    try:
        result = measure(work, args.repeat)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(table(result))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
