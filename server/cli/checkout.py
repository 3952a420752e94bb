"""`referee checkout` and `referee gc`: restore a pinned iteration, or drop a contract's pins.

checkout exit codes: 0 restored; 1 refused (uncommitted work that no pin keeps, or the branch
cannot be created); 2 usage error (unknown contract, no such pinned iteration).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from .common import (
    EXIT_NEGATIVE,
    EXIT_OK,
    add_json,
    more,
    open_store,
    report_error,
    settings_of,
    show,
)

if TYPE_CHECKING:
    from referee.tools.checkout import CheckoutResult, GcResult


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "checkout",
        help="write a pinned iteration's content back (default: the delivered one)",
        description=(
            "Every evaluated tree is pinned under refs/referee/<contract>/<iteration>. Write the"
            " content of one iteration (default: the one the latest aggregate delivered) back to"
            " the working tree: changed files written, files it did not have deleted, ignored"
            " files untouched. Refuses to overwrite work that is neither committed nor pinned"
            " unless --force. With --branch NAME the working tree is left alone and a new branch"
            " is created at that iteration instead."
        ),
        epilog="exit codes: 0 restored, 1 refused, 2 usage error",
    )
    parser.add_argument("contract_id")
    parser.add_argument("--iteration", type=int, help="the iteration (default: the delivered one)")
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--force", action="store_true", help="overwrite uncommitted work")
    target.add_argument("--branch", metavar="NAME", help="create branch NAME at the iteration")
    add_json(parser)
    parser.set_defaults(handler=run_checkout)
    gc = commands.add_parser(
        "gc",
        help="drop a contract's pinned iterations",
        description=(
            "Delete the refs/referee/<contract>/* pins of a contract; git's own garbage"
            " collection may then reclaim trees nothing else refers to. Exit 0, 2 unknown contract."
        ),
    )
    gc.add_argument("contract_id")
    add_json(gc)
    gc.set_defaults(handler=run_gc)


def run_checkout(args: argparse.Namespace) -> int:
    from referee.tools.checkout import checkout
    from referee.tools.errors import InvalidInput, NotFound
    from referee.tools.repo import RestoreRefused

    if args.iteration is not None and args.iteration < 1:
        sys.stderr.write("error: --iteration starts at 1\n")
        return 2
    store = open_store(settings_of(args))
    try:
        result = checkout(
            store, args.contract_id, iteration=args.iteration, force=args.force, branch=args.branch
        )
    except RestoreRefused as exc:
        sys.stderr.write(f"refused: {exc}\n")
        return EXIT_NEGATIVE
    except InvalidInput as exc:
        report_error(exc)
        return 2
    except NotFound as exc:
        return report_error(exc)
    finally:
        store.close()
    show(args, result, _print_checkout)
    return EXIT_OK


def _print_checkout(result: CheckoutResult) -> None:
    where = f"branch {result.branch}" if result.branch else "the working tree"
    print(
        f"{result.contract_ref} iteration {result.iteration} ({result.ref}, tree"
        f" {result.tree[:12]}) → {where}"
    )
    if result.branch:
        print(f"  commit {result.commit[:12]}; git switch {result.branch} to work on it")
        return
    if not result.written and not result.deleted:
        print("  nothing to change: the working tree already holds it")
    for title, paths in (("written", result.written), ("deleted", result.deleted)):
        if paths:
            print(f"  {title} ({len(paths)}): {', '.join(paths[:10])}")
            more(10, len(paths), "file", indent="    ")
    if result.skipped:
        print(f"  submodules left as they are: {', '.join(result.skipped)}")


def run_gc(args: argparse.Namespace) -> int:
    from referee.tools.checkout import drop_contract_pins
    from referee.tools.errors import InvalidInput, NotFound

    store = open_store(settings_of(args))
    try:
        result = drop_contract_pins(store, args.contract_id)
    except (InvalidInput, NotFound) as exc:
        report_error(exc)
        return 2
    finally:
        store.close()
    show(args, result, _print_gc)
    return EXIT_OK


def _print_gc(result: GcResult) -> None:
    if result.dropped:
        numbers = ", ".join(map(str, result.dropped))
        which = "iteration" if len(result.dropped) == 1 else "iterations"
        print(f"{result.contract_ref}: dropped the pins of {which} {numbers}")
    else:
        print(f"{result.contract_ref}: nothing was pinned")
