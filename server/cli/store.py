"""`referee store`: the store's schema and moving its rows between stores."""

from __future__ import annotations

import argparse

from .common import add_json, open_store, print_json, settings_of


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
