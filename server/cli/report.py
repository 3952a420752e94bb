"""`referee report`: the Markdown (or HTML, or JSON) report of a contract or an evaluation run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import EXIT_OK, EXIT_USAGE, open_store, print_json, report_error, settings_of


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "report",
        help="print the report of a contract or an evaluation run",
        description=(
            "Print the Markdown report of a contract (SC-…) or of one evaluation run (R…): summary,"
            " dimension scores, ranked findings, improvement priorities, anti-gaming results,"
            " alerts, criteria, trends and the evidence index. Exit 0 when the report was produced,"
            " 2 for an unknown id."
        ),
    )
    parser.add_argument("report_id", metavar="ID", help="a contract id (SC-…) or a run id (R…)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument(
        "--html", metavar="FILE", help="write a self-contained HTML page to FILE and print its path"
    )
    output.add_argument("--json", action="store_true", help="print the report's sections as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from referee.tools.errors import NotFound
    from referee.tools.report import analyse, build_report, render_html, render_markdown

    store = open_store(settings_of(args))
    try:
        data = build_report(store, args.report_id)
    except NotFound as exc:
        return report_error(exc)
    finally:
        store.close()
    if args.json:
        print_json(analyse(data).model_dump(mode="json", by_alias=True))
    elif args.html:
        path = _write(Path(args.html), render_html(data))
        if path is None:
            return EXIT_USAGE
        print(path)
    else:
        sys.stdout.write(render_markdown(data))
    return EXIT_OK


def _write(path: Path, page: str) -> Path | None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page, encoding="utf-8")
    except OSError as exc:
        sys.stderr.write(f"error: cannot write {path}: {exc.strerror or exc}\n")
        return None
    return path.resolve()
