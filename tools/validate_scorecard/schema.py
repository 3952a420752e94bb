"""JSON Schema validation of scorecards: every schema error as a Problem with a pointer and a code.

The packaged schemas (generated from the models) are compiled once per process. jsonschema needs
about 1.5 ms for a typical scorecard; pydantic, from whose models the schemas are generated,
answers "valid" in about 20 µs. So a scorecard the models accept in strict mode skips jsonschema,
which runs only to list the problems of a scorecard they reject (tests/tools check that the fast
path never accepts what the schema rejects).
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from collections.abc import Callable, Iterator
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError as SchemaError
from pydantic import BaseModel, ValidationError

from referee.tools.errors import Problem, pointer
from referee.tools.models.common import ScorecardFormat
from referee.tools.models.scorecard import Scorecard, TenpointScorecard

SCHEMA_FILES: dict[ScorecardFormat, str] = {
    "referee": "scorecard.schema.json",
    "tenpoint": "tenpoint-scorecard.schema.json",
}
_MODELS: dict[ScorecardFormat, type[BaseModel]] = {
    "referee": Scorecard,
    "tenpoint": TenpointScorecard,
}
_FORMAT_NAMES = {"referee": "canonical", "tenpoint": "tenpoint"}

_VALIDATOR_CODES = {
    "required": "required",
    "type": "type",
    "minimum": "out_of_range",
    "maximum": "out_of_range",
    "exclusiveMinimum": "out_of_range",
    "exclusiveMaximum": "out_of_range",
    "enum": "not_allowed",
    "const": "not_allowed",
    "additionalProperties": "unknown_field",
    "minLength": "empty",
}
_EVIDENCE_FIELDS = {"evidence", "comment"}
_JSON_TYPES = (
    (bool, "a boolean"),
    (int, "an integer"),
    (float, "a number"),
    (str, "a string"),
    (list, "an array"),
    (dict, "an object"),
    (type(None), "null"),
)


@functools.cache
def schema_validator(fmt: ScorecardFormat) -> Draft202012Validator:
    """Return the compiled validator of a format's packaged schema (built once per process).

    Args:
        fmt: "referee" (canonical) or "tenpoint".

    Returns:
        A Draft 2020-12 validator.
    """
    resource = importlib.resources.files("referee.schemas") / SCHEMA_FILES[fmt]
    schema = json.loads(resource.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def schema_problems(fmt: ScorecardFormat, data: dict[str, Any]) -> list[Problem]:
    """Return every JSON Schema problem of a scorecard (none when it is valid).

    Args:
        fmt: The scorecard's format.
        data: The scorecard as a JSON object.

    Returns:
        Problems with JSON pointers and stable codes, duplicates removed.
    """
    if models_accept(fmt, data):
        return []
    found = [
        p
        for error in schema_validator(fmt).iter_errors(data)
        for leaf in _leaves(error)
        for p in _problems(fmt, leaf)
    ]
    return list(dict.fromkeys(found))


def models_accept(fmt: ScorecardFormat, data: dict[str, Any]) -> bool:
    """Return True when the format's model accepts the data as strictly as its JSON Schema would.

    Args:
        fmt: The scorecard's format.
        data: The scorecard as a JSON object.

    Returns:
        Whether the fast path may skip jsonschema.
    """
    try:
        _MODELS[fmt].model_validate(data, strict=True, by_alias=True, by_name=False)
    except ValidationError:
        return False
    # pydantic compares literals with ==, so it takes
    # `true` for the const 1 and `1` for the const true.
    defect = data.get("spec_defect")
    return type(data.get("dispatch_count")) is int and (
        not isinstance(defect, dict) or defect.get("detected") is True
    )


def _leaves(error: SchemaError) -> Iterator[SchemaError]:
    # A nullable field fails as `anyOf [X, null]`; the useful errors are those of X.
    if error.validator in ("anyOf", "oneOf") and error.context:
        branches = [
            e for e in error.context if not (e.validator == "type" and e.validator_value == "null")
        ]
        if branches:
            for branch in branches:
                yield from _leaves(branch)
            return
    yield error


def _problems(fmt: ScorecardFormat, error: SchemaError) -> list[Problem]:
    where = tuple(error.absolute_path)
    if error.validator == "required":
        required = error.validator_value if isinstance(error.validator_value, list) else []
        missing = [
            name
            for name in required
            if isinstance(error.instance, dict) and name not in error.instance
        ]
        return [
            _problem(fmt, (*where, name), _by_place((*where, name), "required"), error)
            for name in missing
        ]
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        return [
            _problem(fmt, (*where, key), _by_place((*where, key), "unknown_field"), error)
            for key in error.instance
            if key not in known
        ]
    return [_problem(fmt, where, _by_place(where, _code(error, where)), error)]


def _by_place(where: tuple[Any, ...], code: str) -> str:
    # Two fields have a rule of their own whatever the keyword that failed: the format names them.
    if where[:1] == ("spec_defect",):
        return "spec_defect_shape"
    if where == ("dispatch_count",) and code != "required":
        return "dispatch_count"
    return code


def _code(error: SchemaError, where: tuple[Any, ...]) -> str:
    if error.validator == "minLength" and where and where[-1] in _EVIDENCE_FIELDS:
        return "evidence_empty"
    if (
        error.validator == "type"
        and error.validator_value == "integer"
        and _is_number(error.instance)
    ):
        return "score_not_integer" if where[-1:] == ("score",) else "type"
    return _VALIDATOR_CODES.get(str(error.validator), "schema_violation")


def _problem(
    fmt: ScorecardFormat, where: tuple[Any, ...], code: str, error: SchemaError
) -> Problem:
    return Problem(path=pointer(*where), code=code, message=_message(fmt, where, code, error))


def _message(fmt: ScorecardFormat, where: tuple[Any, ...], code: str, error: SchemaError) -> str:
    field = str(where[-1]) if where else "scorecard"
    writer = _MESSAGES.get(code)
    if writer is None:
        return f"{error.message}; see schema://{SCHEMA_FILES[fmt].removesuffix('.schema.json')}"
    return writer(field, fmt, error)


_MESSAGES: dict[str, Callable[[str, ScorecardFormat, SchemaError], str]] = {
    "required": lambda field, fmt, e: f"the required field '{field}' is missing; add it",
    "unknown_field": lambda field, fmt, e: (
        f"'{field}' is not a field of the {_FORMAT_NAMES[fmt]} scorecard; remove it or correct its"
        " spelling"
    ),
    "type": lambda field, fmt, e: (
        f"'{field}' must be {_expected(e.validator_value)}, not {describe(e.instance)}; write it as"
        " such"
    ),
    "score_not_integer": lambda field, fmt, e: (
        f"scores on this scale are whole numbers, not {e.instance!r}; use an integer"
    ),
    "out_of_range": lambda field, fmt, e: (
        f"{e.instance!r} is outside the allowed range {_bounds(e.schema)}; use a value inside it"
    ),
    "not_allowed": lambda field, fmt, e: f"{e.instance!r} is not allowed here; use {_choices(e)}",
    "empty": lambda field, fmt, e: f"'{field}' is empty; write it",
    "evidence_empty": lambda field, fmt, e: (
        "evidence is empty; cite what supports this: file:line, an evidence id (E3) or observed"
        " behaviour"
    ),
    "dispatch_count": lambda field, fmt, e: (
        "dispatch_count is always 1 (the orchestrator counts dispatches); set it to 1"
    ),
    "spec_defect_shape": lambda field, fmt, e: (
        'spec_defect is null (or absent) when the spec is sound, otherwise {"detected": true, '
        '"reason": "<codebase evidence that the spec is wrong>"}'
    ),
}


def describe(value: Any) -> str:
    """Return a JSON type phrase for a value ("a string", "null" …), for messages."""
    return next(
        (name for kind, name in _JSON_TYPES if isinstance(value, kind)), type(value).__name__
    )


def _expected(types: Any) -> str:
    names = types if isinstance(types, list) else [types]
    phrases = {
        "integer": "an integer",
        "number": "a number",
        "string": "a string",
        "boolean": "a boolean (true/false)",
        "array": "an array",
        "object": "an object",
        "null": "null",
    }
    return " or ".join(phrases.get(str(n), str(n)) for n in names)


def _bounds(schema: Any) -> str:
    schema = schema if isinstance(schema, dict) else {}
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        return f"{low:g}..{high:g}"
    if low is not None:
        return f">= {low:g}"
    return f"<= {high:g}" if high is not None else "of the schema"


def _choices(error: SchemaError) -> str:
    if error.validator != "enum":
        return json.dumps(error.validator_value)
    values = error.validator_value if isinstance(error.validator_value, list) else []
    return "one of " + ", ".join(json.dumps(v) for v in values)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
