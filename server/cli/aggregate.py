"""`referee aggregate`, `referee calibrate` and `referee calibration`: decisions and the calibration
log.

aggregate exit codes: 0 DELIVER, 1 REVISE, 3 ESCALATE, 4 PENDING, 2 usage error (unknown contract,
unreadable or invalid --scorecards file). CI can gate a merge on exit code 0.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.tools.text import counted

from .common import (
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    add_json,
    open_store,
    print_problems,
    report_error,
    settings_of,
    show,
)
from .options import add_model_options

if TYPE_CHECKING:
    from referee.tools.calibration import Agreement, CalibrationReport
    from referee.tools.models import AggregateResult, BriefIssue, RevisionBrief
    from referee.tools.store import Store

EXIT_CODES = {"DELIVER": 0, "REVISE": 1, "ESCALATE": 3, "PENDING": 4}


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    _register_aggregate(commands)
    calibrate = commands.add_parser(
        "calibrate",
        help="log a human's verdict on a stored scorecard (calibration)",
        description=(
            "Record what a person decided about the work a stored scorecard judged, next to the "
            "evaluator's verdict. Exit 0 recorded, 2 unknown scorecard or usage error."
        ),
    )
    calibrate.add_argument("scorecard_id", type=int, help="the id validate_scorecard returned")
    calibrate.add_argument("verdict", type=str.upper, choices=["ACCEPT", "REVISE", "BLOCK"])
    calibrate.add_argument(
        "--note", default="", help="why: what the evaluator missed or over-weighted"
    )
    add_json(calibrate, "the entry")
    calibrate.set_defaults(handler=run_calibrate)
    report = commands.add_parser(
        "calibration",
        help="agreement between evaluators and humans, per evaluator prompt version",
        description=(
            "Agreement rate and Cohen's kappa of evaluator and human verdicts, per evaluator prompt"
            " version and per evaluator. Exit 0."
        ),
    )
    report.add_argument(
        "contract_id", nargs="?", help="only this contract's scorecards (default: all)"
    )
    add_json(report, "the report")
    report.set_defaults(handler=run_calibration)


def _register_aggregate(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "aggregate",
        help="combine the evaluators' verdicts: DELIVER, REVISE, ESCALATE or PENDING",
        description=(
            "Decide an iteration from its stored scorecards (plus any given with --scorecards, used"
            " for this run only): any BLOCK escalates, all ACCEPT delivers, REVISE before the last"
            " iteration gives a revision brief, REVISE at the last iteration delivers the best"
            " iteration."
        ),
        epilog="exit codes: 0 DELIVER, 1 REVISE, 3 ESCALATE, 4 PENDING, 2 usage error",
    )
    parser.add_argument(
        "contract_id", help="a stored contract id, or an exported contract file (imported first)"
    )
    # The tool's own options come from AggregateInput; the contract may also be a file here, and
    # the scorecards come from files, the generator's usage as one JSON object.
    add_model_options(parser, "aggregate-input", skip=["contract_id", "scorecards", "usage"])
    parser.add_argument(
        "--usage",
        metavar="JSON",
        # The model's description (the tool's), then the JSON shape the option takes.
        help=(
            "The generator's usage for this iteration, where known, as JSON:"
            ' {"tokens": N, "cost_usd": X, "seconds": S}'
        ),
    )
    parser.add_argument(
        "--scorecards",
        type=Path,
        metavar="FILE.json",
        nargs="+",
        help=(
            "JSON files, each a scorecard or an array of scorecards for this iteration; "
            "validated, used for this run only, not stored"
        ),
    )
    add_json(parser, "the full result")
    parser.set_defaults(handler=run_aggregate)


def run_aggregate(args: argparse.Namespace) -> int:
    from referee.tools.aggregate import aggregate
    from referee.tools.create_contract import contract_rubrics
    from referee.tools.errors import InvalidInput, NotFound
    from referee.tools.holdouts import holdout_source
    from referee.tools.store import load_contract
    from referee.tools.validate_scorecard import current_tree, stored_repo

    settings = settings_of(args)
    store = open_store(settings)
    try:
        args.contract_id = _contract_id(store, args.contract_id)
        cards = (
            [c for path in args.scorecards for c in _read_scorecards(path)]
            if args.scorecards
            else None
        )
        contract = load_contract(store, args.contract_id)
        repo = stored_repo(store, contract, settings.roots)
        tree = current_tree(repo) if cards else None
        hidden = holdout_source(settings, store)
        result = aggregate(
            args.contract_id,
            store=store,
            rubrics=contract_rubrics(store, contract),
            iteration=args.iteration,
            scorecards=cards,
            now=lambda: datetime.now(UTC),
            tree=tree,
            holdout_files=hidden.names(args.contract_id),
            holdout_texts=hidden.texts(args.contract_id),
            usage=_usage(args.usage),
        )
    except UsageError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    except InvalidInput as exc:
        print_problems(exc.summary, exc.problems)
        return EXIT_USAGE
    except NotFound as exc:
        return report_error(exc)
    finally:
        store.close()
    show(args, result, print_result)
    return EXIT_CODES[result.decision]


def _contract_id(store: Store, given: str) -> str:
    """An id as it is; an exported contract file is imported (same content: no change) and its id
    used."""
    from referee.tools.create_contract import ContractFileError, import_contract, load_exported_file

    path = Path(given)
    if not path.is_file():
        return given
    try:
        contract, config = load_exported_file(path, key=store.key)
    except ContractFileError as exc:
        raise UsageError(str(exc)) from exc
    import_contract(contract, store=store, config=config)
    return contract.id


def _read_scorecards(path: Path) -> list[Any]:
    from referee.tools.errors import InvalidInput
    from referee.tools.validate_scorecard import read_json

    try:
        parsed = read_json(path)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if parsed.problems:
        raise InvalidInput(parsed.problems, summary=f"error: {path} is not strict JSON")
    data = parsed.value
    if isinstance(data, dict) and isinstance(data.get("scorecards"), list):
        data = data["scorecards"]
    cards = data if isinstance(data, list) else [data]
    if not cards:
        raise UsageError(f"{path} holds no scorecard")
    return cards


def print_result(result: AggregateResult) -> None:
    """Print an aggregate for a person: decision, reason, verdicts, brief, escalation, notes,
    alerts."""
    print(f"{result.contract_ref}  iteration {result.iteration}: {result.decision}")
    print(f"  {result.reason}")
    verdicts = " · ".join(
        f"{name} {verdict}" for name, verdict in result.evaluator_verdicts.items()
    )
    print(
        f"verdicts: {verdicts or '-'}"
        + (
            f"   missing: {', '.join(result.missing_evaluators)}"
            if result.missing_evaluators
            else ""
        )
    )
    _print_scores(result)
    if result.checkout:
        print(f"restore the delivered iteration: {result.checkout}")
    if result.revision_brief is not None:
        _print_brief(result.revision_brief)
    if result.escalation is not None:
        _print_list("escalation", result.escalation.reasons)
    _print_list("notes", result.quality_notes)
    _print_list(
        "withheld (holdout_leak, not for the generator)",
        [
            f"[{leak.severity}] {leak.description} ({leak.evaluator}: {leak.why})"
            for leak in result.holdout_leaks
        ],
    )
    _print_list(
        "alerts",
        [f"{a.kind}{' ' + a.dimension if a.dimension else ''}: {a.message}" for a in result.alerts],
    )
    from referee.server.summaries import budget_lines

    _print_list("budget", budget_lines(result.budget))


def _print_scores(result: AggregateResult) -> None:
    scores, best = result.scores, result.best_iteration
    parts = []
    if scores.normalized is not None:
        weighted = f"weighted {scores.weighted:g}, " if scores.weighted is not None else ""
        parts.append(f"{weighted}normalized {scores.normalized:g}/100")
    if best is not None:
        parts.append(f"best iteration {best.iteration}")
    if result.delivered_iteration is not None:
        parts.append(f"deliver iteration {result.delivered_iteration}")
    if parts:
        print(
            "scores: "
            + "; ".join(parts)
            + ("" if result.comparable else " (not comparable with earlier ones)")
        )


def _print_brief(brief: RevisionBrief) -> None:
    from referee.tools.aggregate import hidden_checks_text

    print(f"revision brief (iteration {brief.iteration_from} → {brief.iteration_to}):")
    for item in brief.issues_to_address:
        print(_issue_line(item))
    if brief.failed_criteria:
        print(f"  failed criteria: {', '.join(brief.failed_criteria)}")
    if brief.hidden_checks_failed:
        print(f"  {hidden_checks_text(brief.hidden_checks_failed)}")
    if brief.issues_deferred:
        print("  deferred (do not block):")
        for item in brief.issues_deferred:
            print("  " + _issue_line(item))


def _issue_line(item: BriefIssue) -> str:
    where = f"  @ {item.location}" if item.location else ""
    return f"  {item.text}{where}"


def _usage(text: str | None) -> Any:
    """--usage as the model, or a UsageError saying what is wrong with it."""
    if text is None:
        return None
    from pydantic import ValidationError

    from referee.tools.models import Usage

    try:
        return Usage.model_validate_json(text)
    except ValidationError as exc:
        raise UsageError(f"--usage: {exc.errors()[0]['msg']}") from exc


def _print_list(title: str, lines: list[str]) -> None:
    if lines:
        print(f"{title}:")
        for line in lines:
            print(f"  - {line}")


def run_calibrate(args: argparse.Namespace) -> int:
    from referee.tools.calibration import record_human_verdict
    from referee.tools.errors import NotFound

    store = open_store(settings_of(args))
    try:
        record = record_human_verdict(
            args.scorecard_id,
            args.verdict,
            args.note,
            store=store,
            now=lambda: datetime.now(UTC),
        )
    except NotFound as exc:
        return report_error(exc)
    finally:
        store.close()
    show(args, record, _print_record)
    return EXIT_OK


def _print_record(record: Any) -> None:
    agreement = {True: "agrees", False: "disagrees", None: "no evaluator verdict"}[record.agrees]
    print(
        f"recorded #{record.id}: human {record.human_verdict}, {record.evaluator}"
        f" {record.evaluator_verdict} ({agreement}) on scorecard {record.scorecard_id} of"
        f" {record.contract_ref}"
    )


def run_calibration(args: argparse.Namespace) -> int:
    from referee.tools.calibration import calibration_report

    settings = settings_of(args)
    store = open_store(settings)
    try:
        report = calibration_report(store, args.contract_id, settings.min_canary_recall)
    finally:
        store.close()
    show(args, report, print_report)
    return EXIT_OK


def print_report(report: CalibrationReport) -> None:
    """Print agreement per evaluator prompt version, then per evaluator within it, then each
    judge's reliability."""
    _print_agreement(report)
    from referee.server.summaries import judge_lines

    for line in judge_lines(report.judges):
        print(line)


def _print_agreement(report: CalibrationReport) -> None:
    if report.overall is None:
        print(
            "no human verdict is logged"
            + (f" for {report.contract_ref}" if report.contract_ref else "")
        )
        return
    print("overall: " + _agreement(report.overall))
    for version in report.versions:
        print(f"prompt {version.evaluator_prompt_version}: {_agreement(version)}")
        for name, per in version.evaluators.items():
            print(f"  {name}: {_agreement(per)}")


def _agreement(a: Agreement) -> str:
    kappa = f"kappa {a.kappa:g}" if a.kappa is not None else f"kappa n/a ({a.kappa_note})"
    return f"{counted(a.count, 'verdict')}, agreement {a.agreement_rate:.0%}, {kappa}"
