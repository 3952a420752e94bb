"""`referee demo`: the whole loop on a bundled sample project, printed step by step."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from .common import EXIT_NEGATIVE, add_json, print_json


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "demo",
        help="run the whole loop on a bundled sample project",
        description=(
            "contract (with a hold-out) → evaluate (tests, browser, static) → two evaluators'"
            " scorecards validated → aggregate REVISE with a brief → the fix → iteration 2 →"
            " DELIVER, and an HTML report. The judges are scripted; everything else is referee's"
            " real work. Exit 0 when the loop ends in DELIVER."
        ),
    )
    parser.add_argument(
        "--dir", type=Path, help="where to put the sample (default: a new temporary folder)"
    )
    add_json(parser, "the outcome (instead of each step)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import anyio

    from referee.tools.setup import run_demo

    workdir = (args.dir or Path(tempfile.mkdtemp(prefix="referee-demo-"))).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()

    def say(step: str, detail: str) -> None:
        if not args.json:
            print(f"{step:>10}  {detail}", flush=True)

    result = anyio.run(run_demo, workdir, say)
    final = result.decisions[-1] if result.decisions else "none"
    if args.json:
        print_json(
            {
                "repo": str(result.repo),
                "contract_id": result.contract_id,
                "decisions": result.decisions,
                "report": str(result.report) if result.report else None,
            }
        )
        return 0 if final == "DELIVER" else EXIT_NEGATIVE
    print(
        f"\nloop ended in {final} after {len(result.decisions)} iterations,"
        f" {time.monotonic() - started:.1f} s"
    )
    return 0 if final == "DELIVER" else EXIT_NEGATIVE
