"""Evidence-aware scorecard rules: cited ids, contradictions, staleness, signatures.

A scorecard is checked against referee's recorded evaluations of its contract: what referee saw
outranks what an evaluator claims.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from referee.tools.errors import Problem
from referee.tools.models.common import ReasonCode, Verdict
from referee.tools.models.evaluation import CriterionResult
from referee.tools.validate_scorecard.binding import BindingContext, bind
from referee.tools.validate_scorecard.card import Card, entries, obj, path, text
from referee.tools.validate_scorecard.deterministic import RAISED, deterministic_problems

if TYPE_CHECKING:
    from referee.tools.store.runs import StoredRun

_URI = "evidence://"


@dataclass(frozen=True)
class EvidenceContext:
    """What the evidence rules check a scorecard against.

    Attributes:
        runs: The contract's stored evaluation runs, oldest first.
        tree: The repository's current tree hash (of `ref` when set), or None when unknown.
        key: The store's signing key, or None when unavailable.
        ref: The ref the scorecard's run evaluated (`evaluate --ref`); None: the working tree.
    """

    runs: list[StoredRun]
    tree: str | None = None
    key: bytes | None = None
    ref: str | None = None
    captured: dict[str, set[str]] = field(default_factory=dict)
    """Evidence ids of captured generator sessions (G-…), by session run id."""


@dataclass(frozen=True)
class EvidenceOutcome:
    problems: list[Problem]
    stale: bool


def evidence_problems(
    card: Card, context: EvidenceContext | None, verdict: Verdict | None = None
) -> EvidenceOutcome:
    """Check a scorecard against the recorded evidence.

    Args:
        card: The scorecard.
        context: The recorded runs, current tree and signing key; None when there are none at hand.
        verdict: The verdict the card computes, held against what its run's evidence allows.

    Returns:
        The problems found, and whether the scorecard is stale.
    """
    if context is None:
        message = (
            "no recorded evaluation is at hand (no referee database), so evidence ids, criterion"
            " verdicts, staleness and the signature were not checked"
        )
        return EvidenceOutcome(
            [Problem(path="", code="evidence_unchecked", message=message)], stale=False
        )
    stale = _stale(card, context)
    binding = bind(card, BindingContext(context.runs, context.tree, context.key, context.ref))
    problems = [*stale, *binding.problems]
    run = binding.run
    problems += _unknown_ids(card, context.runs, run, context.captured)
    problems += criterion_problems(card, context.runs, run)
    problems += _generator_only(card)
    if run is not None:
        raised = any(p.code in RAISED for p in problems)
        problems += deterministic_problems(card, run, None if raised else verdict)
    return EvidenceOutcome(problems, stale=any(p.code == "stale" for p in stale))


def _stale(card: Card, context: EvidenceContext) -> list[Problem]:
    tree = text(obj(card.data.get("target")).get("tree"))
    if tree is None and card.format == "tenpoint":
        return []  # a tenpoint card is bound to its evaluator's run, whose tree is checked there
    if tree is None:
        return [
            Problem(
                path="/target/tree",
                code="target_missing",
                message=(
                    "target.tree is absent, so staleness cannot be checked; copy target from"
                    " evaluate's draft scorecard"
                ),
            )
        ]
    if context.tree is None:
        return [
            Problem(
                path="/target/tree",
                code="stale_unchecked",
                message=(
                    f"the tree {context.ref} points at now is unknown, so staleness was not checked"
                    if context.ref
                    else "the repository's current tree is unknown, so staleness was not checked"
                ),
            )
        ]
    if tree == context.tree:
        return []
    return [
        Problem(
            path="/target/tree",
            code="stale",
            message=(
                f"the scorecard judges tree {tree[:12]}, but {_now_at(context)}"
                f" {context.tree[:12]}; {_again(context)} and score again"
            ),
        )
    ]


def _now_at(context: EvidenceContext) -> str:
    return f"{context.ref} is now at tree" if context.ref else "the repository is now at"


def _again(context: EvidenceContext) -> str:
    return f"evaluate --ref {context.ref} again" if context.ref else "evaluate the current tree"


def _run(runs: list[StoredRun], run_id: str) -> StoredRun | None:
    return next((r for r in runs if r.run_id == run_id), None)


def _ids_of(run: StoredRun) -> set[str]:
    return set(run.evidence) | {e.id for e in run.evaluation.evidence}


def _cited(card: Card) -> Iterator[tuple[tuple[object, ...], str]]:
    data = card.data
    groups: list[tuple[str, int | str, dict[str, Any]]] = [
        ("criteria", i, item) for i, item in entries(data.get("criteria"))
    ]
    groups += [("issues", i, item) for i, item in entries(data.get("issues"))]
    groups += [
        ("dimensions", key, item)
        for key, item in obj(data.get("dimensions")).items()
        if isinstance(item, dict)
    ]
    for group, at, item in groups:
        ids = item.get("evidence_ids")
        for j, ident in enumerate(ids if isinstance(ids, list) else []):
            if isinstance(ident, str):
                yield (group, at, "evidence_ids", j), ident


def _unknown_ids(
    card: Card, runs: list[StoredRun], reference: StoredRun | None, captured: dict[str, set[str]]
) -> list[Problem]:
    problems = []
    for where, ident in _cited(card):
        # "evidence://RUN/E3" and "RUN/E3" name their run; a bare "E3" belongs to the reference run.
        run_id, _, item = ident.removeprefix(_URI).rpartition("/")
        if run_id.startswith(GENERATOR_PREFIX):
            found, scope = (
                item in captured.get(run_id, set()),
                f"captured generator session {run_id}",
            )
        elif run_id:
            named = _run(runs, run_id)
            found, scope = (
                named is not None and item in _ids_of(named),
                f"a recorded evaluation {run_id}",
            )
        elif reference is not None:
            found, scope = item in _ids_of(reference), f"evaluation {reference.run_id}"
        else:
            found, scope = (
                any(item in _ids_of(r) for r in runs),
                f"any evaluation of {card.contract_ref}",
            )
        if not found:
            problems.append(
                Problem(
                    path=path(*where),
                    code="evidence_unknown",
                    message=(
                        f"{item} is not in {scope}; cite ids from evaluate's evidence list (E1,"
                        " E2 …)"
                    ),
                )
            )
    return problems


GENERATOR_PREFIX = "G-"


def _generator_only(card: Card) -> list[Problem]:
    """The generator's own session can support a judgement, never carry a criterion alone."""
    problems = []
    for i, crit in entries(card.data.get("criteria")):
        ids = [e for e in crit.get("evidence_ids") or [] if isinstance(e, str)]
        own = [e for e in ids if e.removeprefix(_URI).startswith(GENERATOR_PREFIX)]
        if crit.get("pass") is True and ids and len(own) == len(ids):
            problems.append(
                Problem(
                    path=path("criteria", i, "evidence_ids"),
                    code="generator_evidence_only",
                    message=(
                        "a pass supported only by the generator's own session evidence (G-…) is the"
                        " player grading itself; cite evidence referee recorded (evaluate) or"
                        " file:line you checked yourself"
                    ),
                )
            )
    return problems


