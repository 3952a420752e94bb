"""`referee validate FILE… [--contract ID|FILE.yaml]`: check scorecards, in CI or by hand.

With an exported contract file and no `.referee/` database, it works without creating one: the
evidence rules are then skipped with a warning (an error with --require-evidence).
Exit codes: 0 every scorecard valid, 1 any invalid, 2 usage error.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import (
    EXIT_NEGATIVE,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    add_json,
    open_store,
    print_json,
    settings_of,
)
from .options import add_model_options

if TYPE_CHECKING:
    from referee.tools.errors import Problem
    from referee.tools.models import Contract, ContractConfig, ValidationResult
    from referee.tools.rubrics import RubricSet
    from referee.tools.settings import Settings
    from referee.tools.store import Store

_CONTRACT_SUFFIXES = {".yaml", ".yml", ".json"}


@dataclass(frozen=True)
class Item:
    source: str
    index: int | None
    scorecard: Any
    problems: tuple[Problem, ...] = ()
    """Why the file's JSON could not be read (then `scorecard` is None)."""

    @property
    def label(self) -> str:
        return self.source if self.index is None else f"{self.source}[{self.index}]"


@dataclass
class Session:
    """The store (only if it already exists or is needed) and the contract given with --contract."""

    settings: Settings
    store: Store | None = None
    contract: Contract | None = None
    contract_stored: bool = False
    config: ContractConfig | None = None
    """The configuration exported with the --contract file (rubric, allowlist)."""
    rubrics: dict[str, RubricSet] = field(default_factory=dict)


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "validate",
        help="validate scorecards against the schema, a contract and the recorded evidence",
        description=(
            "Validate scorecards (canonical or 1–10 tenpoint). Every problem is listed with a JSON"
            " pointer, a code and what to fix. With --contract FILE.yaml (an exported contract) no"
            " database is needed. A valid scorecard is recorded as its evaluator's verdict when the"
            " contract is stored."
        ),
        epilog=(
            "exit codes: 0 all valid, 1 any invalid (JSON that is not strict included: NaN,"
            " duplicate keys, too deep or large), 2 usage error (missing file, unknown contract)."
            " Codes: the README"
        ),
    )
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="a JSON scorecard or a JSON array of scorecards; - reads standard input",
    )
    parser.add_argument(
        "--contract",
        metavar="ID|FILE",
        help=(
            "a stored contract id or an exported contract file (default: each scorecard's"
            " contract_ref)"
        ),
    )
    # --format, --store/--no-store and --variant come from ValidateScorecardInput; the scorecards
    # come from files and the contract from --contract (an id or an exported file).
    add_model_options(
        parser, "validate-scorecard-input", skip=["scorecard", "contract_id", "contract"]
    )
    add_json(parser, "the results")
    parser.add_argument(
        "--require-evidence",
        action="store_true",
        help="fail when no recorded evaluation is available to check the evidence against",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Validate every scorecard of every FILE; print the results; return the exit code."""
    settings = settings_of(args)
    try:
        items = [item for name in args.files for item in read_items(name)]
        session = open_session(settings, args.contract)
        jobs = [(item, contract_for(session, item)) for item in items]
    except UsageError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    results = [(item, _checked(session, item, contract, args)) for item, contract in jobs]
    _print(results, args.json)
    return EXIT_OK if all(r.valid for _, r in results) else EXIT_NEGATIVE


def read_items(name: str) -> list[Item]:
    """Read one FILE argument: a scorecard object, or an array of them.

    The text is read strictly (strict_json): JSON that parsers would read differently is an
    invalid scorecard, listed with its problems, not a usage error.

    Raises:
        UsageError: the file is missing or unreadable.
    """
    from referee.tools.validate_scorecard import MAX_CARD_BYTES, parse_json

    try:
        raw = _stdin(MAX_CARD_BYTES) if name == "-" else _head(Path(name), MAX_CARD_BYTES)
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from exc
    source = "<stdin>" if name == "-" else name
    parsed = parse_json(raw)
    if parsed.problems:
        return [Item(source, None, None, tuple(parsed.problems))]
    if isinstance(parsed.value, list):
        return [Item(source, i, card) for i, card in enumerate(parsed.value)]
    return [Item(source, None, parsed.value)]


def _head(path: Path, limit: int) -> bytes:
    """At most limit + 1 bytes: enough to tell a card that is too large, whatever the file is."""
    with path.open("rb") as stream:
        return stream.read(limit + 1)


def _stdin(limit: int) -> bytes:
    binary = getattr(sys.stdin, "buffer", None)
    if binary is not None:
        return bytes(binary.read(limit + 1))
    return sys.stdin.read(limit + 1).encode("utf-8", errors="surrogatepass")


def open_session(settings: Settings, contract_arg: str | None) -> Session:
    """Open the store if it exists and load the --contract contract.

    Raises:
        UsageError: the contract file is broken, or the contract id is not stored.
    """
    exists = settings.store_url is not None or (settings.home / "referee.db").exists()
    session = Session(settings=settings, store=open_store(settings) if exists else None)
    if contract_arg is None:
        return session
    if Path(contract_arg).suffix in _CONTRACT_SUFFIXES or Path(contract_arg).is_file():
        key = settings.key_source.load()
        session.contract, session.config = _contract_file(Path(contract_arg), key)
        session.contract_stored = (
            _stored_copy(session.store, session.contract.id) == session.contract
        )
    else:
        session.contract, session.contract_stored = (
            _stored_contract(session, contract_arg, "--contract"),
            True,
        )
    return session


def _contract_file(path: Path, key: bytes) -> tuple[Contract, ContractConfig | None]:
    from referee.tools.create_contract import ContractFileError, load_exported_file
    from referee.tools.errors import InvalidInput

    try:
        return load_exported_file(path, key=key)
    except ContractFileError as exc:
        raise UsageError(str(exc)) from exc
    except InvalidInput as exc:
        details = "; ".join(f"{p.path or '/'} [{p.code}] {p.message}" for p in exc.problems)
        raise UsageError(f"{path} is not a valid exported contract: {details}") from exc


def _stored_copy(store: Store | None, contract_id: str) -> Contract | None:
    if store is None:
        return None
    from referee.tools.errors import NotFound
    from referee.tools.store import load_contract

    try:
        return load_contract(store, contract_id)
    except NotFound:
        return None


def _stored_contract(session: Session, contract_id: str, where: str) -> Contract:
    if session.store is None:
        raise UsageError(
            f"unknown contract {contract_id} ({where}): there is no referee database at "
            f"{session.settings.home}; pass an exported contract with --contract FILE.yaml"
        )
    found = _stored_copy(session.store, contract_id)
    if found is None:
        raise UsageError(
            f"unknown contract {contract_id} ({where}): it is not stored in {session.settings.home}"
        )
    return found


def contract_for(session: Session, item: Item) -> Contract | None:
    """Return the contract a scorecard is validated against: --contract, else the one it names.

    Raises:
        UsageError: the scorecard names a contract that is not stored.
    """
    if session.contract is not None or not isinstance(item.scorecard, dict):
        return session.contract
    ref = item.scorecard.get("contract_ref", item.scorecard.get("task_id"))
    if not isinstance(ref, str) or not ref:
        return None
    return _stored_contract(session, ref, item.label)


def _checked(
    session: Session, item: Item, contract: Contract | None, args: argparse.Namespace
) -> ValidationResult:
    from referee.tools.validate_scorecard import unreadable

    if item.problems:
        return unreadable(item.problems)
    return _validate(session, item, contract, args)


def _validate(
    session: Session, item: Item, contract: Contract | None, args: argparse.Namespace
) -> ValidationResult:
    from referee.tools.validate_scorecard import (
        contract_repo,
        evidence_context,
        stored_repo,
        validate_and_store,
    )

    stored = contract is not None and (session.contract is None or session.contract_stored)
    store = session.store if stored else None
    evidence = None
    # The person running the CLI chose the contract file: its repo needs no confinement.
    if contract is None:
        repo = None
    elif stored and session.store is not None:
        repo = stored_repo(session.store, contract, session.settings.roots)
    else:
        repo = contract_repo(contract, None)
    if session.store is not None and contract is not None and isinstance(item.scorecard, dict):
        evidence = evidence_context(
            session.store, session.settings.home, repo, contract.id, item.scorecard
        )
    return validate_and_store(
        item.scorecard,
        contract=contract,
        rubrics=_rubrics(session, contract),
        format=args.format,
        evidence=evidence,
        store=store,
        store_result=store is not None and args.store,
        now=lambda: datetime.now(UTC),
        variant=args.variant,
        require_evidence=args.require_evidence,
    )


def _rubrics(session: Session, contract: Contract | None) -> RubricSet:
    """The rubrics a scorecard is judged with: those fixed with its contract (the exported
    file's, or the store's), never the working tree's."""
    from referee.tools.create_contract import contract_rubrics, fixed_rubrics
    from referee.tools.rubrics import RubricSet, builtin_rubrics

    if contract is None:
        return RubricSet(rubrics=dict(builtin_rubrics()))
    if contract.id not in session.rubrics:
        if contract is session.contract and (session.config or session.store is None):
            found = fixed_rubrics(contract, session.config)
        else:
            assert session.store is not None  # a stored contract came from the store
            found = contract_rubrics(session.store, contract)
        session.rubrics[contract.id] = found
    return session.rubrics[contract.id]


def _print(results: list[tuple[Item, ValidationResult]], as_json: bool) -> None:
    if as_json:
        docs = [
            {"source": item.source, "index": item.index, **result.model_dump(mode="json")}
            for item, result in results
        ]
        print_json({"valid": all(r.valid for _, r in results), "results": docs})
        return
    for item, result in results:
        _print_one(item, result)
    invalid = sum(1 for _, r in results if not r.valid)
    noun = "scorecard" if len(results) == 1 else "scorecards"
    print(f"{len(results)} {noun}: {len(results) - invalid} valid, {invalid} invalid")


def _print_one(item: Item, result: ValidationResult) -> None:
    print(f"{item.label}: {_headline(result)}")
    for problem in result.errors:
        print(f"  {_line(problem)}")
    for problem in result.warnings:
        print(f"  warning {_line(problem)}")


def _headline(result: ValidationResult) -> str:
    computed = result.computed
    parts = [
        (
            "valid"
            if result.valid
            else f"INVALID ({len(result.errors)} error{'s' if len(result.errors) != 1 else ''})"
        )
    ]
    if computed.verdict is not None:
        parts.append(
            f"verdict {computed.verdict}"
            if result.valid
            else f"computed verdict {computed.verdict}"
        )
    if computed.weighted_score is not None:
        parts.append(f"weighted {computed.weighted_score:g} ({computed.normalized:g}/100)")
    if result.stored:
        parts.append(
            f"stored #{result.scorecard_id}"
            + (" (replaced the earlier one)" if result.replaced else "")
        )
    return " · ".join(parts)


def _line(problem: Problem) -> str:
    return f"{problem.path or '/'} [{problem.code}] {problem.message}"
