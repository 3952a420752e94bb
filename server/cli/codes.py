"""`referee codes [CODE...]`: what a code referee reported means, and how to fix it."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from .common import EXIT_USAGE, add_json, print_json

if TYPE_CHECKING:
    from referee.tools.codes import Entry


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "codes",
        help="explain a reason, validate, input or antipattern code",
        description=(
            "Print what each CODE means and how to fix it (the tables of docs/codes.md), from"
            " every family that has it; without a CODE, list every code by family. Exit 0, or 2"
            " for a code referee does not have."
        ),
    )
    parser.add_argument("code", nargs="*", metavar="CODE", help="e.g. harness_flip, stale")
    add_json(parser, "the entries")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from referee.tools.codes import FAMILIES, lookup

    if not args.code:
        if args.json:
            print_json({f.key: list(f.codes) for f in FAMILIES})
        else:
            print("\n".join(f"{f.title} ({len(f.codes)}): {', '.join(f.codes)}" for f in FAMILIES))
        return 0
    found = {code: lookup(code) for code in args.code}
    if args.json:
        print_json({code: [e.as_dict() for e in entries] for code, entries in found.items()})
    else:
        print("\n\n".join(_text(e) for entries in found.values() for e in entries))
    missing = [code for code, entries in found.items() if not entries]
    for code in missing:
        sys.stderr.write(f"error: referee has no code {code!r}; `referee codes` lists them all\n")
    return EXIT_USAGE if missing else 0


def _text(entry: Entry) -> str:
    level = entry.family.level_of(entry.code)
    kind = entry.family.title.lower().removesuffix("s") + (f", {level}" if level else "")
    return (
        f"{entry.code}  ({kind})\n"
        f"  meaning: {entry.meaning.meaning}\n"
        f"  fix:     {entry.meaning.fix}\n"
        f"  see:     {entry.as_dict()['docs']}"
    )