def criterion_problems(
    card: Card, runs: list[StoredRun], reference: StoredRun | None
) -> list[Problem]:
    """Criteria marked passed that referee's recorded check failed, could not run or found flaky
    (and criteria marked failed that it passed).

    Args:
        card: The scorecard.
        runs: The contract's recorded runs (the card's iteration's are used without a reference).
        reference: The run the card is bound to, if any.

    Returns:
        contradicts_evidence, unverified_pass and flaky_pass problems.
    """
    problems = []
    for i, crit in entries(card.data.get("criteria")):
        claimed, ident = crit.get("pass"), text(crit.get("id"))
        if not isinstance(claimed, bool) or not ident:
            continue
        found = _recorded(ident, card, runs, reference)
        if found is not None and found[1].reason_code == ReasonCode.FLAKY:
            if claimed is True:
                problems.append(
                    Problem(
                        path=path("criteria", i, "pass"),
                        code="flaky_pass",
                        message=(
                            f"criterion {ident} ran its tests repeatedly and they disagreed"
                            f" ({found[1].reason}); a flaky result never passes: make the tests"
                            " deterministic and evaluate again, or mark it pass: false"
                        ),
                    )
                )
            continue
        if found is not None and found[1].status == "unscored":
            if claimed is True:
                problems.append(
                    Problem(
                        path=path("criteria", i, "pass"),
                        code="unverified_pass",
                        message=(
                            f"criterion {ident} has a check referee could not run"
                            f" ({found[1].reason}); it cannot pass until the check runs: fix what"
                            " stopped it and evaluate again, or mark it pass: false"
                        ),
                    )
                )
            continue
        if found is not None and found[1].pass_ is not None and found[1].pass_ != claimed:
            problems.append(
                Problem(
                    path=path("criteria", i, "pass"),
                    code="contradicts_evidence",
                    message=_contradiction(ident, claimed, *found),
                )
            )
    return problems


def _recorded(
    ident: str, card: Card, runs: list[StoredRun], reference: StoredRun | None
) -> tuple[StoredRun, CriterionResult] | None:
    # Without a run of its own, a scorecard answers to the latest run of its iteration: an earlier
    # iteration judged other code.
    same_iteration = [r for r in reversed(runs) if r.evaluation.iteration == card.iteration]
    for run in [reference] if reference is not None else same_iteration:
        result = next((c for c in run.evaluation.criteria if c.id == ident), None)
        if result is not None and result.pass_ is not None:
            return run, result
    return None


def _contradiction(ident: str, claimed: bool, run: StoredRun, result: CriterionResult) -> str:
    outcome = "passed" if result.pass_ else "failed"
    cited = "; ".join(_exit_note(run, eid) for eid in result.evidence_ids) or f"run {run.run_id}"
    fix = "mark it pass: false" if claimed else "mark it pass: true"
    return (
        f"criterion {ident} is marked pass: {str(claimed).lower()}, but referee's recorded check"
        f" {outcome} (contradicts {cited}); {fix}, or fix the work and evaluate again"
    )


def _exit_note(run: StoredRun, evidence_id: str) -> str:
    item = run.evidence.get(evidence_id)
    summary = next((e for e in run.evaluation.evidence if e.id == evidence_id), None)
    code = (
        item.exit_code if item is not None else summary.exit_code if summary is not None else None
    )
    return f"{evidence_id}: exit code {code}" if code is not None else evidence_id
