"""Helpers shared by the CLI commands: settings, the store, printing problems and results.

Commands import their cores inside their handlers, so that building the parser (`--help`,
`--version`) imports nothing heavy: the types below are for the type checker only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.tools.errors import InvalidInput, NotFound, Problem
    from referee.tools.settings import Settings
    from referee.tools.store import Store

EXIT_OK, EXIT_NEGATIVE, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A mistake in the command line or its inputs (a missing file, an unknown contract): the
    command did nothing, prints `error: …` and exits 2."""


def settings_of(args: argparse.Namespace) -> Settings:
    from referee.tools.settings import DEFAULT_MEMORY_MB, Settings

    limit = getattr(args, "memory_mb", None)
    return Settings.build(
        args.root,
        home=args.home,
        store=getattr(args, "store_url", None),
        allow_hosts=getattr(args, "allow_host", None) or (),
        memory_mb=DEFAULT_MEMORY_MB if limit is None else limit,
    )


def add_memory_limit(parser: argparse.ArgumentParser) -> None:
    """The --memory-mb flag of the commands that run checks."""
    parser.add_argument(
        "--memory-mb",
        type=int,
        default=None,
        metavar="MIB",
        help="memory limit of a check that sets none (default 2048; 0: no limit)",
    )


def open_store(settings: Settings) -> Store:
    from referee.tools.store import Store

    return Store(
        settings.home,
        key=settings.key_source.load(),
        vault=settings.vault_root,
        url=settings.store_url,
    )


def add_json(parser: argparse.ArgumentParser, what: str = "the result") -> None:
    """The --json flag every command has: print `what` as JSON for scripts."""
    parser.add_argument("--json", action="store_true", help=f"print {what} as JSON")


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def show(args: argparse.Namespace, result: Any, readable: Any) -> None:
    """Print a result model as JSON with --json, else through its readable printer."""
    if getattr(args, "json", False):
        print_json(result.model_dump(mode="json", by_alias=True))
    else:
        readable(result)


def more(
    shown: int,
    total: int,
    noun: str = "",
    where: str = "",
    indent: str = "  ",
    plural: str | None = None,
) -> None:
    """Say how many items a printed list left out ("… 2 more issues: report://R1")."""
    if total <= shown:
        return
    from referee.tools.text import counted

    left = total - shown
    what = counted(left, f"more {noun}", f"more {plural or noun + 's'}") if noun else f"{left} more"
    print(f"{indent}… {what}{': ' + where if where else ''}")


def print_problems(summary: str, problems: Sequence[Problem], stream: Any = None) -> None:
    out = stream or sys.stderr
    out.write(summary + "\n")
    for p in problems:
        out.write(f"  {p.path or '/'}  [{p.code}]  {p.message}\n")


def report_error(exc: InvalidInput | NotFound) -> int:
    """Print a caller error to stderr; InvalidInput is a negative result, NotFound a usage error."""
    from referee.tools.errors import InvalidInput

    if isinstance(exc, InvalidInput):
        print_problems(exc.summary, exc.problems)
        return EXIT_NEGATIVE
    sys.stderr.write(f"error: {exc}\n")
    return EXIT_USAGE
