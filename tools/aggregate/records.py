"""The scorecards aggregation reads: stored ones (every iteration) and inline ones (one call only).

Both become a `CardRecord`: the scorecard as submitted (`body`) and what validation computed from it
(`computed`: verdict, weighted and normalized scores, dimension scores, scale, versions).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from referee.tools.errors import InvalidInput, Problem, pointer
from referee.tools.models.common import ACCEPT, BLOCK, REVISE, ScorecardFormat, Verdict
from referee.tools.models.contract import Contract
from referee.tools.rubrics import RubricSet
from referee.tools.store import Store, StoredRun, scorecards_for
from referee.tools.store.canaries import real_runs
from referee.tools.validate_scorecard.arithmetic import compute
from referee.tools.validate_scorecard.binding import BindingContext, bind
from referee.tools.validate_scorecard.card import Card, build_card
from referee.tools.validate_scorecard.codes import OVERRIDES, severity
from referee.tools.validate_scorecard.deterministic import RAISED, deterministic_problems
from referee.tools.validate_scorecard.entry import stored_computed, validate_scorecard
from referee.tools.validate_scorecard.evidence import EvidenceContext, criterion_problems

_VERDICTS: tuple[Verdict, ...] = (ACCEPT, REVISE, BLOCK)


class Versions(NamedTuple):
    """What must stay unchanged for scores to be compared across iterations."""

    rubric_version: str | None
    evaluator_prompt_version: str | None
    evaluator_model: str | None


class Scale(NamedTuple):
    """The score range of a scorecard's dimensions."""

    kind: str
    low: float
    high: float

    @property
    def span(self) -> float:
        return self.high - self.low


@dataclass(frozen=True)
class CardRecord:
    """One evaluator's scorecard for one iteration, as aggregation sees it."""

    evaluator: str
    iteration: int
    body: dict[str, Any]
    computed: dict[str, Any]
    scorecard_id: int | None = None
    """None for a scorecard passed inline (validated, used once, never stored)."""
    overrides: tuple[str, ...] = ()
    """Where the card's judge departed from referee's evidence: a changed deterministic score, a
    dismissed harness_modified."""

    @property
    def verdict(self) -> Verdict:
        value = self.computed.get("verdict")
        # A stored scorecard was valid, so it has a verdict;
        # should one lack it, it must not pass as ACCEPT.
        return value if value in _VERDICTS else REVISE

    @property
    def weighted(self) -> float | None:
        return _number(self.computed.get("weighted_score"))

    @property
    def normalized(self) -> float | None:
        return _number(self.computed.get("normalized"))

    @property
    def dimensions(self) -> dict[str, float]:
        dims = self.computed.get("dimensions")
        return (
            {k: float(v) for k, v in dims.items() if _number(v) is not None}
            if isinstance(dims, dict)
            else {}
        )

    @property
    def scale(self) -> Scale:
        kind = str(self.computed.get("scale") or "integer")
        if kind == "tenpoint":
            return Scale(kind, 1.0, 10.0)
        return Scale(
            kind, 0.0, _number(self.computed.get("scale_max")) or (1.0 if kind == "unit" else 3.0)
        )

    @property
    def versions(self) -> Versions:
        rubric = self.body.get("rubric")
        stated = rubric.get("version") if isinstance(rubric, dict) else None
        return Versions(
            _text(stated),
            _text(self.body.get("evaluator_prompt_version")),
            _text(self.body.get("evaluator_model")),
        )

    @property
    def run_id(self) -> str | None:
        return _text(self.body.get("run_id"))


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def stored_records(store: Store, contract_id: str, variant: str = "original") -> list[CardRecord]:
    """Return the contract's active stored scorecards of one variant, oldest iteration first.

    Args:
        store: The store.
        contract_id: The contract.
        variant: "original", or "perturbed" for re-scorings of the anti-gaming copy.

    Returns:
        One record per stored scorecard.
    """
    return verified_records(store, contract_id, variant).records


@dataclass(frozen=True)
class Verified:
    """The stored scorecards that still rest on their runs, and why the others do not count."""

    records: list[CardRecord]
    refused: list[str]


