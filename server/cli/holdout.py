"""`referee holdout add|list|export`: a hold-out criterion's tests, out of the generator's reach."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from referee.tools.text import counted

from .common import add_json, open_store, print_json, report_error, settings_of

if TYPE_CHECKING:
    from referee.tools.holdouts import HoldoutVault
    from referee.tools.models import AddHoldoutFilesResult
    from referee.tools.store import Store


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "holdout",
        help="keep hold-out tests where the generator cannot read them",
        description=(
            "Hold-out files: the tests of a contract's hold-out criteria, kept in referee's vault"
            " outside the repository and laid over the tree only when their check runs."
        ),
    )
    sub = parser.add_subparsers(dest="holdout_command", metavar="ACTION", required=True)
    add = sub.add_parser(
        "add",
        help="move files into the vault",
        description=(
            "Store PATH... (files or folders) in the vault as hold-outs of CONTRACT_ID. Paths in"
            " the repository keep their repository path; --to lays them in another tree folder"
            " (required for paths outside the repository). Files read from the working tree are"
            " deleted from it once stored (the vault's copy is what runs; `holdout export` gives"
            " it back), unless --keep; a warning names any copy the generator can still read"
            " (a kept file, the git history). Exit 0 stored, 1 refused (every problem listed),"
            " 2 usage."
        ),
    )
    add.add_argument("contract_id")
    add.add_argument("paths", nargs="+", metavar="PATH")
    add.add_argument(
        "--to", metavar="DIR", help="tree folder to lay the files in (. for the tree's root)"
    )
    add.add_argument("--criterion", metavar="ID", help="the hold-out criterion they serve")
    add.add_argument(
        "--keep", action="store_true", help="leave the originals in the working tree (warned)"
    )
    add_json(add)
    add.set_defaults(handler=run_add)
    listing = sub.add_parser("list", help="list a contract's hold-out files")
    listing.add_argument("contract_id")
    add_json(listing, "the files")
    listing.set_defaults(handler=run_list)
    export = sub.add_parser(
        "export",
        help="write the hold-out bundle CI's --holdout-dir reads",
        description=(
            "Write DIR/contract.yaml (the contract with its hold-out criteria) and"
            " DIR/files/ (the hold-out files at their tree paths). Keep DIR out of the"
            " repository: store it as a CI secret or a protected artifact."
        ),
    )
    export.add_argument("contract_id")
    export.add_argument("dir", type=Path, metavar="DIR")
    add_json(export, "what was written")
    export.set_defaults(handler=run_export)


def _vault(store: Store) -> HoldoutVault:
    from referee.tools.holdouts import store_vault

    return store_vault(store)


def run_add(args: argparse.Namespace) -> int:
    from referee.tools.errors import InvalidInput, NotFound
    from referee.tools.holdouts import add_holdout_files
    from referee.tools.models import AddHoldoutFilesInput
    from referee.tools.store import load_contract

    settings = settings_of(args)
    store = open_store(settings)
    request = AddHoldoutFilesInput(
        contract_id=args.contract_id,
        paths=args.paths,
        to=args.to,
        criterion=args.criterion,
        keep=args.keep,
    )
    try:
        result = add_holdout_files(
            request,
            contract=load_contract(store, args.contract_id),
            vault=_vault(store),
            repo=settings.repo,
            roots=(Path("/"),),  # the person at the terminal may read any file they can
            now=lambda: datetime.now(UTC).isoformat(timespec="seconds"),
        )
    except (InvalidInput, NotFound) as exc:
        return report_error(exc)
    if args.json:
        print_json(result.model_dump(mode="json", by_alias=True))
    else:
        _print_added(result)
    return 0


def _print_added(result: AddHoldoutFilesResult) -> None:
    for item in result.files:
        verb = "replaced" if item.replaced else "stored"
        print(f"{verb} {item.path} ({item.size} bytes, sha256 {item.sha256[:12]})")
    for path in result.removed:
        print(f"removed {path} from the working tree")
    print(f"{result.contract_id} has {counted(result.stored, 'hold-out file')}")
    for w in result.warnings:
        print(f"warning [{w.code}] {w.message}", file=sys.stderr)


def run_list(args: argparse.Namespace) -> int:
    from referee.tools.errors import NotFound
    from referee.tools.store import load_contract

    settings = settings_of(args)
    store = open_store(settings)
    try:
        load_contract(store, args.contract_id)
    except NotFound as exc:
        return report_error(exc)
    entries = _vault(store).files(args.contract_id)
    if args.json:
        print_json([dataclasses.asdict(e) for e in entries])
        return 0
    for entry in entries:
        serves = entry.criterion or "every hold-out"
        print(f"{entry.path}  {entry.size} bytes  sha256 {entry.sha256[:12]}  ({serves})")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from referee.tools.create_contract import export_contract, to_yaml
    from referee.tools.errors import NotFound
    from referee.tools.holdouts import BUNDLE_CONTRACT, BUNDLE_FILES
    from referee.tools.store import load_contract

    settings = settings_of(args)
    store = open_store(settings)
    try:
        contract = load_contract(store, args.contract_id)
    except NotFound as exc:
        return report_error(exc)
    args.dir.mkdir(parents=True, exist_ok=True)
    document = export_contract(contract.id, "evaluator", store=store)
    (args.dir / BUNDLE_CONTRACT).write_text(to_yaml(document), encoding="utf-8")
    written = _vault(store).export(contract.id, args.dir / BUNDLE_FILES)
    files = args.dir / BUNDLE_FILES
    if args.json:
        print_json({"contract": str(args.dir / BUNDLE_CONTRACT), "files": written})
    else:
        print(
            f"wrote {args.dir / BUNDLE_CONTRACT} and {counted(len(written), 'file')} under {files}"
        )
    print("keep it out of the repository: it reveals the hold-outs", file=sys.stderr)
    return 0
