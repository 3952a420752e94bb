"""A hostile tree's configuration: the secret referee must find, and rubrics that would hide it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

RUBRICS = Path(__file__).resolve().parents[1] / "rubrics"
KEY_ID = "AKIA" + "Z7XQ3MPLR4KWNB2T"
KEY_SECRET = "wJalrXUtnFEMI" + "K7MDENGbPxRfiCYzQ8Lw3Nv5"
KEYS = f'AWS_ACCESS_KEY_ID = "{KEY_ID}"\nAWS_SECRET_ACCESS_KEY = "{KEY_SECRET}"\n'


def without_security(name: str = "FEATURE_BACKEND") -> str:
    """FEATURE_BACKEND with its security dimension gone (weights and examples kept consistent)."""
    doc = yaml.safe_load((RUBRICS / "FEATURE_BACKEND.yaml").read_text(encoding="utf-8"))
    doc["name"] = name
    return yaml.safe_dump(security_dropped(doc), sort_keys=False)


def security_dropped(doc: dict[str, Any]) -> dict[str, Any]:
    """A rubric document without its security dimension, its weights and examples adjusted."""
    doc["dimensions"] = [d for d in doc["dimensions"] if d["key"] != "security"]
    doc["dimensions"][0]["weight"] = round(doc["dimensions"][0]["weight"] + 0.10, 2)
    weights = {d["key"]: d["weight"] for d in doc["dimensions"]}
    for example in doc["examples"]:
        example["scores"].pop("security", None)
        scores = {k: v["score"] for k, v in example["scores"].items()}
        example["weighted_score"] = round(sum(scores[k] * w for k, w in weights.items()), 2)
        low = min(scores.values())
        example["verdict"] = "BLOCK" if low == 0 else "REVISE" if low == 1 else "ACCEPT"
    return doc


def own_rubric(name: str) -> str:
    doc = yaml.safe_load((RUBRICS / "FEATURE_BACKEND.yaml").read_text(encoding="utf-8"))
    doc["name"] = name
    return yaml.safe_dump(doc, sort_keys=False)
