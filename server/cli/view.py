"""`referee view`: a local web app over the store, or (`--bundle DIR`) the same pages written as a
static site."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .common import EXIT_OK, EXIT_USAGE, add_json, open_store, print_json, settings_of

if TYPE_CHECKING:
    from referee.tools.store import Store
    from referee.tools.view import Audience


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "view",
        help="browse contracts, runs and scorecards in a browser; record human verdicts",
        description=(
            "Serve the store as web pages at http://HOST:PORT/: contracts, iterations ×"
            " evaluators, runs with their logs, scorecards beside their drafts, comparisons,"
            " plots and a human-verdict form. Loopback by default; binding any other address"
            " requires --token, given once as ?token=TOKEN. --view generator shows no hold-out."
            " With --bundle DIR the pages are written as static files instead (a CI artifact)."
        ),
        epilog="exit codes: 0 served or written, 2 usage error",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8766, help="port (default 8766; 0: any)")
    parser.add_argument(
        "--token", default=None, help="token required from browsers (default $REFEREE_TOKEN)"
    )
    parser.add_argument(
        "--view",
        choices=("evaluator", "generator"),
        default="evaluator",
        help="whose view: the generator's shows no hold-out, scorecard or calibration",
    )
    parser.add_argument("--bundle", metavar="DIR", help="write every page to DIR and exit")
    add_json(parser, "the pages --bundle wrote")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    store = open_store(settings_of(args))
    try:
        if args.bundle:
            return _bundle(store, Path(args.bundle), args.view, args.json)
        return _serve(store, args)
    finally:
        store.close()


def _bundle(store: Store, folder: Path, audience: Audience, as_json: bool) -> int:
    from referee.tools.view import write_bundle

    try:
        written = write_bundle(store, folder, audience)
    except OSError as exc:
        sys.stderr.write(f"error: cannot write {folder}: {exc.strerror or exc}\n")
        return EXIT_USAGE
    if as_json:
        print_json({"index": str(written[0].resolve()), "pages": [p.name for p in written]})
    else:
        print(f"{written[0].resolve()} ({len(written)} pages)")
    return EXIT_OK


def _serve(store: Store, args: argparse.Namespace) -> int:
    from ..http import TokenRequired
    from ..view import ViewServer

    token = args.token or os.environ.get("REFEREE_TOKEN") or None
    try:
        server = ViewServer(store, args.host, args.port, audience=args.view, token=token)
    except TokenRequired as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    except OSError as exc:
        sys.stderr.write(f"error: cannot bind {args.host}:{args.port}: {exc.strerror or exc}\n")
        return EXIT_USAGE
    print(f"referee view at {server.url}", file=sys.stderr, flush=True)
    server.warm()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.rows.wait()  # the store is closed next
        server.server_close()
    return EXIT_OK
