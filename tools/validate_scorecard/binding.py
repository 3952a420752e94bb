"""Binding: a scorecard stands only on a recorded run of its own contract, evaluator, iteration
and tree, and may not drop what referee decided in that run.

A canonical scorecard names its run (`run_id`) and carries the run's signature; the signature is
an HMAC with a key the scorecard's author never sees, so a hand-made card, or the id and signature
of another iteration's run, does not bind. A tenpoint card has no place for a run id: it is bound to
the latest recorded run of its evaluator and iteration, which must be of the current tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.tools.claims import CODE_UNDER_TEST_PATCHED, TEST_INSPECTS_ENVIRONMENT
from referee.tools.environment import ENVIRONMENT_MODIFIED
from referee.tools.errors import Problem
from referee.tools.evidence.signing import verify
from referee.tools.models.common import ReasonCode
from referee.tools.store.runs import StoredRun
from referee.tools.tampering.harness import HARNESS_MODIFIED
from referee.tools.validate_scorecard.card import Card, entries, is_number, obj, path, text

__all__ = ["Binding", "BindingContext", "bind", "dropped_antipatterns", "overrides"]


@dataclass(frozen=True)
class BindingContext:
    """The recorded runs of the contract, the repository's current tree and the signing key."""

    runs: list[StoredRun]
    tree: str | None
    key: bytes | None


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
    if context.tree is not None and run.evaluation.target.tree != context.tree:
        return Binding(
            run,
            [
                Problem(
                    path="",
                    code="run_mismatch",
                    message=(
                        f"the latest run of iteration {card.iteration} ({run.run_id}) judged tree "
                        f"{run.evaluation.target.tree[:12]}, but the repository is at "
                        f"{context.tree[:12]}; "
                        "evaluate the current tree and score again"
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


def dropped_antipatterns(card: Card, run: StoredRun) -> list[Problem]:
    """referee's own antipatterns of the run that the scorecard left out.

    Some may be dismissed, with a warning listed in aggregate's notes: `harness_modified`, when
    every tests check also ran with the base harness and none passed only thanks to the change
    (no harness_flip, no harness_unverified): a new fixture in conftest.py is legitimate work,
    and referee's rerun is the proof that it changes no outcome; and the suspicions referee reads
    in the tests' code (`code_under_test_patched`, `test_inspects_environment`), which name a
    line for the judge to read and cannot tell a mocked collaborator from a faked result.
    """
    reported = {text(a.get("id")) for _, a in entries(card.data.get("antipatterns_detected"))}
    missing = sorted({a.id for a in run.evaluation.antipatterns} - reported)
    return [
        _dismissed(run, ident) if _dismissable(run, ident) else _dropped(run, ident)
        for ident in missing
    ]


_HARNESS_DOUBTS = {ReasonCode.HARNESS_FLIP, ReasonCode.HARNESS_UNVERIFIED}


# Read from the code or the environment, not proven by a run: the judge weighs them (a new
# dependency the change installed is environment_modified, and may be what the task asked).
_SUSPICIONS = frozenset({CODE_UNDER_TEST_PATCHED, TEST_INSPECTS_ENVIRONMENT, ENVIRONMENT_MODIFIED})


def _dismissable(run: StoredRun, ident: str) -> bool:
    if ident in _SUSPICIONS:
        return True
    return ident == HARNESS_MODIFIED and not any(
        c.reason_code in _HARNESS_DOUBTS for c in run.evaluation.criteria
    )


def _dropped(run: StoredRun, ident: str) -> Problem:
    return Problem(
        path="/antipatterns_detected",
        code="antipattern_dropped",
        message=(
            f"referee detected {ident} in run {run.run_id} ({_where(run, ident)}); a judge may add"
            " antipatterns, never drop one: keep it in antipatterns_detected"
        ),
    )


def _dismissed(run: StoredRun, ident: str) -> Problem:
    why = (
        "the judge read the test code referee pointed at and found it ordinary"
        if ident in _SUSPICIONS
        else f"in run {run.run_id} every tests check gave the same verdict with the base harness"
    )
    return Problem(
        path="/antipatterns_detected",
        code="antipattern_dismissed",
        message=f"{ident} ({_where(run, ident)}) was dismissed: {why}",
    )


def _where(run: StoredRun, ident: str) -> str:
    found = [a.location for a in run.evaluation.antipatterns if a.id == ident and a.location]
    return ", ".join(found[:3]) or "see the run's evidence"


def overrides(card: Card, run: StoredRun) -> list[Problem]:
    """Dimension scores that differ from the ones referee derived from the evidence."""
    found = []
    for key, derived in run.evaluation.dimensions.items():
        if derived.source != "deterministic" or derived.score is None:
            continue
        stated = obj(obj(card.data.get("dimensions")).get(key)).get("score")
        if is_number(stated) and abs(float(stated) - derived.score) > 1e-9:
            cited = ", ".join(derived.evidence_ids) or run.run_id
            found.append(
                Problem(
                    path=path("dimensions", key, "score"),
                    code="deterministic_override",
                    message=(
                        f"{key} is {stated:g}, but referee derived {derived.score:g}"
                        f" from the evidence ({cited}: {derived.evidence})"
                    ),
                )
            )
    return found
