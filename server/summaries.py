"""The text content of each tool's result: a few readable lines, never a copy of the structure.

Structured content carries every field; this text is what a person (or a client that shows text)
reads: verdicts, what failed, the next step and the resource URIs. It stays under `TEXT_LIMIT`
bytes, and every list it cuts says how many items it left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from referee.tools.aggregate import hidden_checks_text
from referee.tools.calibration import Agreement, CalibrationRecord, CalibrationReport
from referee.tools.errors import Problem
from referee.tools.models import (
    AddHoldoutFilesResult,
    AggregateResult,
    Budget,
    CreateContractResult,
    Evaluation,
    IterationCost,
    JudgeReliability,
    Rate,
    StrategicAssessment,
    ValidationResult,
)
from referee.tools.text import counted

__all__ = [
    "TEXT_LIMIT",
    "aggregate",
    "calibration",
    "contract_created",
    "contract_document",
    "evaluation",
    "holdouts_added",
    "human_verdict",
    "validation",
]

TEXT_LIMIT = 2048
_SHOWN = 5


def fit(lines: Iterable[str], limit: int = TEXT_LIMIT) -> str:
    """Join lines, dropping the last ones (and saying so) when the text would exceed `limit`."""
    kept: list[str] = []
    all_lines = list(lines)
    used = 0
    for index, line in enumerate(all_lines):
        line = line if len(line) <= 300 else line[:299] + "…"
        cost = len(line.encode("utf-8")) + 1
        tail = f"… {counted(len(all_lines) - index, 'more line')} in the structured content"
        if used + cost + len(tail.encode("utf-8")) > limit and index < len(all_lines) - 1:
            kept.append(tail)
            break
        kept.append(line)
        used += cost
    return "\n".join(kept)


def listed(items: Sequence[str], shown: int = _SHOWN, indent: str = "  ") -> list[str]:
    """Up to `shown` items, one a line, then "N more" for the rest."""
    lines = [f"{indent}{item}" for item in items[:shown]]
    if len(items) > shown:
        lines.append(f"{indent}… {len(items) - shown} more")
    return lines


def joined(items: Sequence[str], shown: int = 8) -> str:
    """Items on one line, then "(N more)"."""
    text = ", ".join(items[:shown])
    return text + (f" (+{len(items) - shown} more)" if len(items) > shown else "")


def contract_created(result: CreateContractResult) -> str:
    contract = result.contract
    criteria = contract.all_criteria()
    hidden = sum(1 for c in criteria if c.holdout)
    lines = [
        f"created {contract.id}: rubric {contract.rubric_ref} {contract.rubric_version},"
        f" evaluators {', '.join(contract.evaluators)}, {len(criteria)} criteria"
        f" ({hidden} hold-out), at most {contract.max_iterations} iterations",
        *_problems("warnings", result.warnings),
        f"next: hand the generator view (contract://{contract.id}/generator, never the evaluator"
        " view) to the generator; when it is done, call evaluate for each evaluator",
    ]
    return fit(lines)


def contract_document(doc: dict[str, Any]) -> str:
    criteria = [
        c
        for group in ("functional", "quality")
        for c in (doc.get("acceptance_criteria") or {}).get(group, [])
    ]
    ids = [f"{c.get('id')} ({c.get('verification_method')})" for c in criteria]
    # The evaluator view keeps each criterion's `holdout` key; the generator view drops it.
    evaluator_view = any("holdout" in c for c in criteria)
    uri = f"contract://{doc.get('id')}" + ("" if evaluator_view else "/generator")
    lines = [
        f"{doc.get('id')}: {doc.get('goal')}",
        f"rubric {doc.get('rubric_ref')}; evaluators {', '.join(doc.get('evaluators', []))};"
        f" max {doc.get('max_iterations')} iterations",
        f"criteria: {joined(ids)}",
        f"{'evaluator' if evaluator_view else 'generator'} view: {uri} (schema://contract)",
    ]
    return fit(lines)


def evaluation(result: Evaluation | StrategicAssessment) -> str:
    if isinstance(result, StrategicAssessment):
        return strategic(result)
    ev = result
    who = f" · evaluator {ev.evaluator}" if ev.evaluator else ""
    lines = [
        f"{ev.contract_ref} iteration {ev.iteration}{who} · run {ev.run_id}"
        f" · tree {ev.target.tree[:12]} · {ev.scope} scope · sandbox {ev.sandbox}",
        _criteria_line(ev),
        *listed([_failed(c) for c in ev.criteria if c.status != "pass" and c.pass_ is not None]),
    ]
    if ev.antipatterns:
        lines.append(f"antipatterns: {joined([a.id for a in ev.antipatterns])}")
    if ev.issues:
        lines.append(f"issues: {_severities([i.severity for i in ev.issues])}")
        lines += listed([f"{i.severity} {i.location or '-'} {i.description}" for i in ev.issues], 3)
    if ev.project_health is not None:
        health = ev.project_health
        lines.append(f"PROJECT_HEALTH {health.band} ({health.composite:.2f})")
    lines.append("dimensions: " + _dimensions(ev))
    lines += _judgement(ev)
    lines += [f"warning: {w}" for w in ev.warnings[:2]]
    if ev.omitted:
        lines.append(f"cut to fit: {joined(ev.omitted, 3)}")
    lines.append(f"resources: {_uris(ev)}")
    return fit(lines)


def _criteria_line(ev: Evaluation) -> str:
    counts = {"pass": 0, "fail": 0, "unscored": 0}
    for c in ev.criteria:
        counts[c.status] += 1
    judged = sum(1 for c in ev.criteria if c.pass_ is None)
    return (
        f"criteria: {counts['pass']} pass, {counts['fail']} fail,"
        f" {counts['unscored'] - judged} could not run, {judged} need judgement"
    )


def _failed(c: Any) -> str:
    mark = "FAIL" if c.status == "fail" else "UNSCORED"
    ids = f" [{', '.join(c.evidence_ids[:3])}]" if c.evidence_ids else ""
    return f"{mark} {c.id}: {c.reason}{ids}"


def _severities(values: Sequence[str]) -> str:
    order = ("CRITICAL", "HIGH", "MEDIUM", "LOW")
    return ", ".join(f"{values.count(s)} {s}" for s in order if s in values)


def _dimensions(ev: Evaluation) -> str:
    parts = [
        f"{key} {'?' if d.score is None else f'{d.score:g}'}" for key, d in ev.dimensions.items()
    ]
    return joined(parts, 10)


def _judgement(ev: Evaluation) -> list[str]:
    needs = ev.needs_judgment
    if not needs.criteria and not needs.dimensions:
        verdict = f"verdict {ev.verdict} ({ev.weighted_score})" if ev.verdict else "no verdict"
        return [f"{verdict}; next: validate_scorecard with draft_scorecard"]
    return [
        f"needs judgement: criteria {joined(needs.criteria) or '-'};"
        f" dimensions {joined(needs.dimensions) or '-'}",
        f"next: judge those with the evaluator prompt ({ev.prompt}), complete draft_scorecard"
        " (keep run_id and signature) and call validate_scorecard",
    ]


def _uris(ev: Evaluation) -> str:
    uris = [ev.report, f"evidence://{ev.run_id}/{{E1…E{len(ev.evidence)}}}"]
    if ev.prior_scorecard:
        uris.append(f"{ev.prior_scorecard} (your prior scorecard)")
    return " · ".join(uris)


def strategic(result: StrategicAssessment) -> str:
    lines = [
        f"{result.contract_ref}: strategic view of {counted(len(result.iterations), 'iteration')}"
        f" ({counted(result.evaluations, 'stored evaluation')}); no checks were run",
        *[f"note: {n}" for n in result.notes],
        "trends: " + joined([f"{t.dimension} {t.direction}" for t in result.trends], 10),
    ]
    if result.regression_risks:
        lines.append("regression risks:")
        lines += listed([r.message for r in result.regression_risks], 3)
    if result.saturation:
        names = [s.dimension for s in result.saturation]
        lines.append(f"saturated (ask for harder criteria): {joined(names)}")
    if result.priorities:
        lines.append("improvement priorities:")
        lines += listed(
            [
                f"{p.priority:.3f} {p.dimension} ({p.score:g}/{p.max:g}): {p.recommendation}"
                for p in result.priorities
            ],
            3,
        )
    lines.append(f"report: report://{result.contract_ref}")
    return fit(lines)


def validation(result: ValidationResult) -> str:
    computed = result.computed
    head = ["valid" if result.valid else f"INVALID ({counted(len(result.errors), 'error')})"]
    if computed.verdict:
        head.append(f"verdict {computed.verdict}")
    if computed.weighted_score is not None:
        head.append(f"weighted {computed.weighted_score:g} ({computed.normalized:g}/100)")
    if result.stored:
        head.append(f"stored as scorecard://{result.scorecard_id}")
    lines = [
        f"{result.evaluator or 'scorecard'} iteration {result.iteration or '?'}: "
        + " · ".join(head),
        *_problems("errors", result.errors),
        *_problems("warnings", result.warnings),
    ]
    if not result.valid:
        lines.append("next: fix every error listed and call validate_scorecard again")
    elif result.stored and result.contract_ref:
        lines.append(
            f"next: once every evaluator's scorecard is stored, aggregate {result.contract_ref}"
        )
    return fit(lines)


def _problems(title: str, problems: Sequence[Problem]) -> list[str]:
    if not problems:
        return []
    return [
        f"{title}:",
        *listed([f"{p.path or '/'} [{p.code}] {p.message}" for p in problems], 6),
    ]


def aggregate(result: AggregateResult) -> str:
    verdicts = " · ".join(f"{name} {v}" for name, v in result.evaluator_verdicts.items())
    lines = [
        f"{result.contract_ref} iteration {result.iteration}: {result.decision} — {result.reason}",
        f"verdicts: {verdicts or '-'}"
        + (
            f"; missing: {', '.join(result.missing_evaluators)}"
            if result.missing_evaluators
            else ""
        ),
    ]
    if result.scores.normalized is not None:
        lines.append(f"score: {result.scores.normalized:g}/100")
    brief = result.revision_brief
    if brief is not None:
        lines.append(
            f"revision brief: {counted(len(brief.issues_to_address), 'issue')} to address,"
            f" {len(brief.issues_deferred)} deferred"
        )
        lines += listed([i.text for i in brief.issues_to_address], 4)
        if brief.failed_criteria:
            lines.append(f"  failed criteria: {joined(brief.failed_criteria)}")
        if brief.hidden_checks_failed:
            lines.append(f"  {hidden_checks_text(brief.hidden_checks_failed)}")
    if result.escalation is not None:
        lines.append("escalation:")
        lines += listed(result.escalation.reasons, 3)
    if result.holdout_leaks:
        lines.append(
            f"withheld from the brief (would reveal a hold-out; for you, never the generator):"
            f" {counted(len(result.holdout_leaks), 'issue')}"
        )
    lines += [f"alert {a.kind}: {a.message}" for a in result.alerts[:3]]
    if len(result.alerts) > 3:
        lines.append(f"… {counted(len(result.alerts) - 3, 'more alert')}")
    lines += budget_lines(result.budget)[-3:]
    lines.append("next: " + _next_step(result))
    return fit(lines)


def budget_lines(budget: Budget | None) -> list[str]:
    """The cost per iteration, the loop's total, the solo baseline and the overhead note."""
    if budget is None:
        return []
    lines = [f"iteration {c.iteration}: {_cost(c)}" for c in budget.iterations]
    if budget.total is not None:
        lines.append(f"loop total: {_cost(budget.total)}")
    if budget.solo:
        lines.append(budget.solo)
    if budget.note:
        lines.append(f"note: {budget.note}")
    return lines


