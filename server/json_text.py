"""Tool arguments sent as JSON text, read as strictly as a scorecard file.

Some clients send an object argument as the JSON text of it (`"scorecard": "{…}"`), and the SDK
would parse that text itself with plain `json.loads`: the last of two equal keys silently wins,
and `NaN` reads as a number. A card written by the player could then say one score to a strict
parser and another to referee. So referee parses such text first, with the scorecard's own
strict reader (tools/validate_scorecard/strict_json.py), and refuses what it refuses.
"""

from __future__ import annotations

from types import UnionType
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

from referee.tools.errors import Problem, pointer
from referee.tools.validate_scorecard import parse_json

__all__ = ["strict_arguments"]


def strict_arguments(
    model: type[BaseModel], arguments: dict[str, Any]
) -> tuple[dict[str, Any], list[Problem]]:
    """The arguments with each JSON text given for a field that is not a plain string parsed
    strictly, and the problems of those texts that are JSON but refused (duplicate keys,
    non-finite numbers, too deep or too large), located under their argument."""
    parsed = dict(arguments)
    problems: list[Problem] = []
    for name, value in arguments.items():
        field = model.model_fields.get(name)
        if field is None or not _takes_objects(field.annotation) or not isinstance(value, str):
            continue
        read = parse_json(value.encode("utf-8", errors="surrogatepass"))
        if read.problems:
            if all(p.code == "json_invalid" for p in read.problems):
                continue  # not JSON: the argument's own type check says what is wrong
            problems += [
                p.model_copy(update={"path": pointer(name) + p.path}) for p in read.problems
            ]
        elif isinstance(read.value, dict | list):
            parsed[name] = read.value
    return parsed, problems


def _takes_objects(annotation: Any) -> bool:
    """Whether a field takes an object or a list and no plain string: only such a field's text
    is JSON to parse (`ref: str | None` may be the branch `Infinity`)."""
    kinds = get_args(annotation) if get_origin(annotation) in (Union, UnionType) else (annotation,)
    if str in kinds:
        return False
    return any((get_origin(k) or k) in (dict, list) for k in kinds)
