"""`referee evaluate`: run a contract's checks and print the evidence-grounded result."""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from .common import EXIT_NEGATIVE, open_store, report_error, settings_of, show

if TYPE_CHECKING:
    from referee.tools.models import Evaluation


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = commands.add_parser(
        "evaluate",
        help="run a contract's checks and derive verdicts from the evidence",
        description=(
            "Evaluate the working tree (or --ref) against a contract: referee runs the tests,"
            " commands, browser checks and static analysis itself. Exit 0 when every criterion"
            " referee could judge passed, 1 otherwise, 2 on usage errors."
        ),
    )
    parser.add_argument("contract_id")
    parser.add_argument("--evaluator", help="run only this evaluator's criteria")
    parser.add_argument("--ref", help="commit to evaluate in a detached worktree")
    parser.add_argument("--base", help="base commit for task scope (default: the contract's)")
    parser.add_argument("--iteration", type=int, help="iteration number (default: the next)")
    parser.add_argument("--scope", choices=["task", "project"], default="task")
    parser.add_argument("--depth", choices=["quick", "standard", "deep"], default="standard")
    parser.add_argument(
        "--isolation",
        choices=["sandbox", "inplace", "worktree"],
        default="sandbox",
        help="sandbox (default): bubblewrap over an overlay of the tree; inplace: no sandbox",
    )
    parser.add_argument(
        "--require-sandbox", action="store_true", help="refuse to run without a sandbox"
    )
    parser.add_argument("--evaluator-model", help="the judging model, recorded for comparability")
    parser.add_argument(
        "--allow-host", action="append", default=[], help="let browser checks reach HOST"
    )
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import anyio

    from referee.tools.errors import InvalidInput, NotFound
    from referee.tools.evaluate import EvaluateDeps, EvaluateInput, evaluate
    from referee.tools.rubrics import load_rubrics

    settings = settings_of(args)
    store = open_store(settings)
    request = EvaluateInput(
        contract_id=args.contract_id,
        evaluator=args.evaluator,
        ref=args.ref,
        base=args.base,
        iteration=args.iteration,
        scope=args.scope,
        depth=args.depth,
        isolation=args.isolation,
        require_sandbox=args.require_sandbox,
        evaluator_model=args.evaluator_model,
    )
    progress = _Progress(enabled=not args.json)
    deps = EvaluateDeps(
        store=store,
        settings=settings,
        rubrics=load_rubrics,
        now=lambda: datetime.now(UTC),
        on_progress=progress,
    )
    try:
        result = anyio.run(evaluate, request, deps)
    except (InvalidInput, NotFound) as exc:
        return report_error(exc)
    finally:
        progress.end()
    show(args, result, print_summary)
    negative = any(c.pass_ is False for c in result.criteria) or bool(result.antipatterns)
    return EXIT_NEGATIVE if negative else 0


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


def print_summary(ev: Evaluation) -> None:
    print(f"{ev.contract_ref}  iteration {ev.iteration}  run {ev.run_id}")
    print(
        f"  tree {ev.target.tree[:12]}  commit {(ev.target.commit or '-')[:12]}  "
        f"{len(ev.target.changed_files)} changed file(s)  {ev.duration_s:.1f} s"
    )
    print(f"  isolation {ev.isolation}  sandbox {ev.sandbox}")
    for warning in ev.warnings:
        print(f"  warning: {warning}")
    print("criteria:")
    for c in ev.criteria:
        mark = {"pass": "PASS", "fail": "FAIL", "unscored": "----" if c.pass_ is None else "UNSC"}[
            c.status
        ]
        print(f"  {mark}  {c.id:<10} {c.reason}  [{', '.join(c.evidence_ids)}]")
    print("dimensions:")
    for key, d in ev.dimensions.items():
        score = "judge" if d.score is None else f"{d.score:g}"
        print(f"  {key:<16} {score:<6} {d.source:<13} {d.evidence}")
    if ev.issues:
        print("issues:")
        for i in ev.issues[:10]:
            print(f"  {i.severity:<8} {i.location or '':<28} {i.description}")
    if ev.antipatterns:
        print("antipatterns:")
        for a in ev.antipatterns:
            print(f"  {a.id:<20} {a.location or '':<28} {a.evidence}")
    if ev.tree_changed.changed:
        print(f"tree changed by the checks: {', '.join(ev.tree_changed.paths)}")
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
