"""`referee contract create|show|export|list`: contracts from and to YAML files."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.tools.text import counted

from .common import EXIT_USAGE, add_json, open_store, print_json, report_error, settings_of
from .options import add_model_options

if TYPE_CHECKING:
    from referee.tools.models import CreateContractResult


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "contract",
        help="create, show, export and list sprint contracts",
        description="Sprint contracts: write them before any code exists.",
    )
    sub = parser.add_subparsers(dest="contract_command", metavar="ACTION", required=True)
    create = sub.add_parser(
        "create",
        help="create a contract from a YAML (or JSON) file",
        description=(
            "Create a contract from FILE. FILE holds create_contract's fields "
            "(goal, task_type, functional, …) or an exported contract, which is imported "
            "with its id. Exit 0 created, 1 invalid (every problem listed), 2 usage."
        ),
    )
    create.add_argument("file", type=Path)
    create.add_argument(
        "--repo",
        help=(
            "repository the contract applies to (default: the file's `repo:`, relative to the"
            " file, else the root)"
        ),
    )
    add_json(create)
    create.set_defaults(handler=run_create)
    show = sub.add_parser(
        "show",
        help="print a stored contract",
        description=(
            "Print a stored contract as YAML: the generator view (no hold-outs) unless --view"
            " evaluator, as get_contract does."
        ),
    )
    add_model_options(show, "get-contract-input", positional=["contract_id"])
    show.add_argument("--json", action="store_true", help="JSON instead of YAML")
    show.set_defaults(handler=run_show)
    export = sub.add_parser(
        "export",
        help="write a stored contract as YAML (for CI without the database)",
        description=(
            "Write a stored contract as YAML. The default is the generator view (no hold-outs),"
            " safe to commit; --view evaluator writes everything and warns that the file reveals"
            " the hold-outs (`referee holdout export` is the way to hand them to CI)."
        ),
    )
    add_model_options(export, "get-contract-input", positional=["contract_id"])
    export.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")
    add_json(export, "the contract (instead of YAML)")
    export.set_defaults(handler=run_export)
    listing = sub.add_parser("list", help="list stored contract ids")
    add_json(listing, "the ids")
    listing.set_defaults(handler=run_list)


def run_create(args: argparse.Namespace) -> int:
    from referee.tools.create_contract import ContractFileError, read_contract_file
    from referee.tools.errors import InvalidInput, NotFound

    settings = settings_of(args)
    try:
        parsed = read_contract_file(args.file, key=settings.key_source.load())
    except ContractFileError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    except InvalidInput as exc:
        return report_error(exc)
    store = open_store(settings)
    try:
        result = _create_or_import(parsed, args, settings, store)
    except (InvalidInput, NotFound) as exc:
        return report_error(exc)
    _print_created(result, args.json)
    return 0


def _create_or_import(
    parsed: Any, args: argparse.Namespace, settings: Any, store: Any
) -> CreateContractResult:
    from referee.tools import create_contract as core
    from referee.tools.repo import describe_repo
    from referee.tools.rubrics import load_rubrics

    if parsed.contract is not None:
        return core.import_contract(parsed.contract, store=store, config=parsed.config)
    repo = _repo_of(parsed.request, args, settings)
    repo_info = describe_repo(repo)
    return core.create_contract(
        parsed.request,
        store=store,
        rubrics=load_rubrics(repo_info.root),
        repo=repo_info,
        now=lambda: datetime.now(UTC),
    )


def _repo_of(request: dict[str, Any], args: argparse.Namespace, settings: Any) -> Path:
    """--repo, else the file's own `repo:` (relative to the file's folder), else the root; either
    must lie inside a root."""
    from referee.tools.paths import confine

    if args.repo:
        return confine(args.repo, settings.roots, at="--repo")
    named = request.get("repo")
    if isinstance(named, str) and named:  # any other value is the core's to report, by field
        return confine(named, settings.roots, base=args.file.resolve().parent, at="/repo")
    return Path(settings.repo)


def _print_created(result: CreateContractResult, as_json: bool) -> None:
    if as_json:
        print_json(result.model_dump(mode="json", by_alias=True))
        return
    contract = result.contract
    criteria = contract.all_criteria()
    hidden = sum(1 for c in criteria if c.holdout)
    print(f"created {contract.id}")
    print(
        f"  rubric {contract.rubric_ref} {contract.rubric_version}; evaluators"
        f" {', '.join(contract.evaluators)}; {counted(len(criteria), 'criterion', 'criteria')}"
        f" ({hidden} hold-out); max {counted(contract.max_iterations, 'iteration')}"
    )
    for w in result.warnings:
        print(f"  warning {w.path} [{w.code}] {w.message}")


def _document(args: argparse.Namespace, *, export: bool = False) -> dict[str, Any] | int:
    """The requested view of a stored contract (as a file, with its configuration), or the exit
    code of a usage error."""
    from referee.tools import create_contract as core
    from referee.tools.errors import NotFound

    read = core.export_contract if export else core.get_contract
    try:
        return read(args.contract_id, args.view, store=open_store(settings_of(args)))
    except NotFound as exc:
        return report_error(exc)


def run_show(args: argparse.Namespace) -> int:
    from referee.tools.create_contract import to_yaml

    doc = _document(args)
    if isinstance(doc, int):
        return doc
    if args.json:
        print_json(doc)
    else:
        sys.stdout.write(to_yaml(doc))
    return 0


def run_export(args: argparse.Namespace) -> int:
    from referee.tools.create_contract import to_yaml

    doc = _document(args, export=True)
    if isinstance(doc, int):
        return doc
    hidden = [c for group in doc["acceptance_criteria"].values() for c in group if c.get("holdout")]
    if hidden:
        print(
            f"warning: this file reveals {len(hidden)} hold-out criteria; never commit it where"
            " the generator can read it (the generator view is the default)",
            file=sys.stderr,
        )
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n" if args.json else to_yaml(doc)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def run_list(args: argparse.Namespace) -> int:
    from referee.tools.store import contract_ids

    ids = contract_ids(open_store(settings_of(args)))
    if args.json:
        print_json(ids)
    for ident in [] if args.json else ids:
        print(ident)
    return 0
