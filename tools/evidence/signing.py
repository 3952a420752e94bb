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
    """The facts a signature vouches for: target, criterion verdicts and evidence fingerprints."""
    return {
        "run_id": evaluation.run_id,
        "contract_ref": evaluation.contract_ref,
        "evaluator": evaluation.evaluator,
        "iteration": evaluation.iteration,
        "tree": evaluation.target.tree,
        "commit": evaluation.target.commit,
        "criteria": [[c.id, c.pass_, c.status, c.evidence_ids] for c in evaluation.criteria],
        "evidence": sorted([e.id, e.tool, e.exit_code, e.sha256] for e in evidence),
    }


def sign(key: bytes, evaluation: Evaluation, evidence: list[EvidenceItem]) -> str:
    payload = json.dumps(
        signed_content(evaluation, evidence), sort_keys=True, separators=(",", ":")
    )
    return PREFIX + hmac.new(key, payload.encode("utf-8"), hashlib.sha256).hexdigest()


def verify(
    key: bytes, evaluation: Evaluation, evidence: list[EvidenceItem], signature: str
) -> bool:
    return hmac.compare_digest(sign(key, evaluation, evidence), signature)
