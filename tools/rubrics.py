"""Rubrics: load and check the scoring instruments, and apply their arithmetic.

A rubric file is YAML. It is checked in two passes and every problem of a file is reported at
once, each with the JSON pointer of the field:

1. structure: the pydantic model `Rubric` (types, required fields, unknown fields);
2. meaning, on whatever parts passed the first pass:
   - scale: `integer` spans 0–3 and its levels are whole numbers; `unit` spans 0.0–1.0; levels
     lie inside the span, once each;
   - dimensions: unique keys; weights sum to 1.0 within 1e-6; a non-empty definition for every
     level of the scale and for no other level;
   - examples: a score for every dimension and for nothing else, inside the scale (whole numbers
     on an integer scale); the stated `weighted_score` within 0.01 (unit: 0.005) of Σ score ×
     weight; an integer-scale example states its `verdict`, a unit-scale example its `band`, and
     what it states agrees with `verdict_for` / `health_band`.

Level keys may be written as numbers or strings (`0:`, `"0"`, `0.40:`). A loaded rubric keys
them canonically, in scale order: "0".."3" on integer scales, "0.0", "0.4" … on unit scales.

Built-in rubrics are package data of `referee.rubrics`; a repository adds or overrides rubrics
with `*.yaml` / `*.yml` files in `.referee/rubrics/`.
"""

from __future__ import annotations

import functools
import importlib.resources
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from referee.tools.errors import InvalidInput, Problem, pointer, problems_from_validation
from referee.tools.models.common import ACCEPT, BLOCK, REVISE, HealthBand, Verdict
from referee.tools.models.rubric import Dimension, Rubric, RubricExample, Scale

__all__ = [
    "USER_RUBRIC_DIR", "WEIGHT_TOLERANCE", "RubricError", "RubricSet", "builtin_rubrics",
    "compute_weighted", "health_band", "level_key", "load_rubric_file", "load_rubric_text",
    "load_rubrics", "normalized", "select_rubric", "verdict_for",
]

USER_RUBRIC_DIR = Path(".referee") / "rubrics"
WEIGHT_TOLERANCE = 1e-6

_SPANS = {"integer": (0.0, 3.0), "unit": (0.0, 1.0)}
_DECIMALS = {"integer": 2, "unit": 3}
_SCORE_TOLERANCE = {"integer": 0.01, "unit": 0.005}
# A dimension below the first floor blocks; below the second it asks for a revision.
_VERDICT_FLOORS = {"integer": (1.0, 2.0), "unit": (0.4, 0.6)}
_BANDS: tuple[tuple[float, HealthBand], ...] = ((0.8, "STRONG"), (0.6, "ADEQUATE"), (0.4, "NEEDS_WORK"))
_EPSILON = 1e-9
_SELECTION = {"bug": "BUG_FIX", "security": "SECURITY"}

M = TypeVar("M", bound=BaseModel)
Where = tuple[Any, ...]


def _problem(where: Where, code: str, message: str) -> Problem:
    return Problem(path=pointer(*where), code=code, message=message)


class RubricError(InvalidInput):
    """A rubric file that cannot be used; lists every problem found in it.

    Attributes:
        source: The file (or package resource) the rubric came from.
        problems: Each problem with the JSON pointer of its field, a code and a message.
    """

    def __init__(self, source: str, problems: Sequence[Problem]) -> None:
        self.source = source
        super().__init__(problems, summary=_describe(source, problems))


def _describe(source: str, problems: Sequence[Problem]) -> str:
    count = len(problems)
    lines = [f"rubric {source} is invalid ({count} problem{'s' if count != 1 else ''}):"]
    lines += [f"  {p.path or '<document>'}: {p.message} [{p.code}]" for p in problems]
    return "\n".join(lines)


@dataclass
class RubricSet:
    """The rubrics available to a repository, and the user files that could not be loaded."""

    rubrics: dict[str, Rubric] = field(default_factory=dict)
    errors: list[RubricError] = field(default_factory=list)

    def get(self, name: str) -> Rubric | None:
        """Return the rubric called `name`, ignoring case, or None when there is none."""
        wanted = name.casefold()
        return next((r for key, r in self.rubrics.items() if key.casefold() == wanted), None)

    def names(self) -> list[str]:
        """Return the names of the available rubrics, sorted."""
        return sorted(self.rubrics)


# Loading


