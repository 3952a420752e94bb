"""Report sections over the record: ranked findings, criteria per iteration, trends, evidence,
calibration."""

from __future__ import annotations

import re
import shlex
from typing import Any

from pydantic import Field

from referee.tools.models.common import SEVERITY_ORDER, Model
from referee.tools.models.evaluation import Evaluation
from referee.tools.report.data import ReportData, ScorecardEntry
from referee.tools.report.failing import check_command
from referee.tools.report.select import (
    active,
    card_normalized,
    clip,
    iterations,
    latest_iteration,
    mean,
    runs_at,
    scale_max,
)

SPARK = "▁▂▃▄▅▆▇█"
BROWSER_SHOWN = 12
MESSAGE_LIMIT = 8000
_RULE = re.compile(r"^\[(?P<rule>[\w-]+)\]\s*")
_ISSUE_RULES = (
    ("criterion", "criterion"),
    ("regression", "regression"),
    ("test tampering", "tampering"),
    ("running the checks wrote", "tree_changed"),
)


class FindingRow(Model):
    severity: str
    rule: str
    location: str
    message: str
    sources: list[str] = Field(description="referee and/or the evaluators that reported it")


class CriterionRow(Model):
    id: str
    evaluator: str
    method: str
    holdout: bool
    criterion: str
    cells: dict[int, str] = Field(description="Iteration → 'referee check / evaluator card' status")


class Trend(Model):
    label: str
    values: list[float | None]
    spark: str


class Trends(Model):
    iterations: list[int]
    overall: Trend
    dimensions: list[Trend]
    health: Trend | None = None


class EvidenceRow(Model):
    run_id: str
    id: str
    tool: str
    command: str
    exit_code: int | None
    summary: str


class BrowserRow(Model):
    """One browser criterion's check: its verdict, its steps, what failed, and what it showed."""

    run_id: str
    evidence_id: str
    criterion: str = Field(description="Criterion id and what must hold")
    status: str
    reason: str
    steps: list[str]
    failing: list[str] = Field(description="Failing expectations, numbered as the contract has")
    warnings: list[str] = Field(default_factory=list)
    messages: list[str] = Field(
        default_factory=list,
        description="Playwright's messages of the failing steps and expectations, verbatim",
    )
    failed: bool = False
    command: str = Field(default="", description="The check as the contract states it")
    screenshot: str | None = None
    trace: str | None = None


class CalibrationRow(Model):
    scorecard_id: int
    evaluator: str
    iteration: int | None
    prompt_version: str | None
    card_verdict: str | None
    human_verdict: str
    agrees: bool | None
    note: str


def findings(data: ReportData) -> list[FindingRow]:
    """Static findings and issues of the latest iteration's runs and scorecards, merged and ranked.

    The same problem reported twice (same location, same message once a `[rule]` prefix is dropped)
    is one row with the highest severity and every source.
    """
    iteration = latest_iteration(data)
    merged: dict[tuple[str, str], FindingRow] = {}
    for row in _run_rows(runs_at(data, iteration)) + _card_rows(active(data, iteration=iteration)):
        key = (row.location, _normal(row.message))
        merged[key] = _merge(merged[key], row) if key in merged else row
    return sorted(
        merged.values(),
        key=lambda r: (SEVERITY_ORDER.get(r.severity, 9), -len(r.sources), r.location),
    )


def baseline(data: ReportData) -> dict[str, int]:
    """Findings of the latest iteration's task-scope runs that predate the change, per rule (the
    most a run saw: evaluators' runs of one tree see the same)."""
    counts: dict[str, int] = {}
    for run in runs_at(data, latest_iteration(data)):
        for rule, n in (run.baseline_findings.by_rule if run.baseline_findings else {}).items():
            counts[rule] = max(counts.get(rule, 0), n)
    return dict(sorted(counts.items()))


def _run_rows(runs: list[Evaluation]) -> list[FindingRow]:
    rows = [
        FindingRow(
            severity=f.severity,
            rule=f.rule,
            location=f.location,
            message=f.message,
            sources=["referee"],
        )
        for run in runs
        for f in run.findings
    ]
    for run in runs:
        rows += [
            FindingRow(
                severity=i.severity,
                rule=_issue_rule(i.description),
                location=i.location or "",
                message=_RULE.sub("", i.description),
                sources=["referee"],
            )
            for i in run.issues
        ]
    return rows


def _card_rows(cards: list[ScorecardEntry]) -> list[FindingRow]:
    rows = []
    for card in cards:
        for issue in card.body.get("issues") or []:
            if isinstance(issue, dict) and issue.get("description"):
                rows.append(
                    FindingRow(
                        severity=str(issue.get("severity", "LOW")),
                        rule="judgment",
                        location=str(issue.get("location") or ""),
                        message=str(issue["description"]),
                        sources=[card.evaluator],
                    )
                )
    return rows


