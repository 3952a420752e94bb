"""The calibration log: humans' verdicts on stored scorecards, and how often evaluators agree with
them.

The advice is to tune the evaluator, not the generator, against the cases where its verdict
diverged from a human's; this log is that dataset. Agreement is reported per evaluator prompt
version, because that is what a tuning step changes: raw agreement and Cohen's kappa (agreement
beyond what the two raters' verdict frequencies would give by chance).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from pydantic import Field

from referee.tools.errors import InvalidInput, Problem
from referee.tools.models.common import ACCEPT, BLOCK, REVISE, Model, Verdict
from referee.tools.models.reliability import JudgeReliability
from referee.tools.reliability import HumanPair, Judge, judge_of, reliability
from referee.tools.store import Store, load_scorecard
from referee.tools.store.calibration import CalibrationRow, calibration_rows, insert_calibration
from referee.tools.store.scorecards import StoredScorecard
from referee.tools.text import counted

__all__ = [
    "Agreement",
    "CalibrationRecord",
    "CalibrationReport",
    "VersionAgreement",
    "calibration_report",
    "cohen_kappa",
    "record_human_verdict",
]

_VERDICTS: tuple[Verdict, ...] = (ACCEPT, REVISE, BLOCK)
UNVERSIONED = "(unversioned)"


class HumanVerdictInput(Model):
    """Everything `record_human_verdict` accepts."""

    scorecard_id: int = Field(
        description="The stored scorecard (validate_scorecard's scorecard_id)"
    )
    verdict: Verdict = Field(description="What the human decides")
    note: str = Field(default="", description="Why: what the evaluator missed or over-weighted")


class CalibrationReportInput(Model):
    """Everything `calibration_report` accepts."""

    contract_id: str | None = Field(
        default=None, description="Only this contract's scorecards; default all"
    )


class CalibrationRecord(Model):
    """A human's verdict on a stored scorecard, next to the evaluator's."""

    id: int
    scorecard_id: int
    contract_ref: str
    evaluator: str
    iteration: int
    evaluator_prompt_version: str | None
    evaluator_model: str | None
    evaluator_verdict: Verdict | None = Field(description="The verdict computed from the scorecard")
    human_verdict: Verdict
    agrees: bool | None = Field(description="null when the scorecard has no computed verdict")
    note: str
    created_at: str


class Agreement(Model):
    count: int = Field(description="Scorecards with a human verdict (the latest one per scorecard)")
    agreements: int
    agreement_rate: float = Field(description="agreements / count, 0–1")
    kappa: float | None = Field(description="Cohen's kappa; null when undefined")
    kappa_note: str | None = None


class VersionAgreement(Agreement):
    evaluator_prompt_version: str
    evaluators: dict[str, Agreement] = Field(
        default_factory=dict, description="The same, per evaluator"
    )


class CalibrationReport(Model):
    contract_ref: str | None = Field(
        description="The contract reported on; null for every contract"
    )
    overall: Agreement | None = Field(
        description="Across every prompt version; null when nothing is logged"
    )
    versions: list[VersionAgreement]
    judges: list[JudgeReliability] = Field(
        default_factory=list,
        description="Per evaluator, prompt version and model: canary recall, stability, humans",
    )


def record_human_verdict(
    scorecard_id: int,
    verdict: str,
    note: str,
    *,
    store: Store,
    now: Callable[[], datetime],
) -> CalibrationRecord:
    """Log a human's verdict on a stored scorecard.

    Args:
        scorecard_id: The stored scorecard (validate_scorecard returns its id).
        verdict: ACCEPT, REVISE or BLOCK: what the human would have decided.
        note: Why, in the human's words (what the evaluator missed or over-weighted).
        store: The store.
        now: The clock.

    Returns:
        The logged entry, with the evaluator's verdict and whether the two agree.

    Raises:
        NotFound: No scorecard has that id.
        InvalidInput: The verdict is not ACCEPT, REVISE or BLOCK.
    """
    human = verdict.strip().upper()
    if human not in _VERDICTS:
        raise InvalidInput(
            [
                Problem(
                    path="/verdict",
                    code="not_allowed",
                    message=f"{verdict!r} is not a verdict; use ACCEPT, REVISE or BLOCK",
                )
            ]
        )
    card = load_scorecard(store, scorecard_id)
    created = now().astimezone(UTC).isoformat()
    ident = insert_calibration(
        store, scorecard_id=card.id, verdict=human, note=note, created_at=created
    )
    return _record(ident, card, human, note, created)


def _record(
    ident: int, card: StoredScorecard, human: Verdict, note: str, created: str
) -> CalibrationRecord:
    mine = _evaluator_verdict(card)
    return CalibrationRecord(
        id=ident,
        scorecard_id=card.id,
        contract_ref=card.contract_id,
        evaluator=card.evaluator,
        iteration=card.iteration,
        evaluator_prompt_version=_stated(card, "evaluator_prompt_version"),
        evaluator_model=_stated(card, "evaluator_model"),
        evaluator_verdict=mine,
        human_verdict=human,
        agrees=None if mine is None else mine == human,
        note=note,
        created_at=created,
    )


def _evaluator_verdict(card: StoredScorecard) -> Verdict | None:
    value = card.computed.get("verdict")
    return value if value in _VERDICTS else None


def _stated(card: StoredScorecard, key: str) -> str | None:
    value = card.body.get(key, card.computed.get(key))
    return value if isinstance(value, str) else None


class _Pair(NamedTuple):
    version: str
    evaluator: str
    evaluator_verdict: Verdict
    human_verdict: Verdict
    judge: Judge


DEFAULT_MIN_RECALL = 0.8


def calibration_report(
    store: Store, contract_id: str | None = None, min_recall: float = DEFAULT_MIN_RECALL
) -> CalibrationReport:
    """Report how often evaluators agree with humans, per evaluator prompt version, and each
    judge's reliability (tools/reliability.py).

    When a scorecard was judged more than once, the latest human verdict counts.

    Args:
        store: The store.
        contract_id: Only this contract's scorecards; None for all.
        min_recall: The canary recall below which a judge is flagged.

    Returns:
        Overall agreement, agreement per prompt version with a per-evaluator breakdown, and the
        reliability of every judge with a case.
    """
    pairs = _pairs(calibration_rows(store, contract_id), store)
    versions = sorted({p.version for p in pairs})
    humans = [HumanPair(p.judge, p.evaluator_verdict, p.human_verdict) for p in pairs]
    kappa = {
        j: agreement([p for p in pairs if p.judge == j]).kappa for j in {p.judge for p in pairs}
    }
    return CalibrationReport(
        contract_ref=contract_id,
        overall=agreement(pairs) if pairs else None,
        versions=[_version(v, [p for p in pairs if p.version == v]) for v in versions],
        judges=reliability(store, contract_id, humans, kappa, min_recall),
    )


def _pairs(rows: Sequence[CalibrationRow], store: Store) -> list[_Pair]:
    latest = {row.scorecard_id: row for row in rows}
    pairs = []
    for scorecard_id, row in sorted(latest.items()):
        card = load_scorecard(store, scorecard_id)
        mine = _evaluator_verdict(card)
        if mine is not None and row.verdict in _VERDICTS:
            version = _stated(card, "evaluator_prompt_version") or UNVERSIONED
            judge = judge_of(card.evaluator, card.body, card.computed)
            pairs.append(_Pair(version, card.evaluator, mine, row.verdict, judge))
    return pairs


def _version(version: str, pairs: list[_Pair]) -> VersionAgreement:
    evaluators = sorted({p.evaluator for p in pairs})
    per = {e: agreement([p for p in pairs if p.evaluator == e]) for e in evaluators}
    return VersionAgreement(
        evaluator_prompt_version=version, evaluators=per, **agreement(pairs).model_dump()
    )


def agreement(pairs: Sequence[Any]) -> Agreement:
    """Return raw agreement and Cohen's kappa of (evaluator verdict, human verdict) pairs (at least
    one)."""
    ratings = [(p.evaluator_verdict, p.human_verdict) for p in pairs]
    agreed = sum(1 for a, b in ratings if a == b)
    kappa, note = cohen_kappa(ratings)
    return Agreement(
        count=len(ratings),
        agreements=agreed,
        agreement_rate=round(agreed / len(ratings), 3),
        kappa=kappa,
        kappa_note=note,
    )


def cohen_kappa(ratings: Sequence[tuple[str, str]]) -> tuple[float | None, str | None]:
    """Return Cohen's kappa for two raters, or None with a note when it is undefined.

    kappa = (p_o − p_e) / (1 − p_e), where p_o is the observed agreement and p_e the agreement
    expected from each rater's verdict frequencies. When both raters gave one and the same verdict
    to everything, p_e = 1 and kappa is undefined.

    Args:
        ratings: (evaluator verdict, human verdict) pairs.

    Returns:
        (kappa rounded to 3 decimals, None), or (None, why it is undefined).
    """
    if not ratings:
        return None, "no human verdict is logged"
    n = len(ratings)
    first, second = Counter(a for a, _ in ratings), Counter(b for _, b in ratings)
    observed = sum(1 for a, b in ratings if a == b) / n
    expected = sum(first[c] * second[c] for c in first) / (n * n)
    if expected >= 1.0 - 1e-12:
        only = next(iter(first))
        return (
            None,
            (
                f"kappa is undefined: the evaluator and the human gave {only} to every one of the"
                f" {counted(n, 'scorecard')}, so chance agreement is total; the agreement rate"
                " alone describes them"
            ),
        )
    return round((observed - expected) / (1.0 - expected), 3), None