def load_rubric_file(path: Path) -> Rubric:
    """Load and check one rubric file.

    Args:
        path: A YAML rubric file.

    Returns:
        The rubric, with canonical level keys.

    Raises:
        RubricError: The file cannot be read or is not a valid rubric; lists every problem.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problem = _problem((), "unreadable", f"cannot read the file as UTF-8 text: {exc}")
        raise RubricError(str(path), [problem]) from exc
    return load_rubric_text(text, str(path))


def load_rubric_text(text: str, source: str) -> Rubric:
    """Parse and check a rubric given as YAML text.

    Args:
        text: The YAML document.
        source: Where the text came from; named in every error.

    Returns:
        The rubric, with canonical level keys.

    Raises:
        RubricError: The text is not a valid rubric; lists every problem with its JSON pointer.
    """
    raw = _stringify_level_keys(_parse_yaml(text, source))
    try:
        rubric: Rubric | None = Rubric.model_validate(raw)
        problems: list[Problem] = []
    except ValidationError as exc:
        rubric, problems = None, problems_from_validation(exc)
    problems += _semantic_problems(_parts_of(raw))
    if problems or rubric is None:
        raise RubricError(source, problems)
    return _canonical(rubric)


def builtin_rubrics() -> dict[str, Rubric]:
    """Return the rubrics shipped with referee, by name (loaded once per process).

    Raises:
        RubricError: A shipped rubric is broken (a packaging bug, caught by the test suite).
    """
    return {rubric.name: rubric for rubric in _load_builtins()}


@functools.lru_cache(maxsize=1)
def _load_builtins() -> tuple[Rubric, ...]:
    package = importlib.resources.files("referee.rubrics")
    entries = sorted((e for e in package.iterdir() if e.name.endswith(".yaml")), key=lambda e: e.name)
    return tuple(
        load_rubric_text(entry.read_text(encoding="utf-8"), f"referee.rubrics/{entry.name}") for entry in entries
    )


def load_rubrics(repo: Path | None) -> RubricSet:
    """Return the built-in rubrics plus those of a repository's `.referee/rubrics/`.

    A user rubric whose name matches a built-in (ignoring case) replaces it. A user file that
    fails to load is kept in `errors` and hides nothing; of two user files defining the same
    name, the first in file-name order wins and the second is an error.

    Args:
        repo: The repository root, or None for the built-ins alone.

    Returns:
        The available rubrics and the errors of broken user files.
    """
    found = RubricSet(rubrics=builtin_rubrics())
    if repo is None:
        return found
    defined_by: dict[str, Path] = {}
    for path in _user_rubric_files(repo):
        _add_user_rubric(found, path, defined_by)
    return found


def _user_rubric_files(repo: Path) -> list[Path]:
    folder = repo / USER_RUBRIC_DIR
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix in {".yaml", ".yml"} and p.is_file())


def _add_user_rubric(found: RubricSet, path: Path, defined_by: dict[str, Path]) -> None:
    try:
        rubric = load_rubric_file(path)
    except RubricError as exc:
        found.errors.append(exc)
        return
    folded = rubric.name.casefold()
    if folded in defined_by:
        message = f"rubric {rubric.name} is already defined by {defined_by[folded].name}; rename one of them"
        found.errors.append(RubricError(str(path), [_problem(("name",), "duplicate_rubric", message)]))
        return
    defined_by[folded] = path
    found.rubrics = {k: r for k, r in found.rubrics.items() if k.casefold() != folded}
    found.rubrics[rubric.name] = rubric


def _parse_yaml(text: str, source: str) -> dict[Any, Any]:
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise RubricError(source, [_problem((), "yaml_syntax", _yaml_message(exc))]) from exc
    if not isinstance(raw, dict):
        found = "an empty document" if raw is None else f"a {type(raw).__name__}"
        message = f"a rubric is a YAML mapping (name, version, scale, dimensions, examples), not {found}"
        raise RubricError(source, [_problem((), "not_a_mapping", message)])
    return raw


def _yaml_message(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    detail = getattr(exc, "problem", None) or str(exc)
    return f"YAML syntax error{where}: {detail}"


def _stringify_level_keys(raw: dict[Any, Any]) -> dict[Any, Any]:
    # YAML reads `0:` or `0.4:` as numbers; the model keys levels by string.
    dimensions = raw.get("dimensions")
    for dim in dimensions if isinstance(dimensions, list) else []:
        if isinstance(dim, dict) and isinstance(dim.get("levels"), dict):
            dim["levels"] = _str_keys(dim["levels"])
    scale = raw.get("scale")
    if isinstance(scale, dict) and isinstance(scale.get("labels"), dict):
        scale["labels"] = _str_keys(scale["labels"])
    return raw


def _str_keys(mapping: dict[Any, Any]) -> dict[Any, Any]:
    return {_str_key(k): v for k, v in mapping.items()}


def _str_key(key: Any) -> Any:
    return str(key) if isinstance(key, int | float) and not isinstance(key, bool) else key


# The semantic rules, applied to the parts that passed the model


@dataclass(frozen=True)
class _Parts:
    scale: Scale | None
    dimensions: dict[int, Dimension]
    dimension_count: int
    examples: dict[int, RubricExample]

    @property
    def complete(self) -> bool:
        return self.dimension_count > 0 and len(self.dimensions) == self.dimension_count


def _parts_of(raw: dict[Any, Any]) -> _Parts:
    dims = raw.get("dimensions")
    return _Parts(
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


def _semantic_problems(parts: _Parts) -> list[Problem]:
    scale_problems = _scale_problems(parts.scale) if parts.scale else []
    # Level definitions are judged against the scale's levels only once those are sound;
    # otherwise one wrong scale would be reported again in every dimension.
    sound_scale = parts.scale if not scale_problems else None
    if parts.scale is not None:
        scale_problems += _level_key_problems(parts.scale.labels, parts.scale, ("scale", "labels"), False)
    weight_problems = _duplicate_key_problems(parts.dimensions) + _weight_sum_problems(parts)
    level_problems = [p for i, d in parts.dimensions.items() for p in _dimension_level_problems(i, d, sound_scale)]
    arithmetic = parts.complete and sound_scale is not None and not weight_problems
    example_problems = [p for i, ex in parts.examples.items() for p in _example_problems(i, ex, parts, arithmetic)]
    return scale_problems + weight_problems + level_problems + example_problems


def _scale_problems(scale: Scale) -> list[Problem]:
    low, high = _SPANS[scale.kind]
    problems = [
        _problem(("scale", name), "scale_range", f"a {scale.kind} scale has {name} {want:g}, not {value:g}")
        for name, value, want in (("min", scale.min, low), ("max", scale.max, high)) if value != want
    ]
    return problems + _scale_level_problems(scale)


def _scale_level_problems(scale: Scale) -> list[Problem]:
    problems: list[Problem] = []
    seen: set[float] = set()
    for i, level in enumerate(scale.levels):
        at = ("scale", "levels", i)
        if not scale.min <= level <= scale.max:
            span = f"{scale.min:g}..{scale.max:g}"
            problems.append(_problem(at, "level_out_of_range", f"level {level:g} lies outside the scale {span}"))
        elif scale.kind == "integer" and not float(level).is_integer():
            message = f"integer scale levels are whole numbers, not {level:g}"
            problems.append(_problem(at, "level_not_integer", message))
        elif level in seen:
            problems.append(_problem(at, "level_duplicate", f"level {level:g} is listed twice"))
        seen.add(level)
    return problems


def _duplicate_key_problems(dimensions: Mapping[int, Dimension]) -> list[Problem]:
    first: dict[str, int] = {}
    problems: list[Problem] = []
    for i, dim in dimensions.items():
        if dim.key in first:
            message = f"dimension key {dim.key!r} is already used by /dimensions/{first[dim.key]}"
            problems.append(_problem(("dimensions", i, "key"), "duplicate_dimension", message))
        first.setdefault(dim.key, i)
    return problems


def _weight_sum_problems(parts: _Parts) -> list[Problem]:
    if not parts.complete:
        return []
    total = math.fsum(d.weight for d in parts.dimensions.values())
    if abs(total - 1.0) <= WEIGHT_TOLERANCE:
        return []
    listed = ", ".join(f"{d.key} {d.weight:g}" for d in parts.dimensions.values())
    message = f"dimension weights sum to {total:.6g}, not 1.0 (tolerance {WEIGHT_TOLERANCE:g}): {listed}"
    return [_problem(("dimensions",), "weights_sum", message)]


def _dimension_level_problems(index: int, dim: Dimension, scale: Scale | None) -> list[Problem]:
    if scale is None:
        return []
    return _level_key_problems(dim.levels, scale, ("dimensions", index, "levels"), True)


def _level_key_problems(texts: Mapping[str, str], scale: Scale, base: Where, require_all: bool) -> list[Problem]:
    declared = [level_key(scale, level) for level in scale.levels]
    problems: list[Problem] = []
    seen: set[str | None] = set()
    for key, text in texts.items():
        canon = _canonical_key(key, scale)
        if canon not in declared:
            message = f"{key!r} is not a level of the scale (levels: {', '.join(declared)})"
            problems.append(_problem((*base, key), "level_unknown", message))
        elif canon in seen:
            problems.append(_problem((*base, key), "level_duplicate", f"level {canon} is defined twice"))
        elif require_all and not text.strip():
            problems.append(_problem((*base, key), "level_empty", f"the definition of level {canon} is empty"))
        seen.add(canon)
    if require_all:
        absent = [key for key in declared if key not in seen]
        message = "no definition for level {}; every level of the scale needs one"
        problems += [_problem((*base, key), "level_missing", message.format(key)) for key in absent]
    return problems


def _example_problems(index: int, example: RubricExample, parts: _Parts, arithmetic: bool) -> list[Problem]:
    base = ("examples", index)
    problems = _score_key_problems(base, example, parts) if parts.complete else []
    if parts.scale is None:
        return problems
    problems += _score_value_problems(base, example, parts.scale)
    problems += _outcome_presence_problems(base, example, parts.scale)
    if arithmetic and not problems:
        problems += _arithmetic_problems(base, example, parts.dimensions.values(), parts.scale.kind)
    return problems


def _score_key_problems(base: Where, example: RubricExample, parts: _Parts) -> list[Problem]:
    keys = [d.key for d in parts.dimensions.values()]
    missing = f"the example gives no score for dimension {{!r}}; score every dimension ({', '.join(keys)})"
    unknown = f"{{!r}} is not a dimension of this rubric (dimensions: {', '.join(keys)})"
    problems = [_problem((*base, "scores", k), "score_missing", missing.format(k))
                for k in keys if k not in example.scores]
    problems += [_problem((*base, "scores", k), "score_unknown", unknown.format(k))
                 for k in example.scores if k not in keys]
    return problems


def _score_value_problems(base: Where, example: RubricExample, scale: Scale) -> list[Problem]:
    problems: list[Problem] = []
    for key, entry in example.scores.items():
        at, score = (*base, "scores", key, "score"), entry.score
        if not scale.min <= score <= scale.max:
            span = f"{scale.min:g}..{scale.max:g}"
            problems.append(_problem(at, "score_out_of_range", f"score {score:g} lies outside the scale {span}"))
        elif scale.kind == "integer" and not float(score).is_integer():
            message = f"integer scale scores are whole numbers, not {score:g}"
            problems.append(_problem(at, "score_not_integer", message))
    return problems


def _outcome_presence_problems(base: Where, example: RubricExample, scale: Scale) -> list[Problem]:
    if scale.kind == "integer" and example.verdict is None:
        message = "an example on an integer scale states its verdict: ACCEPT, REVISE or BLOCK"
        return [_problem((*base, "verdict"), "verdict_missing", message)]
    if scale.kind == "integer" and example.band is not None:
        message = "health bands belong to unit-scale rubrics; remove band"
        return [_problem((*base, "band"), "band_not_applicable", message)]
    if scale.kind == "unit" and example.band is None:
        message = "an example on a unit scale states its band: STRONG, ADEQUATE, NEEDS_WORK or CRITICAL"
        return [_problem((*base, "band"), "band_missing", message)]
    return []


def _arithmetic_problems(base: Where, example: RubricExample, dimensions: Iterable[Dimension],
                         kind: str) -> list[Problem]:
    scores = {k: s.score for k, s in example.scores.items()}
    computed = _weighted(kind, {d.key: d.weight for d in dimensions}, scores)
    verdict, band = _verdict(kind, scores.values()), health_band(computed)
    problems: list[Problem] = []
    if abs(example.weighted_score - computed) > _SCORE_TOLERANCE[kind] + _EPSILON:
        message = f"stated {example.weighted_score:g}, but Σ score × weight is {computed:g}"
        problems.append(_problem((*base, "weighted_score"), "weighted_score_mismatch", message))
    if example.verdict is not None and example.verdict != verdict:
        message = f"stated {example.verdict}, but the scores give {verdict}"
        problems.append(_problem((*base, "verdict"), "verdict_mismatch", message))
    if kind == "unit" and example.band != band:
        message = f"stated {example.band}, but a composite of {computed:g} is {band}"
        problems.append(_problem((*base, "band"), "band_mismatch", message))
    return problems


def _canonical_key(key: str, scale: Scale) -> str | None:
    try:
        return level_key(scale, float(key))
    except ValueError:
        return None


def _canonical(rubric: Rubric) -> Rubric:
    scale = rubric.scale
    labels = _canonical_levels(scale.labels, scale)
    dims = [d.model_copy(update={"levels": _canonical_levels(d.levels, scale)}) for d in rubric.dimensions]
    return rubric.model_copy(update={"scale": scale.model_copy(update={"labels": labels}), "dimensions": dims})


def _canonical_levels(texts: Mapping[str, str], scale: Scale) -> dict[str, str]:
    by_key = {_canonical_key(k, scale): v for k, v in texts.items()}
    ordered = (level_key(scale, level) for level in scale.levels)
    return {key: by_key[key] for key in ordered if key in by_key}


# Selection and arithmetic


def level_key(scale: Scale, level: float) -> str:
    """Return the key under which a dimension defines `level`: "2" on integer scales, "0.4" on unit ones.

    Args:
        scale: The rubric's scale.
        level: A level of that scale.

    Returns:
        The canonical string key.
    """
    if scale.kind == "integer" and float(level).is_integer():
        return str(int(level))
    return str(float(level))


def select_rubric(task_type: str, has_ui: bool) -> str:
    """Choose the rubric for a task when the contract names none.

    Args:
        task_type: feature, bug, security or other (case-insensitive).
        has_ui: Whether the task changes a user interface (only matters for features).

    Returns:
        FEATURE_UI, FEATURE_BACKEND, BUG_FIX or SECURITY; anything unrecognised gets FEATURE_BACKEND.
    """
    kind = task_type.strip().lower()
    if kind == "feature":
        return "FEATURE_UI" if has_ui else "FEATURE_BACKEND"
    return _SELECTION.get(kind, "FEATURE_BACKEND")


def compute_weighted(rubric: Rubric, scores: Mapping[str, float]) -> float:
    """Return Σ score × weight over the rubric's dimensions.

    Args:
        rubric: The rubric whose weights apply.
        scores: A score for every dimension key; keys the rubric does not have are ignored.

    Returns:
        The weighted score, rounded to 2 decimals on integer scales and 3 on unit scales.

    Raises:
        ValueError: A dimension of the rubric has no score.
    """
    missing = [d.key for d in rubric.dimensions if d.key not in scores]
    if missing:
        raise ValueError(f"rubric {rubric.name} needs a score for: {', '.join(missing)}")
    return _weighted(rubric.scale.kind, rubric.weights(), scores)


def _weighted(kind: str, weights: Mapping[str, float], scores: Mapping[str, float]) -> float:
    return round(math.fsum(scores[key] * weight for key, weight in weights.items()), _DECIMALS[kind])


def verdict_for(rubric: Rubric, scores: Mapping[str, float]) -> Verdict:
    """Return the verdict that dimension scores give, before criteria and antipatterns are considered.

    On a 0–3 scale any 0 blocks and any 1 asks for a revision. On a unit scale any dimension
    below 0.4 blocks and any below 0.6 asks for a revision. Otherwise the work is accepted.

    Args:
        rubric: The rubric the scores belong to.
        scores: Scores by dimension key; keys the rubric does not have are ignored.

    Returns:
        ACCEPT, REVISE or BLOCK.
    """
    return _verdict(rubric.scale.kind, [scores[d.key] for d in rubric.dimensions if d.key in scores])


def _verdict(kind: str, values: Iterable[float]) -> Verdict:
    block_below, revise_below = _VERDICT_FLOORS[kind]
    values = list(values)
    if any(v < block_below for v in values):
        return BLOCK
    if any(v < revise_below for v in values):
        return REVISE
    return ACCEPT


def health_band(composite: float) -> HealthBand:
    """Return the health band of a unit-scale composite.

    >= 0.8 STRONG, >= 0.6 ADEQUATE, >= 0.4 NEEDS_WORK, below that CRITICAL.

    Args:
        composite: A weighted score between 0.0 and 1.0.

    Returns:
        STRONG, ADEQUATE, NEEDS_WORK or CRITICAL.
    """
    value = round(composite, 9)  # 0.7999999999 from float sums is 0.8
    return next((band for floor, band in _BANDS if value >= floor), "CRITICAL")


def normalized(rubric: Rubric, weighted: float) -> float:
    """Return a weighted score on a 0–100 scale (0–3: weighted / 3 × 100; unit: weighted × 100).

    Args:
        rubric: The rubric the score was computed with.
        weighted: Its weighted score.

    Returns:
        The normalized score, rounded to 2 decimals.
    """
    return round(weighted / rubric.scale.max * 100, 2)
