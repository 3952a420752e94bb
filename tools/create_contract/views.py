"""The two views of a contract: the evaluator's (everything) and the generator's (no hold-outs)."""

from __future__ import annotations

from typing import Any, Literal

from referee.tools.models.contract import Contract

__all__ = ["View", "contract_document", "generator_view"]

View = Literal["generator", "evaluator"]


def contract_document(contract: Contract) -> dict[str, Any]:
    return contract.model_dump(mode="json", by_alias=True)


def generator_view(contract: Contract) -> dict[str, Any]:
    """The contract without hold-out criteria and without the `holdout` key itself."""
    doc = contract_document(contract)
    for group in ("functional", "quality"):
        doc["acceptance_criteria"][group] = [
            {k: v for k, v in c.items() if k != "holdout"}
            for c in doc["acceptance_criteria"][group]
            if not c.get("holdout")
        ]
    doc["evaluators"] = _visible_evaluators(contract)
    return doc


def _visible_evaluators(contract: Contract) -> list[str]:
    # An evaluator whose only criteria are hold-outs would betray that hidden criteria exist.
    visible = {c.evaluator for c in contract.all_criteria() if not c.holdout}
    hidden_only = {c.evaluator for c in contract.all_criteria() if c.holdout} - visible
    return [e for e in contract.evaluators if e not in hidden_only]
