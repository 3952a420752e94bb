"""`referee capture` (a Claude Code PostToolUse hook) and `referee evidence export`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

from .common import EXIT_USAGE, add_json, open_store, print_json, report_error, settings_of


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    capture = commands.add_parser(
        "capture",
        help="record a Bash call from the generator's session (Claude Code PostToolUse hook)",
        description=(
            "Reads a PostToolUse hook payload on stdin and records the call as evidence from the"
            " generator's session (run id G-<session>). Such evidence is visible to evaluators but"
            " never enough on its own to pass a criterion. Never blocks the agent: problems are"
            " reported on stderr, exit 0."
        ),
    )
    add_json(capture, "what was recorded (on stdout)")
    capture.set_defaults(handler=run_capture)
    evidence = commands.add_parser("evidence", help="export evidence packs")
    sub = evidence.add_subparsers(dest="evidence_command", metavar="ACTION", required=True)
    export = sub.add_parser("export", help="write a run's (or captured session's) evidence as JSON")
    export.add_argument("run_id")
    export.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")
    export.add_argument(
        "--json", action="store_true", help="accepted for uniformity: the pack is always JSON"
    )
    export.set_defaults(handler=run_export)


def run_capture(args: argparse.Namespace) -> int:
    from referee.tools.errors import InvalidInput
    from referee.tools.evidence import Redactor, parse_hook, record_call, secret_env_values
    from referee.tools.settings import Settings

    try:
        payload = json.loads(sys.stdin.read() or "{}")
        call = parse_hook(payload)
    except (json.JSONDecodeError, InvalidInput) as exc:
        print(f"referee capture: nothing recorded ({exc})", file=sys.stderr)
        return 0
    root = Path(call.cwd) if call.cwd and Path(call.cwd).is_dir() else None
    settings = Settings.build([root] if root else args.root, home=args.home)
    item = record_call(
        open_store(settings),
        call,
        Redactor(secret_env_values(os.environ)),
        lambda: datetime.now(UTC),
    )
    print(f"referee capture: {item.run_id}/{item.id}", file=sys.stderr)
    if args.json:
        print_json({"run_id": item.run_id, "evidence_id": item.id})
    return 0


def run_export(args: argparse.Namespace) -> int:
    from referee.tools.errors import NotFound
    from referee.tools.evidence import evidence_pack

    try:
        pack = evidence_pack(open_store(settings_of(args)), args.run_id)
    except NotFound as exc:
        return report_error(exc)
    text = json.dumps(pack, indent=2, ensure_ascii=False) + "\n"
    if args.output:
        args.output.write_text(text, encoding="utf-8")
        print(f"wrote {args.output} ({len(pack['items'])} items)", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0 if pack["items"] else EXIT_USAGE