def _cost(c: IterationCost) -> str:
    generator = f", generator {c.generator_s:g}" if c.generator_s is not None else ""
    parts = [f"{c.wall_s:g} s (checks {c.checks_s:g}, judging {c.judging_s:g}{generator})"]
    if c.tokens is not None:
        parts.append(f"{c.tokens:,} tokens")
    if c.cost_usd is not None:
        parts.append(f"${c.cost_usd:.2f}")
    return ", ".join(parts)


def _next_step(result: AggregateResult) -> str:
    if result.decision == "DELIVER":
        restore = f"; restore its content with `{result.checkout}`" if result.checkout else ""
        return f"deliver iteration {result.delivered_iteration}{restore}"
    if result.decision == "REVISE":
        return (
            "hand the revision brief to the generator (prompt generator_brief), then evaluate"
            f" iteration {result.iteration + 1}"
        )
    if result.decision == "PENDING":
        return f"evaluate and validate the scorecards of {', '.join(result.missing_evaluators)}"
    return "a person decides: present the escalation reasons (report://" + result.contract_ref + ")"


def holdouts_added(result: AddHoldoutFilesResult) -> str:
    lines = [
        f"{result.contract_id}: {counted(result.stored, 'hold-out file')} stored outside the"
        " repository",
        *listed(
            [f"{f.path} ({f.size} bytes, {f.criterion or 'every hold-out'})" for f in result.files]
        ),
        *_problems("warnings", result.warnings),
    ]
    return fit(lines)


