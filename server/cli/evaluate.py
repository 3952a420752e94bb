"""`referee evaluate`: run a contract's checks and print the evidence-grounded result."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from referee.tools.text import counted

from .common import (
    EXIT_NEGATIVE,
    EXIT_OK,
    EXIT_USAGE,
    add_json,
    add_memory_limit,
    more,
    open_store,
    report_error,
    settings_of,
    show,
)
from .options import add_model_options, model_arguments

if TYPE_CHECKING:
    from referee.tools.models import Evaluation, StrategicAssessment


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "evaluate",
        help="run a contract's checks and derive verdicts from the evidence",
        description=(
            "Evaluate the working tree (or --ref) against a contract: referee runs the tests,"
            " commands, browser checks and static analysis itself. --scope strategic runs"
            " nothing and reads the stored history instead: trends, regression risks,"
            " saturation and improvement priorities. Exit 0 when every criterion referee could"
            " judge passed, 1 otherwise, 2 on usage errors."
        ),
    )
    # One source for the tool's own arguments: EvaluateInput (through its generated schema).
    add_model_options(parser, "evaluate-input", positional=["contract_id"])
    parser.add_argument(
        "--allow-host", action="append", default=[], help="let browser checks reach HOST"
    )
    add_memory_limit(parser)
    parser.add_argument(
        "--draft",
        type=Path,
        metavar="FILE",
        help="write the signed draft scorecard to FILE (complete it, then referee validate FILE)",
    )
    add_json(parser, "the full result")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import anyio
    from pydantic import ValidationError

    from referee.tools.errors import InvalidInput, NotFound, problems_from_validation
    from referee.tools.evaluate import EvaluateDeps, EvaluateInput, evaluate

    if args.scope == "strategic":
        return _strategic(args)
    # A person's terminal is not a model's context: nothing is cut from the result here, and the
    # readable summary says how many items each list it shortens holds.
    settings = replace(settings_of(args), result_budget=sys.maxsize)
    try:
        request = EvaluateInput(**model_arguments(args, EvaluateInput.model_fields))
    except ValidationError as exc:
        report_error(InvalidInput(problems_from_validation(exc)))
        return EXIT_USAGE
    store = open_store(settings)
    progress = _Progress(enabled=not args.json)
    deps = EvaluateDeps(
        store=store,
        settings=settings,
        now=lambda: datetime.now(UTC),
        on_progress=progress,
    )
    try:
        result = anyio.run(evaluate, request, deps)
    except (InvalidInput, NotFound) as exc:
        return report_error(exc)
    finally:
        progress.end()
        store.close()
    if args.draft is not None and not _write_draft(args.draft, result):
        return EXIT_USAGE
    show(args, result, print_summary)
    negative = any(c.pass_ is False for c in result.criteria) or bool(result.antipatterns)
    return EXIT_NEGATIVE if negative else 0


def _strategic(args: argparse.Namespace) -> int:
    from referee.tools.errors import NotFound
    from referee.tools.report import strategic_assessment

    store = open_store(settings_of(args))
    try:
        result = strategic_assessment(store, args.contract_id)
    except NotFound as exc:
        return report_error(exc)
    finally:
        store.close()
    show(args, result, print_strategy)
    return EXIT_OK


def _write_draft(path: Path, ev: Evaluation) -> bool:
    text = json.dumps(ev.draft_scorecard.model_dump(mode="json", by_alias=True), indent=2)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        sys.stderr.write(f"error: cannot write {path}: {exc.strerror or exc}\n")
        return False
    sys.stderr.write(f"wrote the signed draft scorecard to {path}\n")
    return True


class _Progress:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()

    async def __call__(self, done: float, total: float | None, message: str) -> None:
        if self.enabled:
            sys.stderr.write(f"\r[{int(done)}/{int(total or 0)}] {message[:60]:<60}")
            sys.stderr.flush()

    def end(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 72 + "\r")


_SHOWN = 10


def print_summary(ev: Evaluation) -> None:
    from referee.tools.evaluate import adequacy_text

    ref = f"  ref {ev.target.ref}" if ev.target.ref else ""
    print(f"{ev.contract_ref}  iteration {ev.iteration}  run {ev.run_id}{ref}")
    print(
        f"  tree {ev.target.tree[:12]}  commit {(ev.target.commit or '-')[:12]}  "
        f"{counted(len(ev.target.changed_files), 'changed file')}  {ev.duration_s:.1f} s"
    )
    print(
        f"  isolation {ev.isolation}  sandbox {ev.sandbox}"
        + (f"  pinned {ev.pin}" if ev.pin else "")
    )
    for warning in ev.warnings:
        print(f"  warning: {warning}")
    print("criteria:")
    for c in ev.criteria:
        mark = {"pass": "PASS", "fail": "FAIL", "unscored": "----" if c.pass_ is None else "UNSC"}[
            c.status
        ]
        print(f"  {mark}  {c.id:<10} {c.reason}  [{', '.join(c.evidence_ids)}]")
        if adequacy := adequacy_text(c.adequacy):
            print(f"        {adequacy}")
    print("dimensions:")
    for key, d in ev.dimensions.items():
        score = "judge" if d.score is None else f"{d.score:g}"
        print(f"  {key:<16} {score:<6} {d.source:<13} {d.evidence}")
    if ev.project_health is not None:
        _print_health(ev)
    _print_issues(ev)
    if ev.antipatterns:
        print("antipatterns:")
        for a in ev.antipatterns:
            print(f"  {a.id:<20} {a.location or '':<28} {a.evidence}")
    if ev.tree_changed.changed:
        print(f"tree changed by the checks: {', '.join(ev.tree_changed.paths)}")
    if ev.tree_changed.holdout_paths:
        print(
            "written by hold-out runs (evaluator view, never for the generator):"
            f" {', '.join(ev.tree_changed.holdout_paths)}"
        )
    needs = ev.needs_judgment
    if needs.criteria or needs.dimensions:
        print(
            f"needs judgement: criteria {needs.criteria or '-'}; dimensions"
            f" {needs.dimensions or '-'}"
        )
    print(
        f"verdict: {ev.verdict or 'pending judgement'}"
        + (f" ({ev.weighted_score})" if ev.weighted_score is not None else "")
    )


def _print_health(ev: Evaluation) -> None:
    health = ev.project_health
    assert health is not None
    print(f"PROJECT_HEALTH: {health.band} (composite {health.composite:.2f})")
    for key, d in health.dimensions.items():
        print(f"  {key:<16} {d.score:<6.2f} {d.evidence}")


def _print_issues(ev: Evaluation) -> None:
    if ev.issues:
        print("issues:")
        for i in ev.issues[:_SHOWN]:
            print(f"  {i.severity:<8} {i.location or '':<28} {i.description}")
        more(_SHOWN, len(ev.issues), "issue", f"report://{ev.run_id}, or --json")
    if ev.findings:
        print(f"static findings ({ev.findings_total or len(ev.findings)}):")
        for f in ev.findings[:_SHOWN]:
            print(f"  {f.severity:<8} {f.location:<28} [{f.rule}] {f.message}")
        more(_SHOWN, max(ev.findings_total, len(ev.findings)), "finding", f"report://{ev.run_id}")


def print_strategy(result: StrategicAssessment) -> None:
    """The strategic scope for a person: trends, regression risks, saturation, priorities."""
    its = ", ".join(map(str, result.iterations)) or "none"
    print(
        f"{result.contract_ref}  strategic: iterations {its}; {counted(result.evaluations, 'run')},"
        f" {counted(result.scorecards, 'scorecard')}; no checks were run"
    )
    for note in result.notes:
        print(f"  note: {note}")
    print("trends:")
    for t in result.trends:
        values = " → ".join("—" if v is None else f"{v:g}" for v in t.values)
        best = (
            f"  high-water {t.high_water:g} (iteration {t.high_water_iteration})"
            if t.high_water is not None
            else ""
        )
        print(f"  {t.dimension:<16} {t.direction:<10} {values}{best}")
    if result.regression_risks:
        print("regression risks:")
        for r in result.regression_risks:
            print(f"  {r.message}  [{', '.join(r.evidence_ids) or '-'}]")
    if result.saturation:
        print("saturation:")
        for s in result.saturation:
            print(f"  {s.message}")
    print("improvement priorities ((1 − score/max) × weight × feasibility):")
    for p in result.priorities[:_SHOWN]:
        print(
            f"  {p.priority:.4f}  {p.dimension:<16} {p.score:g}/{p.max:g}  {p.fix_kind:<8}"
            f" {p.recommendation}  [{p.evidence}]"
        )
    more(
        _SHOWN,
        len(result.priorities),
        "priority",
        f"report://{result.contract_ref}",
        plural="priorities",
    )
    if not result.priorities:
        print("  none: every scored dimension is at the top of the scale")
