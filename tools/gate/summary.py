"""What the gate says: Markdown for the job summary, SARIF for code scanning, JSON for scripts.

None of the three names a hold-out. The pull request's author reads the job summary, the CI log
and the code-scanning alerts, and the author is the generator: a failed hold-out check is
counted, a validation problem that quotes a hold-out criterion (its id, its text, its files) keeps
its code and loses its words, and aggregate's withheld issues are counted, never printed.
"""

from __future__ import annotations

import re
from typing import Any

from referee.tools.errors import Problem
from referee.tools.gate.entry import CardOutcome, GateResult
from referee.tools.text import counted
from referee.tools.validate_scorecard.codes import OVERRIDES

__all__ = ["gate_json", "markdown", "sarif"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL: dict[str, str] = {
    "BLOCK": "error",
    "CRITICAL": "error",
    "HIGH": "error",
    "MEDIUM": "warning",
    "LOW": "note",
}
_PLACE = re.compile(r"^(?P<file>[^:\s]+?)(?::(?P<line>\d+))?(?:[-:]\d+)?$")


def markdown(gate: GateResult) -> str:
    """The job summary: outcome, per-evaluator verdicts, failed checks, invalid cards, the
    history's alerts, notes."""
    secret = _hidden(gate)
    lines = [
        f"## referee: {gate.outcome}",
        "",
        f"{gate.reason}",
        "",
        f"Contract `{gate.contract.id}`, iteration {gate.iteration}.",
        "",
        "| evaluator | run | verdict | scorecard |",
        "|---|---|---|---|",
    ]
    cards = {c.evaluator: c for c in gate.cards if c.counted}
    for run in gate.evaluations:
        card = cards.get(run.evaluator)
        verdict = (
            gate.aggregate.evaluator_verdicts.get(run.evaluator or "") if gate.aggregate else None
        )
        state = "none" if card is None else ("valid" if card.valid else "**invalid**")
        lines.append(f"| {run.evaluator} | `{run.run_id}` | {verdict or '–'} | {state} |")
    failed = [
        c for run in gate.evaluations for c in run.criteria if c.pass_ is False and not c.holdout
    ]
    unnamed = sum(
        1 for run in gate.evaluations for c in run.criteria if c.holdout and c.pass_ is False
    )
    if failed or unnamed:
        lines += ["", "### Checks that failed in CI", ""]
        lines += [f"- `{c.id}`: {c.reason or c.status}" for c in failed]
        if unnamed:
            lines.append(
                f"- {counted(unnamed, 'hold-out check')} failed (not named: the author must not"
                " see them)"
            )
    invalid = [c for c in gate.cards if c.problem or (c.counted and not c.valid)]
    if invalid:
        lines += ["", "### Scorecards refused", ""]
        for card in invalid:
            lines.append(f"- `{card.source}`")
            lines += [
                f"  - `{p.code}` at `{p.path or '/'}`: {p.message}" for p in _errors(card, secret)
            ]
    lines += _overrides_section(gate, secret)
    if gate.aggregate and gate.aggregate.revision_brief:
        issues = gate.aggregate.revision_brief.issues_to_address
        if issues:
            lines += ["", "### To address", ""]
            lines += [f"- {i.text}" for i in issues]
    if gate.aggregate and gate.aggregate.alerts:
        # The stored history's word: with a team store (`--store`), what the team's main saw.
        lines += ["", "### Alerts from the history", ""]
        lines += [f"- **{a.kind}**: {a.message}" for a in gate.aggregate.alerts]
    if gate.notes:
        lines += ["", "### Notes", ""]
        lines += [f"- {note}" for note in gate.notes]
    return "\n".join(lines) + "\n"


def sarif(gate: GateResult) -> dict[str, Any]:
    """SARIF 2.1.0: refused scorecards, failed checks and the issues to address, as results."""
    secret = _hidden(gate)
    results: list[dict[str, Any]] = []
    for card in gate.cards:
        if card.problem:
            results.append(
                _result("referee/unreadable_scorecard", "error", card.problem, card.source)
            )
        for problem in _errors(card, secret):
            results.append(
                _result(f"referee/{problem.code}", "error", f"{problem.message}", card.source)
            )
    for run in gate.evaluations:
        for criterion in run.criteria:
            if criterion.pass_ is False and not criterion.holdout:
                text = f"{criterion.id} failed in CI: {criterion.reason or criterion.status}"
                results.append(_result("referee/criterion_failed", "error", text, None))
    if gate.aggregate and gate.aggregate.revision_brief:
        for issue in gate.aggregate.revision_brief.issues_to_address:
            level = _LEVEL.get(issue.severity, "warning")
            results.append(_result("referee/issue", level, issue.text, issue.location))
    rules = sorted({r["ruleId"] for r in results})
    driver = {
        "name": "referee",
        "rules": [{"id": rule} for rule in rules],
    }
    return {
        "version": "2.1.0",
        "$schema": SARIF_SCHEMA,
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }


def gate_json(gate: GateResult) -> dict[str, Any]:
    """The machine-readable result of `referee ci --json`."""
    secret = _hidden(gate)
    return {
        "outcome": gate.outcome,
        "exit_code": gate.exit_code,
        "reason": gate.reason,
        "contract_ref": gate.contract.id,
        "iteration": gate.iteration,
        "runs": [
            {"evaluator": r.evaluator, "run_id": r.run_id, "sandbox": r.sandbox}
            for r in gate.evaluations
        ],
        "scorecards": [
            {
                "source": c.source,
                "evaluator": c.evaluator,
                "iteration": c.iteration,
                "counted": c.counted,
                "valid": c.valid if c.result is not None else False,
                "problem": c.problem,
                "errors": [p.model_dump() for p in _errors(c, secret)],
                "overrides": [p.model_dump() for p in _overrides(c, secret)],
            }
            for c in gate.cards
        ],
        "aggregate": _public_aggregate(gate),
        "notes": gate.notes,
    }


WITHHELD = "concerns a hold-out criterion (details withheld from the pull request)"


def _errors(card: CardOutcome, hidden: tuple[str, ...] = ()) -> list[Problem]:
    """A refused card's errors, with any that would reveal a hold-out reduced to their code."""
    if card.result is None or card.result.valid:
        return []
    return _withheld(card.result.errors, hidden)


def _overrides(card: CardOutcome, hidden: tuple[str, ...] = ()) -> list[Problem]:
    """Every lowered deterministic score and dismissed antipattern of a card checked against CI's
    run, so that a reviewer sees each place where the judgement, not the evidence, decided."""
    if card.result is None:
        return []
    return _withheld([p for p in card.result.warnings if p.code in OVERRIDES], hidden)


def _overrides_section(gate: GateResult, hidden: tuple[str, ...]) -> list[str]:
    lines: list[str] = []
    for card in gate.cards:
        found = _overrides(card, hidden)
        if found:
            lines.append(f"- `{card.source}`")
            lines += [f"  - `{p.code}` at `{p.path or '/'}`: {p.message}" for p in found]
    if not lines:
        return []
    return ["", "### Where the scorecards override referee's evidence", "", *lines]


def _withheld(problems: list[Problem], hidden: tuple[str, ...]) -> list[Problem]:
    return [
        p.model_copy(update={"message": WITHHELD, "path": "/criteria"})
        if any(h in p.message or h in p.path for h in hidden)
        else p
        for p in problems
    ]


def _hidden(gate: GateResult) -> tuple[str, ...]:
    """What a hold-out is recognised by: its criterion ids and texts, its file and test names."""
    found = [
        text for c in gate.contract.all_criteria() if c.holdout for text in (c.id, c.criterion)
    ]
    found += [name for path in gate.holdout_names for name in (path, path.rpartition("/")[2])]
    return tuple(sorted({f for f in found if f}, key=len, reverse=True))


def _public_aggregate(gate: GateResult) -> dict[str, Any] | None:
    """Aggregate's result without what it withheld from the brief (counted instead)."""
    if gate.aggregate is None:
        return None
    body = gate.aggregate.model_dump(mode="json", by_alias=True)
    body["holdout_leaks"] = len(body.get("holdout_leaks") or [])
    hidden = _hidden(gate)
    body["quality_notes"] = [
        WITHHELD if any(h in n for h in hidden) else n for n in body.get("quality_notes") or []
    ]
    return body


def _result(rule: str, level: str, text: str, place: str | None) -> dict[str, Any]:
    found: dict[str, Any] = {"ruleId": rule, "level": level, "message": {"text": text}}
    match = _PLACE.match(place or "")
    if place and match:
        physical: dict[str, Any] = {"artifactLocation": {"uri": match["file"]}}
        if match["line"]:
            physical["region"] = {"startLine": int(match["line"])}
        found["locations"] = [{"physicalLocation": physical}]
    return found
