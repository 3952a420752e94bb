"""Helpers shared by the CLI commands: settings, the store, printing problems."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from referee.tools.errors import InvalidInput, NotFound, Problem
from referee.tools.settings import Settings
from referee.tools.store import Store

EXIT_OK, EXIT_NEGATIVE, EXIT_USAGE = 0, 1, 2


def settings_of(args: argparse.Namespace) -> Settings:
    return Settings.build(
        args.root, home=args.home, allow_hosts=getattr(args, "allow_host", None) or ()
    )


def open_store(settings: Settings) -> Store:
    return Store(settings.home, key=settings.key_source.load(), vault=settings.vault_root)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def show(args: argparse.Namespace, result: Any, readable: Any) -> None:
    """Print a result model as JSON with --json, else through its readable printer."""
    if getattr(args, "json", False):
        print_json(result.model_dump(mode="json", by_alias=True))
    else:
        readable(result)


def print_problems(summary: str, problems: Sequence[Problem], stream: Any = None) -> None:
    out = stream or sys.stderr
    out.write(summary + "\n")
    for p in problems:
        out.write(f"  {p.path or '/'}  [{p.code}]  {p.message}\n")


def report_error(exc: InvalidInput | NotFound) -> int:
    """Print a caller error to stderr; InvalidInput is a negative result, NotFound a usage error."""
    if isinstance(exc, InvalidInput):
        print_problems(exc.summary, exc.problems)
        return EXIT_NEGATIVE
    sys.stderr.write(f"error: {exc}\n")
    return EXIT_USAGE
