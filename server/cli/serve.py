"""`referee serve`: the MCP server over stdio (for Claude Code and other clients) or streamable
HTTP."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from .common import EXIT_USAGE, add_memory_limit, settings_of


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "serve",
        help="run the MCP server (stdio by default, --http for streamable HTTP)",
        description=(
            "Run referee's MCP server. Over stdio nothing but protocol is written to stdout; logs"
            " go to stderr. Claude Code: claude mcp add referee -- referee serve. With --http it"
            " serves http://HOST:PORT/mcp, loopback by default; binding any other address requires"
            " --token, and every request must then carry Authorization: Bearer TOKEN."
        ),
    )
    parser.add_argument(
        "--http", action="store_true", help="serve streamable HTTP instead of stdio"
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind with --http (default 127.0.0.1)"
    )
    parser.add_argument("--port", type=int, default=8765, help="port with --http (default 8765)")
    parser.add_argument(
        "--token", default=None, help="bearer token required from clients (default $REFEREE_TOKEN)"
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST",
        help="let browser checks reach this non-loopback host (repeatable)",
    )
    add_memory_limit(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..app import build_server  # the MCP SDK is only imported by the commands that serve
    from ..http import TokenRequired, http_app, serve_app

    server = build_server(settings_of(args))
    if not args.http:
        logging.getLogger("referee").info("serving over stdio")
        server.run()
        return 0
    token = args.token or os.environ.get("REFEREE_TOKEN") or None
    try:
        app = http_app(server, args.host, token)
    except TokenRequired as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"referee serving http://{args.host}:{args.port}/mcp", file=sys.stderr, flush=True)
    serve_app(app, args.host, args.port)
    return 0
