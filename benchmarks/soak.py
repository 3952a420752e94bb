"""Soak: thousands of malformed calls against a real `referee serve` over stdio; the server's memory
must stay flat and every call must come back as a tool error.

    python benchmarks/soak.py [--calls 3000]

Prints the server's RSS (from /proc) every 500 calls, the p50/p99 round trip, and a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

TOOLS = ["create_contract", "get_contract", "evaluate", "validate_scorecard", "aggregate"]


def junk(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(6 if depth < 2 else 4)
    if kind == 4:
        return [junk(rng, depth + 1) for _ in range(rng.randrange(3))]
    if kind == 5:
        return {str(rng.randrange(9)): junk(rng, depth + 1) for _ in range(rng.randrange(3))}
    return [None, rng.random() < 0.5, rng.randrange(-99, 99), "x" * rng.randrange(9)][kind]


def malformed(rng: random.Random) -> tuple[str, dict[str, Any]]:
    tool = rng.choice(TOOLS)
    key = {"create_contract": "goal", "validate_scorecard": "scorecard"}.get(tool, "contract_id")
    args = {f"k{rng.randrange(5)}": junk(rng) for _ in range(rng.randrange(3))}
    if rng.random() < 0.5:
        args[key] = rng.choice(
            [None, 7, [1], {"a": 1}] if key != "scorecard" else [None, 7, "text"]
        )
    return tool, args


def server_rss_mib() -> float:
    for entry in os.listdir("/proc"):
        if entry.isdigit() and entry != str(os.getpid()):
            try:
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
                if b"serve" in cmd and any(b"referee" in c for c in cmd):
                    status = Path(f"/proc/{entry}/status").read_text(encoding="utf-8")
                    return (
                        int(
                            next(
                                row for row in status.splitlines() if row.startswith("VmRSS:")
                            ).split()[1]
                        )
                        / 1024
                    )
            except (OSError, StopIteration):
                continue
    return float("nan")


async def soak(calls: int) -> dict[str, Any]:
    rng = random.Random(7)
    root = tempfile.mkdtemp(prefix="referee-soak-")
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "referee.server.cli", "--root", root, "serve"]
    )
    times, rss, errors = [], [], 0
    async with Client(params) as client:
        for i in range(calls):
            tool, args = malformed(rng)
            began = time.perf_counter()
            result = await client.call_tool(tool, args)
            times.append((time.perf_counter() - began) * 1000)
            errors += bool(result.is_error)
            if i % 500 == 0 or i == calls - 1:
                rss.append(round(server_rss_mib(), 1))
                print(f"{i + 1:>6} calls  server RSS {rss[-1]} MiB", flush=True)
        alive = bool((await client.list_tools()).tools)
    ordered = sorted(times)
    return {
        "calls": calls,
        "tool_errors": errors,
        "alive": alive,
        "rss_mib": rss,
        "rss_growth_mib": round(rss[-1] - rss[1], 1) if len(rss) > 2 else None,
        "p50_ms": round(statistics.median(times), 2),
        "p99_ms": round(ordered[int(0.99 * len(ordered))], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=3000)
    summary = anyio.run(soak, parser.parse_args().calls)
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
