"""`referee store`: the store's schema and moving its rows between stores."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .common import EXIT_USAGE, add_json, open_store, print_json, report_error, settings_of


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "store",
        help="migrate the store's schema; export and import its rows",
        description=(
            "The store: the embedded SQLite under .referee/ (or REFEREE_HOME), or a team's"
            " PostgreSQL named by --store URL or REFEREE_STORE_URL. See docs/storage.md."
        ),
    )
    sub = parser.add_subparsers(dest="store_command", metavar="ACTION", required=True)
    migrate = sub.add_parser(
        "migrate",
        help="bring the store's schema to this referee's version",
        description=(
            "Run the schema migrations the store has not had (opening a store runs them too)"
            " and print its schema version. Exit 0, 2 when the store cannot be opened."
        ),
    )
    add_json(migrate)
    migrate.set_defaults(handler=run_migrate)
    export = sub.add_parser(
        "export",
        help="write every row of the store to a file",
        description=(
            "Write every row of the store (each verified; sealed evidence included) and its files"
            " (run artifacts, hold-out files, screenshot baselines) to FILE as JSON, to import"
            " into another store: `referee store export local.json`, then"
            " `referee --store URL store import local.json`. FILE reveals the hold-outs: keep it"
            " out of the repository. Exit 0, 2 when a row does not verify."
        ),
    )
    export.add_argument("file", type=Path, metavar="FILE")
    add_json(export, "how many rows of each table were written")
    export.set_defaults(handler=run_export)
    load = sub.add_parser(
        "import",
        help="write the rows of an export into the store",
        description=(
            "Write the rows and files of FILE (from `referee store export`) into the store, in"
            " one transaction. The file must be sealed with this store's key, or with the key"
            " --from-key-file names (every row is verified with it, then sealed again with this"
            " store's key); rows already there are skipped, a different row under the same key"
            " refuses the whole import. Exit 0, 1 refused (every problem listed), 2 when the"
            " file does not verify or was sealed with another key."
        ),
    )
    load.add_argument("file", type=Path, metavar="FILE")
    load.add_argument(
        "--from-key-file",
        type=Path,
        metavar="KEYFILE",
        help="the key FILE was sealed with (its store's signing.key, or a file holding its"
        " REFEREE_KEY): its rows are re-sealed with this store's key",
    )
    add_json(load, "how many rows were written")
    load.set_defaults(handler=run_import)


def run_migrate(args: argparse.Namespace) -> int:
    from referee.tools.store import MIGRATIONS

    store = open_store(settings_of(args))
    try:
        applied = store.migrate()
        version = store.schema_version()
    finally:
        store.close()
    if args.json:
        print_json({"store": store.where, "schema_version": version, "applied": applied})
        return 0
    print(f"store {store.where}: schema {version}")
    for step in MIGRATIONS:
        print(f"  {step.version}  {step.what}")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from referee.tools.store import export_store

    store = open_store(settings_of(args))
    try:
        document = export_store(store)
    finally:
        store.close()
    args.file.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    counts = {table: len(rows) for table, rows in document["tables"].items()}
    if args.json:
        print_json({"store": store.where, "file": str(args.file), "rows": counts})
        return 0
    rows = sum(counts.values())
    print(f"wrote {rows} rows of {store.where} to {args.file}")
    return 0


def run_import(args: argparse.Namespace) -> int:
    from referee.tools.errors import InvalidInput
    from referee.tools.store import StoreKeyMismatch, StoreTampered, import_store

    try:
        document = json.loads(args.file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"error: cannot read {args.file}: {exc}\n")
        return EXIT_USAGE
    try:
        source = None if args.from_key_file is None else _key(args.from_key_file)
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"error: --from-key-file {args.from_key_file}: {exc}\n")
        return EXIT_USAGE
    store = open_store(settings_of(args))
    try:
        done = import_store(store, document, source)
    except (StoreTampered, StoreKeyMismatch):
        raise
    except InvalidInput as exc:
        return report_error(exc)
    finally:
        store.close()
    if args.json:
        print_json({"store": store.where, "written": done.written, "present": done.present})
        return 0
    written, present = sum(done.written.values()), sum(done.present.values())
    print(f"imported {written} rows into {store.where} ({present} were there already)")
    return 0


def _key(path: Path) -> bytes:
    """A key read from a file as referee reads its own key file (stripped), never created here.

    Raises:
        OSError: the file cannot be read.
        ValueError: it holds too little to be a key.
    """
    text = path.read_text(encoding="utf-8").strip()
    if len(text) < 16:
        raise ValueError("holds no key (a key has at least 16 characters)")
    return text.encode("utf-8")
