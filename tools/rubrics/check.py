"""The semantic rules of a rubric file, applied to the parts that passed the model.

- scale: `integer` spans 0–3 and its levels are whole numbers; `unit` spans 0.0–1.0; levels
  lie inside the span, once each;
- dimensions: unique keys; weights sum to 1.0 within 1e-6; a non-empty definition for every
  level of the scale and for no other level;
- examples: a score for every dimension and for nothing else, inside the scale (whole numbers
  on an integer scale); the stated `weighted_score` within 0.01 (unit: 0.005) of Σ score ×
  weight; an integer-scale example states its `verdict`, a unit-scale example its `band`, and
  what it states agrees with `verdict_for` / `health_band`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from referee.tools.errors import Problem, pointer
from referee.tools.models.rubric import Dimension, Rubric, RubricExample, Scale
from referee.tools.rubrics.arithmetic import health_band, level_key, verdict_of_values, weighted_of

__all__ = ["WEIGHT_TOLERANCE", "Parts", "canonical", "parts_of", "problem", "semantic_problems"]

WEIGHT_TOLERANCE = 1e-6
_SPANS = {"integer": (0.0, 3.0), "unit": (0.0, 1.0)}
_SCORE_TOLERANCE = {"integer": 0.01, "unit": 0.005}
_EPSILON = 1e-9

M = TypeVar("M", bound=BaseModel)
Where = tuple[Any, ...]


def problem(where: Where, code: str, message: str) -> Problem:
    """A Problem at the JSON pointer made of `where`."""
    return Problem(path=pointer(*where), code=code, message=message)


@dataclass(frozen=True)
class Parts:
    scale: Scale | None
    dimensions: dict[int, Dimension]
    dimension_count: int
    examples: dict[int, RubricExample]

    @property
    def complete(self) -> bool:
        return self.dimension_count > 0 and len(self.dimensions) == self.dimension_count


def parts_of(raw: dict[Any, Any]) -> Parts:
    dims = raw.get("dimensions")
    return Parts(
        scale=_try_validate(Scale, raw.get("scale")),
        dimensions=_valid_items(Dimension, dims),
        dimension_count=len(dims) if isinstance(dims, list) else 0,
        examples=_valid_items(RubricExample, raw.get("examples")),
    )


def _try_validate(model: type[M], value: Any) -> M | None:
    try:
        return model.model_validate(value)
    except ValidationError:
        return None


def _valid_items(model: type[M], items: Any) -> dict[int, M]:
    if not isinstance(items, list):
        return {}
    checked = {i: _try_validate(model, item) for i, item in enumerate(items)}
    return {i: m for i, m in checked.items() if m is not None}


def semantic_problems(parts: Parts) -> list[Problem]:
    scale_problems = _scale_problems(parts.scale) if parts.scale else []
    # Level definitions are judged against the scale's levels only once those are sound;
    # otherwise one wrong scale would be reported again in every dimension.
    sound_scale = parts.scale if not scale_problems else None
    if parts.scale is not None:
        scale_problems += _level_key_problems(
            parts.scale.labels, parts.scale, ("scale", "labels"), False
        )
    weight_problems = _duplicate_key_problems(parts.dimensions) + _weight_sum_problems(parts)
    level_problems = [
        p for i, d in parts.dimensions.items() for p in _dimension_level_problems(i, d, sound_scale)
    ]
    arithmetic = parts.complete and sound_scale is not None and not weight_problems
    example_problems = [
        p for i, ex in parts.examples.items() for p in _example_problems(i, ex, parts, arithmetic)
    ]
    return scale_problems + weight_problems + level_problems + example_problems


def _scale_problems(scale: Scale) -> list[Problem]:
    low, high = _SPANS[scale.kind]
    problems = [
        problem(
            ("scale", name),
            "scale_range",
            f"a {scale.kind} scale has {name} {want:g}, not {value:g}",
        )
        for name, value, want in (("min", scale.min, low), ("max", scale.max, high))
        if value != want
    ]
    return problems + _scale_level_problems(scale)


def _scale_level_problems(scale: Scale) -> list[Problem]:
    problems: list[Problem] = []
    seen: set[float] = set()
    for i, level in enumerate(scale.levels):
        at = ("scale", "levels", i)
        if not scale.min <= level <= scale.max:
            span = f"{scale.min:g}..{scale.max:g}"
            problems.append(
                problem(at, "level_out_of_range", f"level {level:g} lies outside the scale {span}")
            )
        elif scale.kind == "integer" and not float(level).is_integer():
            message = f"integer scale levels are whole numbers, not {level:g}"
            problems.append(problem(at, "level_not_integer", message))
        elif level in seen:
            problems.append(problem(at, "level_duplicate", f"level {level:g} is listed twice"))
        seen.add(level)
    return problems


def _duplicate_key_problems(dimensions: Mapping[int, Dimension]) -> list[Problem]:
    first: dict[str, int] = {}
    problems: list[Problem] = []
    for i, dim in dimensions.items():
        if dim.key in first:
            message = f"dimension key {dim.key!r} is already used by /dimensions/{first[dim.key]}"
            problems.append(problem(("dimensions", i, "key"), "duplicate_dimension", message))
        first.setdefault(dim.key, i)
    return problems


def _weight_sum_problems(parts: Parts) -> list[Problem]:
    if not parts.complete:
        return []
    total = math.fsum(d.weight for d in parts.dimensions.values())
    if abs(total - 1.0) <= WEIGHT_TOLERANCE:
        return []
    listed = ", ".join(f"{d.key} {d.weight:g}" for d in parts.dimensions.values())
    message = (
        f"dimension weights sum to {total:.6g}, not 1.0 (tolerance {WEIGHT_TOLERANCE:g}): {listed}"
    )
    return [problem(("dimensions",), "weights_sum", message)]


def _dimension_level_problems(index: int, dim: Dimension, scale: Scale | None) -> list[Problem]:
    if scale is None:
        return []
    return _level_key_problems(dim.levels, scale, ("dimensions", index, "levels"), True)


def _level_key_problems(
    texts: Mapping[str, str], scale: Scale, base: Where, require_all: bool
) -> list[Problem]:
    declared = [level_key(scale, level) for level in scale.levels]
    problems: list[Problem] = []
    seen: set[str | None] = set()
    for key, text in texts.items():
        canon = _canonical_key(key, scale)
        if canon not in declared:
            message = f"{key!r} is not a level of the scale (levels: {', '.join(declared)})"
            problems.append(problem((*base, key), "level_unknown", message))
        elif canon in seen:
            problems.append(
                problem((*base, key), "level_duplicate", f"level {canon} is defined twice")
            )
        elif require_all and not text.strip():
            problems.append(
                problem((*base, key), "level_empty", f"the definition of level {canon} is empty")
            )
        seen.add(canon)
    if require_all:
        absent = [key for key in declared if key not in seen]
        message = "no definition for level {}; every level of the scale needs one"
        problems += [problem((*base, key), "level_missing", message.format(key)) for key in absent]
    return problems


def _example_problems(
    index: int, example: RubricExample, parts: Parts, arithmetic: bool
) -> list[Problem]:
    base = ("examples", index)
    problems = _score_key_problems(base, example, parts) if parts.complete else []
    if parts.scale is None:
        return problems
    problems += _score_value_problems(base, example, parts.scale)
    problems += _outcome_presence_problems(base, example, parts.scale)
    if arithmetic and not problems:
        problems += _arithmetic_problems(base, example, parts.dimensions.values(), parts.scale.kind)
    return problems


def _score_key_problems(base: Where, example: RubricExample, parts: Parts) -> list[Problem]:
    keys = [d.key for d in parts.dimensions.values()]
    missing = (
        "the example gives no score for dimension {!r}; score every dimension"
        f" ({', '.join(keys)})"
    )
    unknown = f"{{!r}} is not a dimension of this rubric (dimensions: {', '.join(keys)})"
    problems = [
        problem((*base, "scores", k), "score_missing", missing.format(k))
        for k in keys
        if k not in example.scores
    ]
    problems += [
        problem((*base, "scores", k), "score_unknown", unknown.format(k))
        for k in example.scores
        if k not in keys
    ]
    return problems


def _score_value_problems(base: Where, example: RubricExample, scale: Scale) -> list[Problem]:
    problems: list[Problem] = []
    for key, entry in example.scores.items():
        at, score = (*base, "scores", key, "score"), entry.score
        if not scale.min <= score <= scale.max:
            span = f"{scale.min:g}..{scale.max:g}"
            problems.append(
                problem(at, "score_out_of_range", f"score {score:g} lies outside the scale {span}")
            )
        elif scale.kind == "integer" and not float(score).is_integer():
            message = f"integer scale scores are whole numbers, not {score:g}"
            problems.append(problem(at, "score_not_integer", message))
    return problems


def _outcome_presence_problems(base: Where, example: RubricExample, scale: Scale) -> list[Problem]:
    if scale.kind == "integer" and example.verdict is None:
        message = "an example on an integer scale states its verdict: ACCEPT, REVISE or BLOCK"
        return [problem((*base, "verdict"), "verdict_missing", message)]
    if scale.kind == "integer" and example.band is not None:
        message = "health bands belong to unit-scale rubrics; remove band"
        return [problem((*base, "band"), "band_not_applicable", message)]
    if scale.kind == "unit" and example.band is None:
        message = (
            "an example on a unit scale states its band: STRONG, ADEQUATE, NEEDS_WORK or CRITICAL"
        )
        return [problem((*base, "band"), "band_missing", message)]
    return []


def _arithmetic_problems(
    base: Where, example: RubricExample, dimensions: Iterable[Dimension], kind: str
) -> list[Problem]:
    scores = {k: s.score for k, s in example.scores.items()}
    computed = weighted_of(kind, {d.key: d.weight for d in dimensions}, scores)
    verdict, band = verdict_of_values(kind, scores.values()), health_band(computed)
    problems: list[Problem] = []
    if abs(example.weighted_score - computed) > _SCORE_TOLERANCE[kind] + _EPSILON:
        message = f"stated {example.weighted_score:g}, but Σ score × weight is {computed:g}"
        problems.append(problem((*base, "weighted_score"), "weighted_score_mismatch", message))
    if example.verdict is not None and example.verdict != verdict:
        message = f"stated {example.verdict}, but the scores give {verdict}"
        problems.append(problem((*base, "verdict"), "verdict_mismatch", message))
    if kind == "unit" and example.band != band:
        message = f"stated {example.band}, but a composite of {computed:g} is {band}"
        problems.append(problem((*base, "band"), "band_mismatch", message))
    return problems


def _canonical_key(key: str, scale: Scale) -> str | None:
    try:
        return level_key(scale, float(key))
    except ValueError:
        return None


def canonical(rubric: Rubric) -> Rubric:
    scale = rubric.scale
    labels = _canonical_levels(scale.labels, scale)
    dims = [
        d.model_copy(update={"levels": _canonical_levels(d.levels, scale)})
        for d in rubric.dimensions
    ]
    return rubric.model_copy(
        update={"scale": scale.model_copy(update={"labels": labels}), "dimensions": dims}
    )


def _canonical_levels(texts: Mapping[str, str], scale: Scale) -> dict[str, str]:
    by_key = {_canonical_key(k, scale): v for k, v in texts.items()}
    ordered = (level_key(scale, level) for level in scale.levels)
    return {key: by_key[key] for key in ordered if key in by_key}
