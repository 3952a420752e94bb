"""Rubrics: load the scoring instruments (built-in and a repository's own).

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
with `*.yaml` / `*.yml` files committed in `.referee/rubrics/` (a plain folder: its files).
"""

from __future__ import annotations

import functools
import importlib.resources
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from referee.tools.errors import InvalidInput, Problem, problems_from_validation
from referee.tools.models.rubric import Rubric
from referee.tools.repo import GitError, blobs_at, head_commit, is_git_repo, list_files_at
from referee.tools.rubrics.check import canonical, parts_of, problem, semantic_problems

# libyaml's safe loader when present: the same documents, parsed about ten times faster.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

__all__ = [
    "USER_RUBRIC_DIR",
    "RubricError",
    "RubricSet",
    "builtin_rubrics",
    "load_rubric_file",
    "load_rubric_text",
    "load_rubrics",
    "rubrics_at",
]

USER_RUBRIC_DIR = Path(".referee") / "rubrics"


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
        unreadable = problem((), "unreadable", f"cannot read the file as UTF-8 text: {exc}")
        raise RubricError(str(path), [unreadable]) from exc
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
    problems += semantic_problems(parts_of(raw))
    if problems or rubric is None:
        raise RubricError(source, problems)
    return canonical(rubric)


def builtin_rubrics() -> dict[str, Rubric]:
    """Return the rubrics shipped with referee, by name (loaded once per process).

    Raises:
        RubricError: A shipped rubric is broken (a packaging bug, caught by the test suite).
    """
    return {rubric.name: rubric for rubric in _load_builtins()}


@functools.lru_cache(maxsize=1)
def _load_builtins() -> tuple[Rubric, ...]:
    package = importlib.resources.files("referee.rubrics")
    entries = sorted(
        (e for e in package.iterdir() if e.name.endswith(".yaml")), key=lambda e: e.name
    )
    return tuple(
        load_rubric_text(entry.read_text(encoding="utf-8"), f"referee.rubrics/{entry.name}")
        for entry in entries
    )


def load_rubrics(repo: Path | None, at: str | None = None) -> RubricSet:
    """Return the built-in rubrics plus those of a repository's `.referee/rubrics/`.

    In a git repository the user rubrics are those committed at `at` (default HEAD), read from
    git's objects: a file the working tree holds but no commit does (untracked, ignored, staged,
    or edited since) was written by whoever last worked in the tree, possibly the generator of an
    earlier round, and is no rubric of the orchestrator's. A plain folder has no history: its
    files are all there is.

    A user rubric whose name matches a built-in (ignoring case) replaces it. A user file that
    fails to load is kept in `errors` and hides nothing; of two user files defining the same
    name, the first in file-name order wins and the second is an error.

    Args:
        repo: The repository root, or None for the built-ins alone.
        at: The commit to read a git repository's rubrics from (default HEAD).

    Returns:
        The available rubrics and the errors of broken user files.
    """
    found = RubricSet(rubrics=builtin_rubrics())
    if repo is None:
        return found
    user = _committed(repo, at) if is_git_repo(repo) else _on_disk(repo)
    defined_by: dict[str, str] = {}
    for source, read in user:
        _add_user_rubric(found, source, read, defined_by)
    return found


def rubrics_at(repo: Path, commit: str) -> RubricSet:
    """The user rubrics of `.referee/rubrics/` as committed at `commit` alone (no built-ins)."""
    found = RubricSet()
    defined_by: dict[str, str] = {}
    for source, read in _committed(repo, commit):
        _add_user_rubric(found, source, read, defined_by)
    return found


_Read = Callable[[], Rubric]


def _on_disk(repo: Path) -> list[tuple[str, _Read]]:
    folder = repo / USER_RUBRIC_DIR
    if not folder.is_dir():
        return []
    paths = sorted(p for p in folder.iterdir() if p.suffix in {".yaml", ".yml"} and p.is_file())
    return [(str(p), functools.partial(load_rubric_file, p)) for p in paths]


def _committed(repo: Path, at: str | None) -> list[tuple[str, _Read]]:
    commit = at or head_commit(repo)
    if commit is None:
        return []  # no commit yet: nothing is the orchestrator's
    try:
        names = [
            p
            for p in list_files_at(repo, commit, USER_RUBRIC_DIR.as_posix())
            if p.endswith((".yaml", ".yml"))
        ]
        texts = blobs_at(repo, commit, names)
    except GitError:
        return []
    found: list[tuple[str, _Read]] = []
    for name in sorted(texts):
        source = f"{commit[:12]}:{name}"
        text = texts[name].decode("utf-8", "replace")
        found.append((source, functools.partial(load_rubric_text, text, source)))
    return found


def _add_user_rubric(
    found: RubricSet, source: str, read: _Read, defined_by: dict[str, str]
) -> None:
    try:
        rubric = read()
    except RubricError as exc:
        found.errors.append(exc)
        return
    folded = rubric.name.casefold()
    if folded in defined_by:
        first = defined_by[folded].rpartition("/")[2]
        message = f"rubric {rubric.name} is already defined by {first}; rename one of them"
        found.errors.append(RubricError(source, [problem(("name",), "duplicate_rubric", message)]))
        return
    defined_by[folded] = source
    found.rubrics = {k: r for k, r in found.rubrics.items() if k.casefold() != folded}
    found.rubrics[rubric.name] = rubric


def _parse_yaml(text: str, source: str) -> dict[Any, Any]:
    try:
        raw = yaml.load(text, Loader=SAFE_LOADER)
    except yaml.YAMLError as exc:
        raise RubricError(source, [problem((), "yaml_syntax", _yaml_message(exc))]) from exc
    if not isinstance(raw, dict):
        found = "an empty document" if raw is None else f"a {type(raw).__name__}"
        message = (
            f"a rubric is a YAML mapping (name, version, scale, dimensions, examples), not {found}"
        )
        raise RubricError(source, [problem((), "not_a_mapping", message)])
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
