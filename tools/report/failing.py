"""What failed in the latest iteration: the report's first section after the summary.

A developer opens a report to learn what to fix, so every failing criterion is listed here, none
behind a "more" line: its reason in full (line breaks kept), the check's own command as the
contract states it (not the wrapper referee ran it through), and the evidence to open.
"""

from __future__ import annotations

import shlex

from pydantic import Field

from referee.tools.models.browser import BrowserCheck
from referee.tools.models.checks import CommandCheck, StaticCheck, TestsCheck
from referee.tools.models.common import Model
from referee.tools.models.contract import Criterion
from referee.tools.models.evaluation import CriterionResult
from referee.tools.report.data import ReportData
from referee.tools.report.select import active, latest_iteration, runs_at
from referee.tools.text import counted

REASON_LIMIT = 8000


class FailingRow(Model):
    """One criterion that did not pass in the latest iteration."""

    id: str
    holdout: bool = False
    criterion: str = Field(description="What must hold, as the contract says")
    status: str = Field(description="referee's check status, or 'card' when only a card failed it")
    reason_code: str | None = None
    reason: str = Field(description="The check's reason in full, line breaks kept")
    command: str = Field(description="The check's own command, as the contract states it")
    evidence_ids: list[str] = Field(default_factory=list)
    run_id: str | None = None


def failing(data: ReportData) -> list[FailingRow]:
    """Every criterion of the latest iteration that referee's check or an active card failed."""
    iteration = latest_iteration(data)
    if iteration is None:
        return []
    results: dict[str, tuple[str, CriterionResult]] = {}
    for run in runs_at(data, iteration):
        for checked in run.criteria:
            results[checked.id] = (run.run_id, checked)
    card_fails = _card_failures(data, iteration)
    rows = []
    for c in data.contract.all_criteria():
        found = results.get(c.id)
        run_id, result = found if found else (None, None)
        if result is not None and result.pass_ is False:
            rows.append(_row(c, result.status, result, run_id))
        elif c.id in card_fails:
            rows.append(_row(c, "card", None, run_id, card_fails[c.id]))
    return rows


def _row(
    c: Criterion,
    status: str,
    result: CriterionResult | None,
    run_id: str | None,
    card_reason: str = "",
) -> FailingRow:
    reason = result.reason if result is not None else f"an evaluator's card: {card_reason}"
    return FailingRow(
        id=c.id,
        holdout=c.holdout,
        criterion=c.criterion,
        status=status,
        reason_code=result.reason_code if result is not None else None,
        reason=_bounded(reason or (result.evidence if result else "") or "no reason recorded"),
        command=check_command(c),
        evidence_ids=list(result.evidence_ids) if result is not None else [],
        run_id=run_id,
    )


def _card_failures(data: ReportData, iteration: int) -> dict[str, str]:
    """Criterion id → the evidence of an active card that marked it failed."""
    found: dict[str, str] = {}
    for card in active(data, iteration=iteration):
        for verdict in card.body.get("criteria") or []:
            if isinstance(verdict, dict) and verdict.get("pass") is False:
                text = f"{card.evaluator}: {verdict.get('evidence') or 'no evidence given'}"
                found.setdefault(str(verdict.get("id")), text)
    return found


def check_command(c: Criterion) -> str:
    """The command a developer runs to see the check for themselves ('' when it has none)."""
    check = c.check
    if isinstance(check, TestsCheck | CommandCheck):
        line = " ".join(check.argv) if check.shell else shlex.join(check.argv)
        return f"cd {shlex.quote(check.cwd)} && {line}" if check.cwd else line
    if isinstance(check, BrowserCheck):
        steps, expect = counted(len(check.steps), "step"), counted(len(check.expect), "expectation")
        return f"browser check of {check.url} ({steps}, {expect})"
    if isinstance(check, StaticCheck):
        return f"static rule {check.rule}"
    return ""


def _bounded(text: str) -> str:
    if len(text) <= REASON_LIMIT:
        return text
    return text[:REASON_LIMIT] + f"\n… ({len(text) - REASON_LIMIT} more characters in the evidence)"