def verified_records(store: Store, contract_id: str, variant: str = "original") -> Verified:
    """Re-verify every stored scorecard against its run before it counts.

    A stored row already verified its MAC when it was read; here the binding is checked again
    (the run exists, is of the card's evaluator, iteration and tree, and the signature holds), and
    so are the rules on what the run decided (no criterion, deterministic score or issue raised
    above it, no antipattern dropped): a scorecard stored before those rules existed, or whose run
    was replaced, never decides anything.
    """
    context = BindingContext(runs=real_runs(store, contract_id), tree=None, key=store.key)
    records, refused = [], []
    for s in scorecards_for(store, contract_id, variant=variant):
        fmt: ScorecardFormat = "tenpoint" if s.format == "tenpoint" else "referee"
        card = Card(data=s.body, format=fmt, contract=None, rubric=None, evaluator=s.evaluator)
        binding = bind(card, context)
        run = binding.run
        decided = [] if run is None else _decided(card, run, s.computed.get("verdict"))
        unbound = [p for p in binding.problems if severity(p.code) == "error"]
        raised = [p for p in decided if severity(p.code) == "error"]
        if unbound or raised or run is None:
            codes = ", ".join(sorted({p.code for p in [*unbound, *raised]}))
            why = (
                "raises what its run decided"
                if run and not unbound
                else "no longer rests on a recorded run"
            )
            refused.append(
                f"scorecard #{s.id} of {s.evaluator} (iteration {s.iteration}) does "
                f"not count: it {why} ({codes})"
            )
            continue
        changed = tuple(p.message for p in decided if severity(p.code) == "warning")
        records.append(CardRecord(s.evaluator, s.iteration, s.body, s.computed, s.id, changed))
    return Verified(records, refused)


def _decided(card: Card, run: StoredRun, verdict: Any) -> list[Problem]:
    """What the card raises above its run: its verdict, as stored, against the run's evidence."""
    stored = verdict if verdict in _VERDICTS else None
    criteria = criterion_problems(card, [run], run)
    if any(p.code in RAISED for p in criteria):
        stored = None  # refused already; the verdict rule would only repeat it
    return [*criteria, *deterministic_problems(card, run, stored)]


def inline_records(
    cards: Sequence[Any],
    *,
    contract: Contract,
    rubrics: RubricSet,
    store: Store,
    iteration: int | None,
    tree: str | None = None,
) -> list[CardRecord]:
    """Validate scorecards passed inline and return them as records (nothing is stored).

    Args:
        cards: The scorecards as parsed JSON.
        contract: The contract they must belong to.
        rubrics: The rubrics available.
        store: The store, for the recorded evaluations the evidence rules check against.
        iteration: The iteration being aggregated, when the caller named one.
        tree: The repository's current tree hash for the staleness rule; None skips it.

    Returns:
        One record per scorecard.

    Raises:
        InvalidInput: Every problem of every scorecard, with pointers under /scorecards/<i>.
    """
    evidence = EvidenceContext(runs=real_runs(store, contract.id), tree=tree, key=store.key)
    validated: list[tuple[int, CardRecord]] = []
    problems: list[Problem] = []
    for index, card in enumerate(cards):
        result = validate_scorecard(card, contract=contract, rubrics=rubrics, evidence=evidence)
        if (
            not result.valid
            or result.evaluator is None
            or result.iteration is None
            or result.format is None
        ):
            problems += [_prefixed(index, p) for p in result.errors]
            continue
        built = build_card(card, result.format, contract, rubrics)
        computed = stored_computed(built, compute(built))
        changed = tuple(w.message for w in result.warnings if w.code in OVERRIDES)
        record = CardRecord(result.evaluator, result.iteration, card, computed, None, changed)
        validated.append((index, record))
    problems += _consistency_problems(validated, iteration)
    if problems:
        raise InvalidInput(problems, summary=_summary(problems))
    return [record for _, record in validated]


def _prefixed(index: int, problem: Problem) -> Problem:
    return problem.model_copy(update={"path": pointer("scorecards", index) + problem.path})


def _consistency_problems(
    validated: list[tuple[int, CardRecord]], iteration: int | None
) -> list[Problem]:
    wanted = (
        iteration if iteration is not None else (validated[0][1].iteration if validated else None)
    )
    problems: list[Problem] = []
    seen: set[str] = set()
    for index, record in validated:
        if record.iteration != wanted:
            problems.append(
                Problem(
                    path=pointer("scorecards", index, "iteration"),
                    code="iteration_mismatch",
                    message=(
                        f"this scorecard is for iteration {record.iteration}, but iteration"
                        f" {wanted} is being aggregated; pass inline only scorecards of the"
                        " iteration you aggregate"
                    ),
                )
            )
        if record.evaluator in seen:
            problems.append(
                Problem(
                    path=pointer("scorecards", index, "evaluator"),
                    code="duplicate_evaluator",
                    message=(
                        f"{record.evaluator} already has a scorecard in this call; pass one "
                        "scorecard per evaluator"
                    ),
                )
            )
        seen.add(record.evaluator)
    return problems


def _summary(problems: list[Problem]) -> str:
    count = len(problems)
    return (
        f"invalid inline scorecards: {count} problem{'s' if count != 1 else ''}; fix them, or"
        " validate and store them with validate_scorecard and aggregate without inline scorecards"
    )
