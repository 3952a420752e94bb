"""What the sandbox costs to start: `true` through bubblewrap against `true` on the host.

    python benchmarks/bench_sandbox.py [--runs 30]

Both go through referee's own launchers (process groups, output files, the inner report), so the
difference is the sandbox itself: the user and mount namespaces, the overlays of the tree and the
tool caches, bubblewrap, and the first process inside. Prints medians in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import anyio

from referee.tools.process import Command, HostLauncher, Launcher
from referee.tools.sandbox import SandboxLauncher, SandboxProfile, sandbox_support


async def once(launcher: Launcher, tree: Path, out: Path) -> float:
    command = Command(
        argv=("true",),
        cwd=tree,
        tree=tree,
        timeout_s=30,
        stdout_path=out / "o",
        stderr_path=out / "e",
    )
    began = time.perf_counter()
    result = await launcher.run(command)
    assert result.exit_code == 0, result
    return (time.perf_counter() - began) * 1000


async def measure(runs: int) -> dict[str, float]:
    support = sandbox_support()
    assert support.available and support.bwrap, support.reason
    tree, out = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    profile = SandboxProfile.build(dict(os.environ), hidden=())
    sandbox = SandboxLauncher(support.bwrap, "unshare", profile)
    host = HostLauncher()
    host_ms, sandbox_ms = [], []
    for _ in range(runs):
        host_ms.append(await once(host, tree, out))
        sandbox_ms.append(await once(sandbox, tree, out))
    return {
        "host_ms": round(statistics.median(host_ms), 1),
        "sandbox_ms": round(statistics.median(sandbox_ms), 1),
        "start_cost_ms": round(statistics.median(sandbox_ms) - statistics.median(host_ms), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    print(json.dumps(anyio.run(measure, args.runs), indent=2))


if __name__ == "__main__":
    main()
