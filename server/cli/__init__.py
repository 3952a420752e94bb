"""The `referee` command line: the MCP server and mirrors of its tools for humans and CI."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from importlib.metadata import version

from referee.tools.store import StoreTampered

from . import (
    aggregate,
    capture,
    ci,
    contract,
    demo,
    evaluate,
    holdout,
    report,
    serve,
    setup,
    validate,
)

COMMANDS = [
    serve,
    contract,
    holdout,
    evaluate,
    validate,
    aggregate,
    ci,
    report,
    capture,
    setup,
    demo,
]

EPILOG = """\
exit codes: 0 success or a positive judgement; 1 a negative judgement (invalid scorecard,
failed criteria, REVISE); 2 usage error; see each command's --help for its own codes.

Connect Claude Code:  claude mcp add referee -- referee serve
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee",
        description=(
            "referee: an independent evaluator for coding agents (MCP server and CLI). Contracts"
            " before code, evidence from real tools, validated scorecards, aggregated verdicts."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"referee {version('referee')}")
    parser.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="DIR",
        help="allowed root folder (repeatable); default: the current directory",
    )
    parser.add_argument(
        "--home", metavar="DIR", help="store folder (default: $REFEREE_HOME or <repo>/.referee)"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages to stderr")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS:
        module.register(commands)
    _accept_common_options(commands)
    return parser


def _accept_common_options(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Let --root and --home also follow the command (`referee serve --root DIR`)."""
    for sub in set(commands.choices.values()):
        sub.add_argument(
            "--root",
            action="append",
            default=argparse.SUPPRESS,
            metavar="DIR",
            help="allowed root folder (repeatable)",
        )
        sub.add_argument("--home", default=argparse.SUPPRESS, metavar="DIR", help="store folder")
        for action in sub._actions:
            if isinstance(action, argparse._SubParsersAction):
                _accept_common_options(action)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.handler(args) or 0)
    except StoreTampered as exc:
        # A store with a row that does not verify, or a trigger in its database: refuse, say why.
        sys.stderr.write(f"error: {exc.summary}\n")
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
