"""schemas/ is generated from the models; a model change without fresh schemas fails here."""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator

from referee.tools.models.schemas import generate

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"


def test_checked_in_schemas_match_the_models() -> None:
    expected = generate()
    stale = [
        name
        for name, text in expected.items()
        if not (SCHEMAS / name).exists() or (SCHEMAS / name).read_text(encoding="utf-8") != text
    ]
    assert not stale, f"regenerate with `python scripts/generate_schemas.py`: {stale}"


def test_no_schema_file_is_left_without_a_model() -> None:
    on_disk = {p.name for p in SCHEMAS.glob("*.schema.json")}
    assert on_disk == set(generate())


def test_every_schema_is_valid_draft_2020_12_with_an_id() -> None:
    for name, text in generate().items():
        schema = json.loads(text)
        Draft202012Validator.check_schema(schema)
        assert schema["$schema"].endswith("2020-12/schema") and schema["$id"].endswith(
            name.removesuffix(".schema.json")
        )
