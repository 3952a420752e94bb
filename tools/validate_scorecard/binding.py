"""Binding: a scorecard stands only on a recorded run of its own contract, evaluator, iteration
and tree (what it may not change of that run's decisions: deterministic.py).

A canonical scorecard names its run (`run_id`) and carries the run's signature; the signature is
an HMAC with a key the scorecard's author never sees, so a hand-made card, or the id and signature
of another iteration's run, does not bind. A tenpoint card has no place for a run id: it is bound to
the latest recorded run of its evaluator and iteration, which must be of the current tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from referee.tools.errors import Problem
from referee.tools.evidence.signing import verify
from referee.tools.validate_scorecard.card import Card, obj, text

if TYPE_CHECKING:
    from referee.tools.store.runs import StoredRun

__all__ = ["Binding", "BindingContext", "bind"]


@dataclass(frozen=True)
class BindingContext:
    """The recorded runs of the contract, the repository's current tree and the signing key."""

    runs: list[StoredRun]
    tree: str | None
    key: bytes | None
    ref: str | None = None  # the ref `tree` is of (`evaluate --ref`); None: the working tree


@dataclass
class Binding:
    """The run a scorecard rests on (None when it rests on none), and why it does not bind."""

    run: StoredRun | None
    problems: list[Problem] = field(default_factory=list)


def bind(card: Card, context: BindingContext) -> Binding:
    """Find and check the run a scorecard rests on."""
    if card.format == "tenpoint" and text(card.data.get("run_id")) is None:
        return _tenpoint(card, context)
    return _canonical(card, context)


def _canonical(card: Card, context: BindingContext) -> Binding:
    run_id, signature = text(card.data.get("run_id")), text(card.data.get("signature"))
    if run_id is None:
        why = (
            "a scorecard must rest on a recorded run: copy run_id and signature from the draft "
            "scorecard evaluate returned"
        )
        return Binding(None, [Problem(path="/run_id", code="run_required", message=why)])
    run = next((r for r in context.runs if r.run_id == run_id), None)
    if run is None:
        return Binding(
            None,
            [
                Problem(
                    path="/run_id",
                    code="run_unknown",
                    message=(
                        f"no evaluation {run_id!r} of {card.contract_ref or 'this contract'} is "
                        "recorded; "
                        "use the run id evaluate returned"
                    ),
                )
            ],
        )
    problems = _mismatch(card, run)
    if signature is None:
        problems.append(
            Problem(
                path="/signature",
                code="signature_missing",
                message=f"run_id {run_id} needs its signature; copy it from evaluate's result",
            )
        )
    else:
        problems += _verified(run, signature, context.key)
    return Binding(run, problems)


def _mismatch(card: Card, run: StoredRun) -> list[Problem]:
    evaluation, problems = run.evaluation, []
    if evaluation.evaluator not in (None, card.evaluator):
        problems.append(
            _mismatched(
                "/evaluator",
                f"run {run.run_id} is evaluator {evaluation.evaluator}'s, not {card.evaluator}'s",
            )
        )
    if card.iteration is not None and evaluation.iteration != card.iteration:
        problems.append(
            _mismatched(
                "/iteration",
                f"run {run.run_id} is of iteration "
                f"{evaluation.iteration}, the scorecard says {card.iteration}",
            )
        )
    tree = text(obj(card.data.get("target")).get("tree"))
    if tree is not None and tree != evaluation.target.tree:
        problems.append(
            _mismatched(
                "/target/tree",
                f"run {run.run_id} judged tree "
                f"{evaluation.target.tree[:12]}, the scorecard {tree[:12]}",
            )
        )
    return problems


def _mismatched(at: str, fact: str) -> Problem:
    return Problem(
        path=at,
        code="run_mismatch",
        message=(
            f"{fact}: a scorecard rests only on a run of its own evaluator, iteration and tree; "
            "evaluate, then score that run's draft"
        ),
    )


def _tenpoint(card: Card, context: BindingContext) -> Binding:
    fitting = [
        r
        for r in context.runs
        if r.evaluation.iteration == card.iteration
        and r.evaluation.evaluator in (card.evaluator, None)
    ]
    if not fitting:
        return Binding(
            None,
            [
                Problem(
                    path="",
                    code="run_required",
                    message=(
                        f"no run of evaluator {card.evaluator} for iteration {card.iteration} is "
                        "recorded; "
                        "call evaluate before scoring"
                    ),
                )
            ],
        )
    run = fitting[-1]
    where = context.ref or "the repository"
    again = f"evaluate --ref {context.ref} again" if context.ref else "evaluate the current tree"
    if context.tree is not None and run.evaluation.target.tree != context.tree:
        return Binding(
            run,
            [
                Problem(
                    path="",
                    code="run_mismatch",
                    message=(
                        f"the latest run of iteration {card.iteration} ({run.run_id}) judged tree "
                        f"{run.evaluation.target.tree[:12]}, but {where} is at "
                        f"{context.tree[:12]}; {again} and score again"
                    ),
                )
            ],
        )
    return Binding(run)


def _verified(run: StoredRun, signature: str, key: bytes | None) -> list[Problem]:
    if key is None:
        return [
            Problem(
                path="/signature",
                code="signature_unchecked",
                message="no signing key is available, so the signature was not verified",
            )
        ]
    if verify(key, run.evaluation, list(run.evidence.values()), signature):
        return []
    return [
        Problem(
            path="/signature",
            code="signature_invalid",
            message=(
                f"the signature does not match recorded evaluation {run.run_id}: this scorecard is"
                " not grounded in that run; copy run_id and signature unchanged from evaluate"
            ),
        )
    ]
