"""A valid card for a canary's run: stored apart (variant `canary`, never a verdict) and scored
against the planted defect (tools/canary/judge.py).

The result the judge gets back is the one any valid card gets: whether it caught the defect is
recorded for the reliability report only.
"""

from __future__ import annotations

from typing import Any

from referee.tools.canary import PlantedDefect, judge_card
from referee.tools.errors import NotFound
from referee.tools.store import Store, load_run, scorecards_for
from referee.tools.store.canaries import StoredCanary, canary_of_run, record_outcome

__all__ = ["canary_for_card", "record_catch"]


def canary_for_card(store: Store, data: dict[str, Any]) -> StoredCanary | None:
    """The canary whose run the card names, if it names one."""
    run_id = data.get("run_id")
    return canary_of_run(store, run_id) if isinstance(run_id, str) else None


def record_catch(
    store: Store,
    canary: StoredCanary,
    data: dict[str, Any],
    computed: dict[str, Any],
    scorecard_id: int,
) -> None:
    """Record whether the card caught the canary's defect."""
    d = canary.defect
    defect = PlantedDefect(str(d["kind"]), str(d["path"]), int(d["line"]), str(d["dimension"]))
    draft, draft_before = _draft(store, canary.run_id), _draft(store, canary.source_run_id)
    outcome = judge_card(
        defect,
        data,
        computed,
        _reference(store, canary),
        _passed_before(store, canary),
        draft,
        draft_before,
    )
    judged = {
        **outcome.as_dict(),
        "evaluator": computed.get("evaluator") or canary.evaluator,
        "evaluator_prompt_version": computed.get("evaluator_prompt_version"),
        "evaluator_model": computed.get("evaluator_model"),
        "verdict": computed.get("verdict"),
    }
    record_outcome(store, canary.run_id, scorecard_id, judged)


def _reference(store: Store, canary: StoredCanary) -> dict[str, Any] | None:
    """The judge's own card for the iteration the canary copies: the scores it lowers from."""
    own = [
        s
        for s in scorecards_for(store, canary.contract_id, canary.iteration)
        if canary.evaluator in (None, s.evaluator)
    ]
    return own[-1].computed if own else None


def _draft(store: Store, run_id: str) -> dict[str, Any]:
    try:
        return load_run(store, run_id).evaluation.draft_scorecard.model_dump(
            mode="json", by_alias=True
        )
    except NotFound:
        return {}


def _passed_before(store: Store, canary: StoredCanary) -> list[str]:
    try:
        run = load_run(store, canary.source_run_id)
    except NotFound:
        return []
    return [c.id for c in run.evaluation.criteria if c.pass_ is True]
