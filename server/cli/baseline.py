"""`referee baseline`: the images `screenshot` expectations are held to, kept in the store.

A delivered iteration's images become the baselines that do not exist yet; `accept` makes a
run's images the baselines by hand (a run of the base, say, before a change that must not alter
the page's look), replacing any; `list` shows a contract's, with where each came from.

exit codes: 0 done, 2 usage error (unknown run, contract, criterion or screenshot)
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from .common import EXIT_OK, EXIT_USAGE, open_store, print_json, report_error, settings_of

if TYPE_CHECKING:
    from referee.tools.browser import Baseline


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "baseline",
        help="the baselines screenshot expectations compare with: accept a run's, list them",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
        epilog="exit codes: 0 done, 2 usage error",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    accept = actions.add_parser(
        "accept", help="make a run's images of a criterion its baselines (replacing any)"
    )
    accept.add_argument("run_id")
    accept.add_argument("criterion_id")
    accept.add_argument("--name", help="one screenshot expectation's name (default: all of them)")
    accept.add_argument("--json", action="store_true", help="print the result as JSON")
    accept.set_defaults(handler=run_accept)
    listed = actions.add_parser("list", help="a contract's baselines and where each came from")
    listed.add_argument("contract_id")
    listed.add_argument("--json", action="store_true", help="print the result as JSON")
    listed.set_defaults(handler=run_list)


def run_accept(args: argparse.Namespace) -> int:
    from referee.tools.aggregate import accept_baselines
    from referee.tools.errors import NotFound

    store = open_store(settings_of(args))
    try:
        at = datetime.now(UTC).isoformat()
        made = accept_baselines(store, args.run_id, args.criterion_id, args.name, at)
    except NotFound as exc:
        return report_error(exc)
    finally:
        store.close()
    _print(args, made, "accepted")
    return EXIT_OK


def run_list(args: argparse.Namespace) -> int:
    from referee.tools.aggregate import list_baselines
    from referee.tools.errors import NotFound

    store = open_store(settings_of(args))
    try:
        found = list_baselines(store, args.contract_id)
    except NotFound as exc:
        report_error(exc)
        return EXIT_USAGE
    finally:
        store.close()
    _print(args, found, "")
    return EXIT_OK


def _print(args: argparse.Namespace, found: list[Baseline], verb: str) -> None:
    rows = [
        {k: getattr(b, k) for k in ("contract_id", "criterion_id", "name", "sha256", "run_id",
                                    "how", "at")}
        for b in found
    ]  # fmt: skip
    if args.json:
        print_json({"baselines": rows})
        return
    if not rows:
        print("no baseline is kept for this contract")
    for r in rows:
        lead = f"{verb} " if verb else ""
        source = f"from {r['run_id']} ({r['how']}, {r['at'][:19]})"
        print(f"{lead}{r['criterion_id']} {r['name']}: {source} sha256 {r['sha256'][:12]}")
