"""Committed scorecards, read and rebound to the gate's own runs.

A scorecard committed in a pull request was made on the author's machine, against a run signed with
a key CI never sees. The gate keeps what only a judge can give (judgement scores, verdicts of
criteria referee cannot check, issues, summary, guidance, the antipatterns the judge added) and
binds the card to CI's own run of the same evaluator and iteration: its `run_id` and signature, and
the evidence ids of CI's run wherever the card cites referee's evidence. Every claim stays the
card's: a criterion marked passed that CI's run failed is still `contradicts_evidence`, an
antipattern CI detected and the card lacks is still `antipattern_dropped`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.tools.errors import Problem
from referee.tools.models.evaluation import Evaluation
from referee.tools.validate_scorecard.strict_json import MAX_CARD_BYTES, read_json

__all__ = ["MAX_CARD_BYTES", "CommittedCard", "read_cards", "rebind"]


@dataclass(frozen=True)
class CommittedCard:
    """One scorecard found in the pull request (or why it could not be read)."""

    source: str
    body: Any
    problem: str | None = None
    problems: tuple[Problem, ...] = ()
    """Why its JSON text was refused (strict_json), with pointers."""


def read_cards(paths: list[Path]) -> list[CommittedCard]:
    """Every scorecard under `paths` (JSON files, or folders of them; a file may hold an array).

    The folders are the pull request's: a file or folder that leads elsewhere through a symlink
    (the runner's credentials are JSON too) is refused, never read.
    """
    files: list[Path] = []
    cards: list[CommittedCard] = []
    for path in paths:
        if path.is_dir():
            if path.is_symlink():
                cards.append(CommittedCard(str(path), None, "refused: a symlinked folder"))
                continue
            inside = path.resolve()
            found = sorted(p for p in path.rglob("*.json") if p.is_file() or p.is_symlink())
            for file in found:
                if inside not in file.resolve().parents:
                    cards.append(CommittedCard(str(file), None, "refused: leads out of its folder"))
                else:
                    files.append(file)
        elif path.is_file():
            files.append(path)
    for file in files:
        cards += _read(file)
    return cards


def _read(file: Path) -> list[CommittedCard]:
    """The cards of one file, read strictly: the pull request wrote it, so nothing it holds (NaN,
    duplicate keys, 10,000 levels of nesting) may reach the rules or crash the gate."""
    if file.is_symlink():
        return [CommittedCard(str(file), None, "refused: a symlink")]
    try:
        parsed = read_json(file)
    except OSError as exc:
        return [CommittedCard(str(file), None, f"not readable: {exc.strerror or exc}")]
    if parsed.problems:
        why = f"not readable as JSON: {parsed.problems[0].message}"
        return [CommittedCard(str(file), None, why, tuple(parsed.problems))]
    data = parsed.value
    if isinstance(data, dict) and isinstance(data.get("scorecards"), list):
        data = data["scorecards"]
    items = data if isinstance(data, list) else [data]
    return [
        CommittedCard(f"{file}[{i}]" if len(items) > 1 else str(file), item)
        for i, item in enumerate(items)
    ]


def rebind(card: dict[str, Any], run: Evaluation) -> dict[str, Any]:
    """The card bound to CI's run: run_id, signature and referee's evidence ids replaced."""
    bound = copy.deepcopy(card)
    if "task_id" not in bound:  # a tenpoint card has no run id: it binds to the run by itself
        bound["run_id"], bound["signature"] = run.run_id, run.signature
    # The gate's store holds one evaluation of the head, its iteration 1, whatever attempt the
    # author's loop had reached: the card's judgement is of that tree, so it takes the run's number.
    bound["iteration"] = run.iteration
    known = {e.id for e in run.evidence}
    by_criterion = {c.id: c.evidence_ids for c in run.criteria}
    for entry in _objects(bound.get("criteria")):
        ident = entry.get("id")
        if isinstance(ident, str) and by_criterion.get(ident):
            entry["evidence_ids"] = list(by_criterion[ident])
        else:
            _keep_known(entry, known)
    dimensions = bound.get("dimensions")
    for key, derived in run.dimensions.items():
        scored = dimensions.get(key) if isinstance(dimensions, dict) else None
        if isinstance(scored, dict):
            if derived.source == "deterministic":
                scored["evidence_ids"] = list(derived.evidence_ids)
            else:
                _keep_known(scored, known)
    for entry in _objects(bound.get("issues")):
        _keep_known(entry, known)
    return bound


def _keep_known(entry: dict[str, Any], known: set[str]) -> None:
    """Evidence ids of the author's run that CI's run does not have say nothing here."""
    cited = entry.get("evidence_ids")
    if isinstance(cited, list):
        entry["evidence_ids"] = [e for e in cited if isinstance(e, str) and e in known]


def _objects(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
