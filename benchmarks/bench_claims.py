"""Benchmark the claims readers (tools/claims) on large Python files, against parsing them.

    python benchmarks/bench_claims.py [--repeat 3]

Every changed code file is read by every claims reader, now and at base. A change may carry a
large generated module (a megabyte of settings or tables), so the readers' cost must stay a small
multiple of parsing the file once: the readers share one list of its nodes and stop their binding
passes once nothing grows. Cases: a generated settings module of 110,000 assignments (1.1 MB),
and the standard library's five largest modules. Each is read as a new file and as a changed one
(base and current both read).

Target: claims / parse <= 25 for every case (the ratio, not seconds: this machine's absolute
timings are noisy). Prints a table, then JSON.
"""

from __future__ import annotations

import argparse
import ast
import json
import sysconfig
import time
from pathlib import Path
from typing import Any

from referee.tools.claims import Scope, claims_in

TARGET = 25.0


def cases() -> dict[str, tuple[str, str]]:
    """Name → (path in the change, source)."""
    found = {"generated-settings": ("settings/big.py", "PADDING=0\n" * 110_000 + "X = 'a'\n")}
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted((p for p in stdlib.glob("*.py") if p.is_file()), key=lambda p: p.stat().st_size)
    for path in files[-5:]:
        found[path.name] = (f"lib/{path.name}", path.read_text(encoding="utf-8"))
    return found


def best(repeat: int, run: Any) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(path: str, source: str, repeat: int) -> dict[str, Any]:
    parse = best(repeat, lambda: ast.parse(source))
    new = best(repeat, lambda: claims_in(path, None, source, Scope()))
    changed = best(repeat, lambda: claims_in(path, source, source + "\nZ = 1\n", Scope()))
    return {
        "bytes": len(source.encode("utf-8")),
        "parse_s": round(parse, 3),
        "new_s": round(new, 3),
        "changed_s": round(changed, 3),
        "new_per_parse": round(new / parse, 1),
        "changed_per_parse": round(changed / parse, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    results = {name: measure(path, text, args.repeat) for name, (path, text) in cases().items()}
    header = ("case", "bytes", "parse s", "new s", "chg s", "new/p", "chg/p")
    print(f"{header[0]:24} " + " ".join(f"{h:>8}" for h in header[1:]))
    for name, r in results.items():
        row = (r["bytes"], r["parse_s"], r["new_s"], r["changed_s"])
        ratios = (r["new_per_parse"], r["changed_per_parse"])
        print(f"{name:24} " + " ".join(f"{v:>8}" for v in (*row, *ratios)))
    worst = max(max(r["new_per_parse"], r["changed_per_parse"] / 2) for r in results.values())
    verdict = "met" if worst <= TARGET else "missed"
    print(json.dumps({"results": results, "target": TARGET, "worst": worst, "verdict": verdict}))
    return 0 if verdict == "met" else 1


if __name__ == "__main__":
    raise SystemExit(main())
