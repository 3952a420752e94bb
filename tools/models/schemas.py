"""Generate schemas/*.schema.json from the pydantic models (the models are the source of truth)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from referee.tools.models.aggregate import AggregateInput, AggregateResult
from referee.tools.models.contract import (
    Contract,
    CreateContractInput,
    CreateContractResult,
    GetContractInput,
)
from referee.tools.models.evaluation import EvaluateInput, Evaluation
from referee.tools.models.evidence import EvidenceItem
from referee.tools.models.holdouts import AddHoldoutFilesResult
from referee.tools.models.reliability import JudgeReliability
from referee.tools.models.rubric import Rubric
from referee.tools.models.scorecard import DraftScorecard, Scorecard, TenpointScorecard
from referee.tools.models.strategy import StrategicAssessment
from referee.tools.models.validation import ValidateScorecardInput, ValidationResult

DRAFT = "https://json-schema.org/draft/2020-12/schema"

MODELS: dict[str, type[BaseModel]] = {
    "contract": Contract,
    "create-contract-input": CreateContractInput,
    "create-contract-result": CreateContractResult,
    "rubric": Rubric,
    "evidence": EvidenceItem,
    "scorecard": Scorecard,
    "tenpoint-scorecard": TenpointScorecard,
    "draft-scorecard": DraftScorecard,
    "evaluation": Evaluation,
    "strategic-assessment": StrategicAssessment,
    "aggregate": AggregateResult,
    "validation-result": ValidationResult,
    "add-holdout-files-result": AddHoldoutFilesResult,
    "judge-reliability": JudgeReliability,
    # The tools' inputs: the CLI builds its options from these (server/cli/options.py).
    "evaluate-input": EvaluateInput,
    "aggregate-input": AggregateInput,
    "validate-scorecard-input": ValidateScorecardInput,
    "get-contract-input": GetContractInput,
}


def schema_for(name: str, model: type[BaseModel]) -> dict[str, Any]:
    body = model.model_json_schema(by_alias=True, mode="validation")
    return {"$schema": DRAFT, "$id": f"urn:referee:schema:{name}", **body}


def generate() -> dict[str, str]:
    """File name -> file text for every schema."""
    return {
        f"{name}.schema.json": (
            json.dumps(schema_for(name, model), indent=2, ensure_ascii=False, sort_keys=False)
            + "\n"
        )
        for name, model in MODELS.items()
    }


def write(folder: Path) -> list[Path]:
    written = []
    for filename, text in generate().items():
        path = folder / filename
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
