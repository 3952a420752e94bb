"""Signed evaluations: an HMAC over what a run established, with a key kept outside the store.

A scorecard carries its evaluation's run id and signature; validation recomputes the HMAC from
the stored run, so a hand-made scorecard (or an edited database row) is told apart from a real run.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from referee.tools.models.evaluation import Evaluation
from referee.tools.models.evidence import EvidenceItem

PREFIX = "hmac-sha256:"


def signed_content(evaluation: Evaluation, evidence: list[EvidenceItem]) -> dict[str, Any]:
    """The facts a signature vouches for: the whole of what referee decided in the run.

    Contract, evaluator, iteration, tree and commit; each criterion's verdict; the antipatterns it
    detected and what the checks wrote; the dimension scores it derived; digests of its issues and
    findings; the sandbox; and a fingerprint of every evidence item. A scorecard can only rest on
    the run as referee recorded it: change any of these and the signature no longer matches.
    """
    return {
        "run_id": evaluation.run_id,
        "contract_ref": evaluation.contract_ref,
        "evaluator": evaluation.evaluator,
        "iteration": evaluation.iteration,
        "tree": evaluation.target.tree,
        "commit": evaluation.target.commit,
        "sandbox": evaluation.sandbox,
        "criteria": [[c.id, c.pass_, c.status, c.evidence_ids] for c in evaluation.criteria],
        "antipatterns": sorted([a.id, a.location or ""] for a in evaluation.antipatterns),
        "tree_changed": _tree_changed(evaluation),
        "dimensions": sorted([k, d.score, d.source] for k, d in evaluation.dimensions.items()),
        "issues": _digest([i.model_dump(mode="json") for i in evaluation.issues]),
        "findings": _digest([f.model_dump(mode="json") for f in evaluation.findings]),
        "evidence": sorted([e.id, e.tool, e.exit_code, e.sha256] for e in evidence),
    }


def _tree_changed(evaluation: Evaluation) -> list[Any]:
    changed = evaluation.tree_changed
    # Hold-out writes are signed too, appended only when there are some: runs recorded before
    # they were kept apart still verify.
    hidden = [changed.holdout_paths] if changed.holdout_paths else []
    return [changed.changed, changed.paths, *hidden]


def _digest(items: list[Any]) -> str:
    text = json.dumps(items, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sign(key: bytes, evaluation: Evaluation, evidence: list[EvidenceItem]) -> str:
    payload = json.dumps(
        signed_content(evaluation, evidence), sort_keys=True, separators=(",", ":")
    )
    return PREFIX + hmac.new(key, payload.encode("utf-8"), hashlib.sha256).hexdigest()


def verify(
    key: bytes, evaluation: Evaluation, evidence: list[EvidenceItem], signature: str
) -> bool:
    return hmac.compare_digest(sign(key, evaluation, evidence), signature)
