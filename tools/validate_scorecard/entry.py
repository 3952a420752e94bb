"""validate_scorecard: check a scorecard against the schema, its contract and referee's evidence.

Every problem is reported at once, never first-failure, each as a Problem with a JSON pointer into
the scorecard, a stable code (tools/scorecard_codes.py, the README) and a sentence
saying what to fix. An invalid scorecard is a verdict (`valid: false`), not an exception.

The rules live in small modules: scorecard_schema (JSON Schema), scorecard_rules (contract),
scorecard_arithmetic (weighted score and verdict), scorecard_evidence (recorded runs).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from referee.tools.errors import Problem
from referee.tools.models.contract import Contract
from referee.tools.models.validation import Computed, ValidationResult
from referee.tools.rubrics import RubricSet
from referee.tools.validate_scorecard.arithmetic import Arithmetic, arithmetic_problems, compute
from referee.tools.validate_scorecard.card import Card, FormatChoice, build_card, detect_format, obj
from referee.tools.validate_scorecard.codes import CODES, severity
from referee.tools.validate_scorecard.evidence import EvidenceContext, evidence_problems
from referee.tools.validate_scorecard.rules import (
    REFEREE_ANTIPATTERNS,
    card_problems,
    contract_problems,
)
from referee.tools.validate_scorecard.schema import describe, schema_problems
from referee.tools.validate_scorecard.strict_json import object_problems

if TYPE_CHECKING:
    from referee.tools.store import Store

__all__ = [
    "CODES",
    "REFEREE_ANTIPATTERNS",
    "EvidenceContext",
    "detect_format",
    "stored_computed",
    "unreadable",
    "validate_and_store",
    "validate_scorecard",
]

_NOTHING = Computed(weighted_score=None, normalized=None, verdict=None)


def validate_scorecard(
    scorecard: Any,
    *,
    contract: Contract | None,
    rubrics: RubricSet,
    format: FormatChoice = "auto",
    evidence: EvidenceContext | None = None,
    require_evidence: bool = False,
) -> ValidationResult:
    """Validate one scorecard without storing anything.

    Args:
        scorecard: The scorecard as parsed JSON (anything; a non-object is reported, not raised).
        contract: The contract to check against (evaluator view); None skips the contract rules
            with a `contract_unchecked` warning.
        rubrics: The rubrics available (the caller loads them once).
        format: "referee" (canonical), "tenpoint", or "auto" to tell them apart.
        evidence: Recorded runs, current tree and signing key; None skips the evidence rules with
            an `evidence_unchecked` warning.
        require_evidence: Make skipped evidence rules an error instead of a warning.

    Returns:
        The verdict: valid, every error and warning, and the computed scores and verdict.
    """
    return _check(scorecard, contract, rubrics, format, evidence, require_evidence).result


class _Checked(NamedTuple):
    result: ValidationResult
    card: Card | None = None
    arithmetic: Arithmetic | None = None


def _check(
    scorecard: Any,
    contract: Contract | None,
    rubrics: RubricSet,
    format: FormatChoice,
    evidence: EvidenceContext | None,
    require_evidence: bool,
) -> _Checked:
    # Whoever parsed the scorecard (the MCP SDK reads NaN and 1e999), nothing non-finite or
    # nested without bound reaches the rules.
    unusable = object_problems(scorecard)
    if any(p.code == "too_deep" for p in unusable):
        return _Checked(_result(None, unusable, require_evidence))
    if not isinstance(scorecard, dict):
        message = (
            f"a scorecard is a JSON object, not {describe(scorecard)}; send one scorecard object"
        )
        return _Checked(
            _result(
                None,
                [*unusable, Problem(path="", code="not_an_object", message=message)],
                require_evidence,
            )
        )
    fmt = detect_format(scorecard) if format == "auto" else format
    if fmt is None:
        message = (
            "cannot tell the format: a canonical scorecard has contract_ref and dimensions, a"
            " tenpoint scorecard has task_id and domains; add them or pass the format"
        )
        return _Checked(
            _result(
                None, [Problem(path="", code="format_unknown", message=message)], require_evidence
            )
        )
    card = build_card(scorecard, fmt, contract, rubrics)
    arithmetic = compute(card)
    outcome = evidence_problems(card, evidence, arithmetic.computed.verdict)
    problems = [
        *unusable,
        *schema_problems(fmt, scorecard),
        *card.problems,
        *card_problems(card),
        *contract_problems(card),
        *arithmetic_problems(card, arithmetic),
        *outcome.problems,
    ]
    result = _result(card, problems, require_evidence, arithmetic.computed, stale=outcome.stale)
    return _Checked(result, card, arithmetic)


def unreadable(problems: Sequence[Problem]) -> ValidationResult:
    """The result of a scorecard whose JSON text could not be read strictly (strict_json).

    Args:
        problems: The problems parse_json reported.

    Returns:
        An invalid result listing them.
    """
    return _result(None, problems, require_evidence=False)


def _result(
    card: Card | None,
    problems: Sequence[Problem],
    require_evidence: bool,
    computed: Computed = _NOTHING,
    stale: bool = False,
) -> ValidationResult:
    unique = list(dict.fromkeys(problems))
    errors = sorted(
        (p for p in unique if severity(p.code, require_evidence=require_evidence) == "error"),
        key=lambda p: p.path,
    )
    warnings = [
        p for p in unique if severity(p.code, require_evidence=require_evidence) == "warning"
    ]
    return ValidationResult(
        valid=not errors,
        format=card.format if card else None,
        errors=errors,
        warnings=warnings,
        computed=computed,
        contract_ref=card.contract_ref if card else None,
        evaluator=card.evaluator if card else None,
        iteration=card.iteration if card else None,
        stale=stale,
    )


def validate_and_store(
    scorecard: Any,
    *,
    contract: Contract | None,
    rubrics: RubricSet,
    format: FormatChoice = "auto",
    evidence: EvidenceContext | None,
    store: Store | None,
    store_result: bool,
    now: Callable[[], datetime],
    require_evidence: bool = False,
    variant: Literal["original", "perturbed"] = "original",
) -> ValidationResult:
    """Validate a scorecard and record a valid one as its evaluator's verdict for the iteration.

    Resubmitting for the same contract, evaluator and iteration replaces the earlier scorecard
    (kept in history): the result says `replaced: true` with a `replaced_scorecard` warning.

    Args:
        scorecard: The scorecard as parsed JSON.
        contract: The contract to check against; a scorecard is only stored against one.
        rubrics: The rubrics available.
        format: "referee", "tenpoint" or "auto".
        evidence: Recorded runs, current tree and signing key, or None.
        store: Where to record the scorecard; None records nothing (`not_stored` warning).
        store_result: Record a valid scorecard at all.
        now: The clock (stored_at).
        require_evidence: Make skipped evidence rules an error.
        variant: "perturbed" records the re-scoring of an anti-gaming copy (depth deep), kept apart
            from the evaluator's verdict and used for the gaming indicator.

    Returns:
        The validation result, with stored / replaced / scorecard_id set when it was recorded.
    """
    checked = _check(scorecard, contract, rubrics, format, evidence, require_evidence)
    result = checked.result
    if not (result.valid and store_result):
        return result
    if store is None or contract is None or checked.card is None or checked.arithmetic is None:
        message = (
            "the scorecard is valid but was not recorded: no store or stored contract is at hand,"
            " so it is not yet its evaluator's verdict"
        )
        return _warn(result, Problem(path="", code="not_stored", message=message))
    return _store(checked.card, checked.arithmetic, result, store, now, variant)


def _store(
    card: Card,
    arithmetic: Arithmetic,
    result: ValidationResult,
    store: Store,
    now: Callable[[], datetime],
    variant: str = "original",
) -> ValidationResult:
    # The store's modules load only when a card is stored (`referee validate --contract FILE`
    # opens none, and starts faster without them).
    from referee.tools.store import save_scorecard
    from referee.tools.validate_scorecard.canary import canary_for_card, record_catch

    contract = card.contract
    # A valid scorecard checked against a contract has a known evaluator and iteration.
    assert contract is not None and result.evaluator is not None and result.iteration is not None
    canary = canary_for_card(store, card.data)
    computed = stored_computed(card, arithmetic)
    ident, replaced = save_scorecard(
        store,
        contract_id=contract.id,
        evaluator=result.evaluator,
        iteration=result.iteration,
        format=card.format,
        body=card.data,
        computed=computed,
        run_id=card.data.get("run_id") if isinstance(card.data.get("run_id"), str) else None,
        stored_at=now().astimezone(UTC).isoformat(),
        # A canary's card is kept apart (never a verdict, a decision or history), and replaces
        # only an earlier card for the same run, as a resubmission does.
        variant=f"canary:{canary.run_id}" if canary else variant,
    )
    if canary:
        record_catch(store, canary, card.data, {**computed, "evaluator": result.evaluator}, ident)
    stored = result.model_copy(
        update={"stored": True, "replaced": replaced, "scorecard_id": str(ident)}
    )
    if not replaced:
        return stored
    message = (
        f"replaced {result.evaluator}'s earlier scorecard for iteration {result.iteration} of"
        f" {contract.id}; the earlier one is kept in history"
    )
    return _warn(stored, Problem(path="", code="replaced_scorecard", message=message))


def _warn(result: ValidationResult, problem: Problem) -> ValidationResult:
    return result.model_copy(update={"warnings": [*result.warnings, problem]})


def stored_computed(card: Card, arithmetic: Arithmetic) -> dict[str, Any]:
    """Return what is stored next to a scorecard for aggregation.

    Args:
        card: The validated scorecard.
        arithmetic: Its computed arithmetic.

    Returns:
        weighted_score, normalized, verdict, the dimension scores by key (tenpoint:
        "domain.dimension"), the scale and its maximum, and what the comparability guard needs.
    """
    rubric, data = card.rubric, card.data
    stated = obj(data.get("rubric"))
    recorded = card.contract.rubric_version if card.contract else None
    return {
        **arithmetic.computed.model_dump(mode="json"),
        "dimensions": arithmetic.dimensions,
        "scale": card.scale,
        "scale_max": 10 if card.format == "tenpoint" else (rubric.scale.max if rubric else 3),
        "rubric_ref": rubric.name if rubric else None,
        "rubric_version": stated.get("version") or recorded,
        "evaluator_prompt_version": data.get("evaluator_prompt_version"),
        "evaluator_model": data.get("evaluator_model"),
        "iteration": card.iteration,
    }