def _issue_rule(description: str) -> str:
    if match := _RULE.match(description):
        return match["rule"]
    text = description.lower()
    return next((rule for start, rule in _ISSUE_RULES if text.startswith(start)), "issue")


def _normal(message: str) -> str:
    return " ".join(_RULE.sub("", message).lower().split()).rstrip(".")


def _merge(kept: FindingRow, new: FindingRow) -> FindingRow:
    worse = (
        new if SEVERITY_ORDER.get(new.severity, 9) < SEVERITY_ORDER.get(kept.severity, 9) else kept
    )
    rule = kept.rule if kept.rule not in ("issue", "judgment") else new.rule
    return worse.model_copy(
        update={"rule": rule, "sources": list(dict.fromkeys(kept.sources + new.sources))}
    )


def criteria(data: ReportData) -> list[CriterionRow]:
    """Every criterion (hold-outs marked) with its status per iteration: referee's check / the
    evaluator's card."""
    rows = []
    for c in data.contract.all_criteria():
        cells = {
            i: f"{_run_status(data, c.id, i)} / {_card_status(data, c.id, c.evaluator, i)}"
            for i in iterations(data)
        }
        rows.append(
            CriterionRow(
                id=c.id,
                evaluator=c.evaluator,
                method=c.verification_method,
                holdout=c.holdout,
                criterion=clip(c.criterion, 120),
                cells=cells,
            )
        )
    return rows


def _run_status(data: ReportData, criterion_id: str, iteration: int) -> str:
    found = [c for r in runs_at(data, iteration) for c in r.criteria if c.id == criterion_id]
    if not found:
        return "—"
    last = found[-1]
    return "unjudged" if last.pass_ is None else last.status


def _card_status(data: ReportData, criterion_id: str, evaluator: str, iteration: int) -> str:
    for card in active(data, iteration=iteration):
        verdicts = [
            v
            for v in card.body.get("criteria") or []
            if isinstance(v, dict) and v.get("id") == criterion_id
        ]
        if verdicts and (card.evaluator == evaluator or len(data.contract.evaluators) == 1):
            return "pass" if verdicts[0].get("pass") else "fail"
    return "—"


def trends(data: ReportData) -> Trends:
    """Per iteration: the mean normalized score (0–100), each dimension's mean score and
    PROJECT_HEALTH."""
    its, top = iterations(data), scale_max(data)
    overall = [_overall(data, i) for i in its]
    keys = [d.key for d in data.rubric.dimensions] if data.rubric else []
    dims = [_series(key, [_dimension_mean(data, key, i) for i in its], top) for key in keys]
    health = [
        mean([r.project_health.composite for r in runs_at(data, i) if r.project_health])
        for i in its
    ]
    return Trends(
        iterations=its,
        overall=_series("normalized score", overall, 100.0),
        dimensions=dims,
        health=(
            _series("PROJECT_HEALTH", health, 1.0) if any(v is not None for v in health) else None
        ),
    )


def _overall(data: ReportData, iteration: int) -> float | None:
    cards = [n for c in active(data, iteration=iteration) if (n := card_normalized(c)) is not None]
    if cards:
        return mean(cards)
    top = scale_max(data)
    return mean(
        [
            r.weighted_score / top * 100
            for r in runs_at(data, iteration)
            if r.weighted_score is not None
        ]
    )


def _dimension_mean(data: ReportData, key: str, iteration: int) -> float | None:
    cards = [c.dimensions[key] for c in active(data, iteration=iteration) if key in c.dimensions]
    if cards:
        return mean(cards)
    derived = [r.dimensions[key].score for r in runs_at(data, iteration) if key in r.dimensions]
    return mean([s for s in derived if s is not None])


def _series(label: str, values: list[float | None], top: float) -> Trend:
    return Trend(label=label, values=values, spark=sparkline(values, top))


def sparkline(values: list[float | None], top: float) -> str:
    """One block character per value, scaled from 0 to `top`; · where there is no value."""
    out = []
    for value in values:
        if value is None or top <= 0:
            out.append("·")
            continue
        share = min(max(value / top, 0.0), 1.0)
        out.append(SPARK[round(share * (len(SPARK) - 1))])
    return "".join(out)


def evidence(data: ReportData) -> list[EvidenceRow]:
    """Every evidence item of every run in the report, in run order.

    A run of a criterion's check shows the check's own command, as the contract states it: what
    referee wrapped it in (its coverage shim, the sandbox's scratch paths) is not what a developer
    types to see the failure again."""
    return [
        EvidenceRow(
            run_id=r.run_id,
            id=e.id,
            tool=e.tool,
            command=_check_commands(data, r).get(e.id) or " ".join(e.command.split()),
            exit_code=e.exit_code,
            summary=clip(e.summary, 140),
        )
        for r in data.runs
        for e in r.evidence
    ]