def human_verdict(record: CalibrationRecord) -> str:
    agreement = {True: "agrees", False: "disagrees", None: "no evaluator verdict"}[record.agrees]
    return (
        f"recorded #{record.id}: human {record.human_verdict}, {record.evaluator}"
        f" {record.evaluator_verdict or '-'} ({agreement}) on scorecard://{record.scorecard_id}"
    )


def calibration(report: CalibrationReport) -> str:
    if report.overall is None:
        lines = ["no human verdict is logged yet (record_human_verdict)"]
    else:
        lines = [f"overall: {_agreement(report.overall)}"]
        lines += listed(
            [f"prompt {v.evaluator_prompt_version}: {_agreement(v)}" for v in report.versions],
            5,
            "",
        )
    return fit([*lines, *judge_lines(report.judges)])


def judge_lines(judges: Sequence[JudgeReliability]) -> list[str]:
    """One line per judge: recall, stability and human agreement, each with its cases."""
    lines = []
    for j in judges:
        parts = [
            _rated("canary recall", j.canary),
            _rated("stability", j.stability)
            + (
                f" comparisons ({counted(j.stability.pairs, 'tree')} re-judged)"
                if j.stability
                else ""
            ),
            _rated("human agreement", j.human),
        ]
        kinds = ", ".join(
            f"{k} {_share(r)}" for k, r in (j.canary.by_kind if j.canary else {}).items()
        )
        head = f"judge {j.evaluator} ({j.evaluator_model}, prompt {j.evaluator_prompt_version}): "
        lines.append(head + "; ".join(p for p in parts if p) + (f" [{kinds}]" if kinds else ""))
        if j.flagged:
            lines.append(f"  FLAGGED: {j.flagged}")
    return lines


def _share(rate: Rate) -> str:
    shown = "n/a" if rate.rate is None else f"{rate.rate:.0%}"
    return f"{shown} of {rate.cases}"


def _rated(name: str, rate: Rate | None) -> str:
    return f"{name} {_share(rate)}" if rate is not None else ""


def _agreement(a: Agreement) -> str:
    kappa = f"kappa {a.kappa:g}" if a.kappa is not None else "kappa n/a"
    return f"{counted(a.count, 'verdict')}, agreement {a.agreement_rate:.0%}, {kappa}"
