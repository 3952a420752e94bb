"""The `referee` command line: the MCP server and mirrors of its tools for humans and CI.

Building the parser imports only the command modules, which import their cores inside their
handlers: `referee --version` and `referee --help` start in a few hundredths of a second, and
each command pays only for what it runs.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence

COMMANDS = (
    "serve",
    "contract",
    "holdout",
    "evaluate",
    "validate",
    "aggregate",
    "ci",
    "checkout",
    "baseline",
    "report",
    "view",
    "capture",
    "setup",
    "demo",
    "codes",
    "store",
)

EPILOG = """\
exit codes: 0 success or a positive judgement; 1 a negative judgement (invalid scorecard,
failed criteria, REVISE); 2 usage error; see each command's --help for its own codes.

Connect Claude Code:  claude mcp add referee -- referee serve
"""


class _Version(argparse.Action):
    """--version, reading the installed version only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print referee's version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from importlib.metadata import version

        print(f"referee {version('referee')}")
        parser.exit()


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
    parser.add_argument("--version", action=_Version)
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
    parser.add_argument(
        "--store",
        dest="store_url",
        metavar="URL",
        help="a team store, postgresql://… (default: $REFEREE_STORE_URL, else the embedded one)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages to stderr")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(commands)
    _accept_common_options(commands)
    return parser


def _accept_common_options(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Let --root, --home and --store also follow the command (`referee ci --store URL`)."""
    for sub in set(commands.choices.values()):
        sub.add_argument(
            "--root",
            action="append",
            default=argparse.SUPPRESS,
            metavar="DIR",
            help="allowed root folder (repeatable)",
        )
        sub.add_argument("--home", default=argparse.SUPPRESS, metavar="DIR", help="store folder")
        if "--store" not in sub._option_string_actions:  # validate's --store keeps the scorecard
            sub.add_argument(
                "--store",
                dest="store_url",
                default=argparse.SUPPRESS,
                metavar="URL",
                help="team store (postgresql://…)",
            )
        for action in sub._actions:
            if isinstance(action, argparse._SubParsersAction):
                _accept_common_options(action)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = _main(argv)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return code
    except BrokenPipeError:
        # The reader went away (`referee … | head -1`): stop quietly, as `cat` would. Python
        # would otherwise complain again when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a command killed by a closed pipe


def _main(argv: Sequence[str] | None) -> int:
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
    from referee.tools.errors import RefereeError
    from referee.tools.store import StoreKeyMismatch, StoreTampered, StoreUnavailable

    try:
        return int(args.handler(args) or 0)
    except (StoreTampered, StoreUnavailable, StoreKeyMismatch) as exc:
        # A store with a row that does not verify or a trigger in its database, a team store out
        # of reach or sealed with another key: refuse in one line, saying why.
        sys.stderr.write(f"error: {exc.summary}\n")
        return 2
    except RefereeError as exc:
        # Any other deliberate refusal (git cannot read the repository: a broken index, a
        # corrupt object) is one line naming the cause, never a traceback.
        sys.stderr.write(f"error: {exc}\n")
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