def _check_commands(data: ReportData, run: Evaluation) -> dict[str, str]:
    """Evidence id → the contract's command of the criterion whose check it ran."""
    tools = {e.id: e.tool for e in run.evidence}
    found: dict[str, str] = {}
    serve = data.contract.serve
    if serve is not None:
        found.update({e: shlex.join(serve.argv) for e, tool in tools.items() if tool == "serve"})
    cited = {eid: result.id for result in run.criteria for eid in result.evidence_ids}
    for eid, tool in tools.items():
        owner = cited.get(eid) or data.evidence_criteria.get(f"{run.run_id}/{eid}")
        crit = data.contract.criterion(owner) if owner else None
        command = check_command(crit) if crit else ""
        if command and tool in ("tests", "command"):
            found.setdefault(eid, command)
    return found


def browser_checks(data: ReportData) -> list[BrowserRow]:
    """Browser checks of the latest iteration (newest first), each with its screenshot next to
    its steps and its failing expectations (the pages show the first BROWSER_SHOWN)."""
    latest = latest_iteration(data)
    rows = []
    for b in reversed(data.browser):
        if latest is not None and b.iteration != latest:
            continue
        crit = data.contract.criterion(b.criterion_id or "")
        outcome = b.outcome
        status = str(outcome.get("status", ""))
        rows.append(
            BrowserRow(
                run_id=b.run_id,
                evidence_id=b.evidence_id,
                criterion=f"{b.criterion_id}: {clip(crit.criterion, 120)}"
                if crit
                else b.evidence_id,
                status=status,
                reason=clip(str(outcome.get("reason") or b.summary), 1500),
                steps=[_step_line(s) for s in outcome.get("steps", [])],
                failing=[
                    _expectation_line(e) for e in outcome.get("expectations", []) if not e.get("ok")
                ],
                warnings=[
                    _expectation_line(e, e["warning"])
                    for e in outcome.get("expectations", [])
                    if e.get("warning")
                ],
                messages=_messages(outcome),
                failed=status != "pass",
                command=check_command(crit) if crit else "",
                screenshot=b.screenshot,
                trace=b.trace,
            )
        )
    # Failing checks first, each of them shown; passing ones after.
    return sorted(rows, key=lambda r: not r.failed)


def _messages(outcome: dict[str, Any]) -> list[str]:
    """Playwright's messages of every failing step and expectation, verbatim: its call logs are
    nested and repeat lines on purpose ("retrying click action" per attempt)."""
    found = [
        str(s.get("message") or s["error"])
        for s in outcome.get("steps", [])
        if not s.get("ok") and (s.get("message") or s.get("error"))
    ]
    found += [
        str(e.get("message") or e["detail"])
        for e in outcome.get("expectations", [])
        if not e.get("ok") and (e.get("message") or _longer_than_a_line(str(e.get("detail") or "")))
    ]
    return [m[:MESSAGE_LIMIT] for m in found]


def _longer_than_a_line(text: str) -> bool:
    # A one-line detail is already in its expectation's line; longer ones are shown whole.
    return "\n" in text or len(text) > 200


def _step_line(step: dict[str, Any]) -> str:
    phase, number = step.get("phase", "step"), step.get("number", 0)
    label = "open" if phase == "open" else f"{'setup ' if phase == 'setup' else ''}{number}"
    mark = "ok" if step.get("ok") else "FAILED"
    error = str(step.get("error") or "").split("\n", 1)[0]
    return clip(f"{label}. {step.get('action')} {step.get('target')}: {mark} {error}".rstrip(), 300)


def _expectation_line(exp: dict[str, Any], text: str | None = None) -> str:
    detail = str(text if text is not None else exp.get("detail") or "").split("\n", 1)[0]
    return clip(f"{exp.get('number')}. {exp.get('type')} {exp.get('target')}: {detail}", 300)


def calibration(data: ReportData) -> list[CalibrationRow]:
    """Human verdicts on stored scorecards, with whether the scorecard agreed."""
    cards = {c.id: c for c in data.scorecards}
    rows = []
    for entry in data.calibration:
        card = cards.get(entry.scorecard_id)
        verdict = card.verdict if card else None
        rows.append(
            CalibrationRow(
                scorecard_id=entry.scorecard_id,
                evaluator=card.evaluator if card else "?",
                iteration=card.iteration if card else None,
                prompt_version=card.evaluator_prompt_version if card else None,
                card_verdict=verdict,
                human_verdict=entry.verdict,
                agrees=None if verdict is None else verdict.upper() == entry.verdict.upper(),
                note=entry.note,
            )
        )
    return rows
