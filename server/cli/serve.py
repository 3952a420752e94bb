"""`referee serve`: the MCP server over stdio (for Claude Code and other clients)."""

from __future__ import annotations

import argparse
import logging

from .common import settings_of


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "serve", help="run the MCP server (stdio by default)",
        description="Run referee's MCP server. Over stdio nothing but protocol is written to stdout; "
        "logs go to stderr. Claude Code: claude mcp add referee -- referee serve",
    )
    parser.add_argument("--allow-host", action="append", default=[], metavar="HOST",
                        help="let browser checks reach this non-loopback host (repeatable)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..app import build_server  # the MCP SDK is only imported by the commands that serve

    logging.getLogger("referee").info("serving over stdio")
    build_server(settings_of(args)).run()
    return 0
