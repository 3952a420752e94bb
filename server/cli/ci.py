"""`referee ci`: the merge gate, grounded in the base branch's contract and CI's own runs."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from .common import EXIT_USAGE, print_json

DEFAULT_CARDS = ".referee/scorecards"

DESCRIPTION = """\
Judge the pull request checked out in the current directory. The contract is read from the
protected base branch (--contract-ref REF:PATH, e.g. origin/main:.referee/contracts/x.yaml),
never from the pull request. referee evaluates the head itself, in its sandbox, in a fresh store
with a key made for this run, once per evaluator of the contract; the committed scorecards (default
.referee/scorecards/) give the judgement and are validated against those runs with the evidence
rules on. Hold-out criteria and their files come from --holdout-dir, a bundle kept outside the
repository (`referee holdout export`).
"""

EPILOG = """\
exit codes: 0 DELIVER (every evaluator accepted), 1 REVISE or an invalid scorecard, 2 usage error
(bad REF:PATH, unreadable contract or bundle), 3 ESCALATE, 4 PENDING (an evaluator without a
scorecard). The Markdown summary is appended (never overwritten) to --summary, else to
$GITHUB_STEP_SUMMARY when set; the file is created if missing.
"""


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "ci",
        help="the merge gate: re-run the checks in CI and validate the committed scorecards",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--contract-ref",
        required=True,
        metavar="REF:PATH",
        help="the contract on the base branch, e.g. origin/main:.referee/contracts/x.yaml",
    )
    parser.add_argument(
        "--scorecards",
        action="append",
        default=[],
        metavar="PATH",
        help=f"a scorecard file or folder (repeatable; default {DEFAULT_CARDS}/)",
    )
    parser.add_argument(
        "--holdout-dir", metavar="DIR", help="hold-out bundle from `referee holdout export`"
    )
    parser.add_argument(
        "--summary", metavar="FILE", help="append the Markdown summary to FILE (created if missing)"
    )
    parser.add_argument("--sarif", metavar="FILE", help="write SARIF 2.1.0 here")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from referee.tools.gate import GateError, GateRequest, gate_json, markdown, run_gate, sarif

    repo = Path(args.root[0]) if args.root else Path.cwd()
    request = GateRequest(
        repo=repo,
        contract_ref=args.contract_ref,
        scorecards=tuple(Path(p) for p in args.scorecards),
        holdout_dir=Path(args.holdout_dir) if args.holdout_dir else None,
        env=dict(os.environ),
        store_url=getattr(args, "store_url", None) or os.environ.get("REFEREE_STORE_URL") or None,
    )
    try:
        import asyncio  # only when the gate runs: every command's start-up imports this module

        gate = asyncio.run(run_gate(request))
    except GateError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    text = markdown(gate)
    summary = args.summary or os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as out:
            out.write(text)
    if args.sarif:
        Path(args.sarif).write_text(json.dumps(sarif(gate), indent=2) + "\n", encoding="utf-8")
    if args.json:
        print_json(gate_json(gate))
    else:
        sys.stdout.write(text)
    return gate.exit_code
