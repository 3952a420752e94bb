"""Scorecards for aggregation tests: a two-evaluator contract and canonical cards stored through
validation."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from projects import contract_for
from runs import bound

from referee.tools.models import Contract
from referee.tools.rubrics import load_rubrics
from referee.tools.store import Store, runs_for, save_scorecard
from referee.tools.validate_scorecard import EvidenceContext
from referee.tools.validate_scorecard.arithmetic import compute
from referee.tools.validate_scorecard.card import build_card
from referee.tools.validate_scorecard.entry import (
    stored_computed,
    validate_and_store,
    validate_scorecard,
)

RUBRICS = load_rubrics(None)
FIXED = datetime(2026, 3, 25, 12, 0, tzinfo=UTC)
DIMENSIONS = (
    "correctness",
    "design_quality",
    "functionality",
    "craft",
    "security",
)  # FEATURE_BACKEND


def clock() -> datetime:
    return FIXED


def two_evaluator_contract(
    store: Store, repo: Path, max_iterations: int = 3, holdout: bool = True
) -> Contract:
    """judge owns AC-F-001 (and the hold-out AC-F-002), radar owns AC-Q-001."""
    criteria: list[dict[str, Any]] = [
        {
            "criterion": "Login answers 200 with a session cookie",
            "verification_method": "manual",
            "evaluator": "judge",
        },
    ]
    if holdout:
        criteria.append(
            {
                "criterion": "Five failed logins lock the account",
                "verification_method": "manual",
                "evaluator": "judge",
                "holdout": True,
            }
        )
    quality = [
        {
            "criterion": "No function is longer than 50 lines",
            "verification_method": "manual",
            "evaluator": "radar",
            "threshold": "0 findings",
        }
    ]
    return contract_for(
        store,
        repo,
        *criteria,
        quality=quality,
        evaluators=["judge", "radar"],
        max_iterations=max_iterations,
    )


def card(
    contract: Contract,
    evaluator: str,
    iteration: int,
    scores: int | dict[str, int] = 2,
    *,
    issues: list[dict[str, Any]] | None = None,
    failed: tuple[str, ...] = (),
    model: str = "model-a",
    prompt: str | None = None,
    rubric_version: str | None = None,
    spec_defect: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A valid canonical scorecard; `scores` is one score for every dimension or a few overrides of
    2."""
    values = (
        {k: scores for k in DIMENSIONS}
        if isinstance(scores, int)
        else {k: scores.get(k, 2) for k in DIMENSIONS}
    )
    return {
        "contract_ref": contract.id,
        "evaluator": evaluator,
        "provider": "anthropic",
        "evaluator_model": model,
        "iteration": iteration,
        "rubric": {
            "ref": contract.rubric_ref,
            "version": rubric_version or contract.rubric_version,
        },
        "evaluator_prompt_version": prompt or contract.evaluator_prompt_version,
        "dimensions": {
            k: {
                "score": v,
                "evidence": f"{k} seen in app/login.py",
                "recommendation": "",
                "evidence_ids": [],
            }
            for k, v in values.items()
        },
        "criteria": [
            {"id": c.id, "pass": c.id not in failed, "evidence": "checked by hand"}
            for c in contract.criteria_for(evaluator)
        ],
        "issues": issues or [],
        "antipatterns_detected": [],
        "spec_defect": {"detected": True, "reason": spec_defect} if spec_defect else None,
        "summary": f"{evaluator} at iteration {iteration}",
        "guidance": "Address the issues listed.",
        "dispatch_count": 1,
        **extra,
    }


def issue(
    severity: str, description: str, location: str | None = None, suggestion: str | None = None
) -> dict[str, Any]:
    return {
        "severity": severity,
        "description": description,
        "location": location,
        "suggestion": suggestion,
    }


def store_card(store: Store, contract: Contract, scorecard: dict[str, Any]) -> int:
    """Validate and store a scorecard as its evaluator's verdict, bound to a recorded run of its
    evaluator and iteration (made when the card names none); returns the scorecard id."""
    scorecard = bound(store, contract, scorecard)
    context = EvidenceContext(runs=runs_for(store, contract.id), tree=None, key=store.key)
    result = validate_and_store(
        scorecard,
        contract=contract,
        rubrics=RUBRICS,
        evidence=context,
        store=store,
        store_result=True,
        now=clock,
    )
    assert result.valid and result.stored, result.errors
    return int(result.scorecard_id or 0)


def store_perturbed(store: Store, contract: Contract, scorecard: dict[str, Any]) -> int:
    """Store a re-scoring of the anti-gaming copy (variant "perturbed") for the same evaluator and
    iteration."""
    scorecard = bound(store, contract, scorecard)
    result = validate_scorecard(scorecard, contract=contract, rubrics=RUBRICS)
    assert result.valid and result.format is not None, result.errors
    built = build_card(scorecard, result.format, contract, RUBRICS)
    ident, _ = save_scorecard(
        store,
        contract_id=contract.id,
        evaluator=scorecard["evaluator"],
        iteration=scorecard["iteration"],
        format=result.format,
        body=scorecard,
        computed=stored_computed(built, compute(built)),
        run_id=scorecard["run_id"],
        stored_at=FIXED.isoformat(),
        variant="perturbed",
    )
    return ident
