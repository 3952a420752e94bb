"""Recorded runs for tests that store scorecards without running checks: a scorecard must rest on a
run of its contract, evaluator and iteration, signed with the store's key, as evaluate records
it."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from referee.tools.create_contract.files import load_contract_file
from referee.tools.evidence.signing import sign
from referee.tools.models import Contract, Evaluation, EvidenceItem
from referee.tools.store import Store, replace_contract, runs_for, save_run

CORPUS = Path(__file__).resolve().parent / "fixtures" / "scorecards"
TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's empty tree: a tree id like any other


def record_run(
    store: Store, contract: Contract, evaluator: str, iteration: int, tree: str = TREE
) -> dict[str, Any]:
    """Store (or find) a signed run of `evaluator` at `iteration`; returns what binds a card to
    it."""
    for run in runs_for(store, contract.id, iteration):
        if run.evaluation.evaluator == evaluator and run.evaluation.target.tree == tree:
            return _binding(run.evaluation, run.signature)
    doc = copy.deepcopy(json.loads((CORPUS / "run.json").read_text(encoding="utf-8")))
    run_id = f"R-{contract.id}-{evaluator}-{iteration}-{tree[:6]}"
    body = doc["evaluation"]
    body.update(
        run_id=run_id,
        contract_ref=contract.id,
        evaluator=evaluator,
        iteration=iteration,
        criteria=[],
        dimensions={},
        antipatterns=[],
        issues=[],
        findings=[],
        evidence=[],
    )
    body["target"] = {**body["target"], "tree": tree, "commit": None}
    body["draft_scorecard"].update(
        contract_ref=contract.id, evaluator=evaluator, iteration=iteration, run_id=run_id
    )
    evaluation = Evaluation.model_validate(body)
    evidence: list[EvidenceItem] = []
    signature = sign(store.key, evaluation, evidence)
    evaluation.signature = signature
    save_run(store, evaluation, evidence, signature, created_at="2026-03-25T12:00:00+00:00")
    return _binding(evaluation, signature)


def _binding(evaluation: Evaluation, signature: str) -> dict[str, Any]:
    return {
        "run_id": evaluation.run_id,
        "signature": signature,
        "target": {"tree": evaluation.target.tree, "commit": evaluation.target.commit},
    }


def bound(store: Store, contract: Contract, scorecard: dict[str, Any]) -> dict[str, Any]:
    """The scorecard bound to a recorded run of its evaluator and iteration (made if needed)."""
    if "run_id" in scorecard:
        return scorecard
    tree = (scorecard.get("target") or {}).get("tree") or TREE
    evaluator = scorecard.get("evaluator") or contract.evaluators[0]
    return {**scorecard, **record_run(store, contract, evaluator, scorecard["iteration"], tree)}


def corpus_contract(store: Store, repo: Path) -> Contract:
    """Store the corpus contract (contract.yaml) as the contract of `repo`."""
    stored = load_contract_file(CORPUS / "contract.yaml").model_copy(update={"repo": str(repo)})
    replace_contract(store, stored)
    return stored


def corpus_run(store: Store, tree: str, patch: dict[str, Any] | None = None) -> tuple[str, str]:
    """Store the corpus run (run.json) as a signed evaluation of `tree`, its fields replaced by
    `patch`; (run_id, signature)."""
    doc = json.loads((CORPUS / "run.json").read_text(encoding="utf-8"))
    patch_evaluation(doc["evaluation"], patch or {})
    doc["evaluation"]["target"]["tree"] = tree
    evaluation = Evaluation.model_validate(doc["evaluation"])
    evidence = [EvidenceItem.model_validate(e) for e in doc["evidence"]]
    if not any(r.run_id == evaluation.run_id for r in runs_for(store, evaluation.contract_ref)):
        signature = sign(store.key, evaluation, evidence)
        evaluation.signature = signature
        save_run(store, evaluation, evidence, signature, "2026-03-25T12:05:00+00:00")
    return evaluation.run_id, sign(store.key, evaluation, evidence)


def patch_evaluation(evaluation: dict[str, Any], patch: dict[str, Any]) -> None:
    """Replace fields of a recorded evaluation; the draft scorecard's one by one."""
    draft = {**evaluation["draft_scorecard"], **patch.get("draft_scorecard", {})}
    evaluation.update(patch, draft_scorecard=draft)


def corpus_accepted(store: Store, tree: str) -> dict[str, Any]:
    """The corpus's complete scorecard, resting on the corpus run of `tree` and agreeing with it."""
    run_id, signature = corpus_run(store, tree)
    card = json.loads((CORPUS / "cases" / "referee-valid-accept.json").read_text("utf-8"))
    card = card["scorecard"]
    card.update(run_id=run_id, signature=signature, target={"tree": tree, "commit": None})
    card["criteria"] = [
        {"id": "AC-F-001", "pass": True, "evidence": "E1: 3 passed", "evidence_ids": ["E1"]},
        {"id": "AC-F-002", "pass": False, "evidence": "E2: exit code 1", "evidence_ids": ["E2"]},
    ]
    card.pop("verdict", None)
    card.pop("weighted_score", None)
    return dict(card)


def judged(draft: dict[str, Any]) -> dict[str, Any]:
    """A judge's completion of the draft: every dimension still open scored 3."""
    card = {k: v for k, v in draft.items() if v is not None}
    for dim in card["dimensions"].values():
        if dim.get("score") is None:
            dim["score"] = 3
        dim["evidence"] = dim.get("evidence") or "read the diff"
    card.pop("verdict", None)
    card.pop("weighted_score", None)
    card["provider"] = "test-judge"
    return card
