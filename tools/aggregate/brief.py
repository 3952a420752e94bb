"""The revision brief: every asking evaluator's issues merged into one list for the generator.

The brief goes to the generator, so it is written in the generator's view of the contract:
hold-out criteria never appear (neither in `failed_criteria` nor in an issue that names one), and
an evaluator whose only criteria are hold-outs is not named. Of a hold-out's run the generator
learns one number: how many hidden checks failed (`hidden_checks_failed`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import cast

from referee.tools.aggregate.dedupe import duplicates
from referee.tools.aggregate.holdouts import HoldoutGuard, RawIssue
from referee.tools.aggregate.records import CardRecord
from referee.tools.models.aggregate import BriefIssue, HoldoutLeak, RevisionBrief
from referee.tools.models.common import SEVERITY_ORDER, Severity, Verdict
from referee.tools.models.contract import Contract

DEFERRED: tuple[Severity, ...] = ("LOW",)
_SEVERITIES = tuple(SEVERITY_ORDER)


@dataclass
class MergedIssue:
    """Issues found to be the same, with the most severe report as the representative."""

    members: list[RawIssue] = field(default_factory=list)

    @property
    def lead(self) -> RawIssue:
        return min(self.members, key=lambda i: SEVERITY_ORDER[i.severity])

    def sources(self, order: Sequence[str]) -> list[str]:
        named = {m.evaluator for m in self.members}
        return [e for e in order if e in named] + sorted(named - set(order))

    def matches(self, issue: RawIssue) -> bool:
        return any(
            duplicates(m.location, m.description, issue.location, issue.description)
            for m in self.members
        )


def issues_of(record: CardRecord) -> list[RawIssue]:
    """Return a scorecard's issues, plus its detected antipatterns as HIGH issues.

    An antipattern turns an ACCEPT into a REVISE, so the generator has to hear about it even when
    the evaluator listed no issue for it.
    """
    found = [_issue(record.evaluator, item) for item in _objects(record.body.get("issues"))]
    found += [
        RawIssue(
            record.evaluator,
            "HIGH",
            f"antipattern {item.get('id')}: {item.get('evidence', '')}".strip(),
            _place(item.get("evidence")),
        )
        for item in _objects(record.body.get("antipatterns_detected"))
    ]
    return [i for i in found if i is not None]


# referee writes an antipattern's evidence as "… at file:line": two of one kind at different
# places (two tests deleted) are two issues, not duplicates of one.
_AT_PLACE = re.compile(r"\bat (\S+:\d+)\s*$")


def _place(evidence: object) -> str | None:
    match = _AT_PLACE.search(evidence) if isinstance(evidence, str) else None
    return match.group(1) if match else None


def _objects(value: object) -> list[dict[str, object]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _issue(evaluator: str, item: dict[str, object]) -> RawIssue | None:
    severity, description = item.get("severity"), item.get("description")
    if severity not in _SEVERITIES or not isinstance(description, str) or not description.strip():
        return None
    location, suggestion = item.get("location"), item.get("suggestion")
    cited = item.get("evidence_ids")
    return RawIssue(
        evaluator,
        cast(Severity, severity),
        description.strip(),
        location if isinstance(location, str) else None,
        suggestion if isinstance(suggestion, str) and suggestion.strip() else None,
        tuple(e for e in cited if isinstance(e, str)) if isinstance(cited, list) else (),
    )


def merge(issues: Iterable[RawIssue]) -> list[MergedIssue]:
    """Group duplicate issues (single linkage: a match with any member joins the group).

    Args:
        issues: Issues in reporting order (evaluators in contract order).

    Returns:
        The groups, ordered CRITICAL > HIGH > MEDIUM > LOW, first reported first within a severity.
    """
    groups: list[MergedIssue] = []
    for issue in issues:
        group = next((g for g in groups if g.matches(issue)), None)
        if group is None:
            groups.append(MergedIssue([issue]))
        else:
            group.members.append(issue)
    return sorted(groups, key=lambda g: SEVERITY_ORDER[g.lead.severity])


def brief_issue(group: MergedIssue, order: Sequence[str]) -> BriefIssue:
    """Render a group as the brief shows it: the highest severity and every source evaluator."""
    lead, sources = group.lead, group.sources(order)
    suggestion = lead.suggestion or next(
        (m.suggestion for m in group.members if m.suggestion), None
    )
    return BriefIssue(
        severity=lead.severity,
        description=lead.description,
        location=lead.location,
        suggestion=suggestion,
        sources=sources,
        text=f"[{lead.severity}] {lead.description} (from {', '.join(sources)})",
    )


def _failed(records: Iterable[CardRecord]) -> set[str]:
    return {
        str(c.get("id"))
        for r in records
        for c in _objects(r.body.get("criteria"))
        if c.get("pass") is False
    }


def failed_visible_criteria(
    records: Iterable[CardRecord], contract: Contract, guard: HoldoutGuard
) -> list[str]:
    """Return the ids of failed criteria the generator may see, in contract order."""
    failed = _failed(records)
    return [c.id for c in contract.all_criteria() if c.id in failed and c.id not in guard.ids]


def hidden_checks_text(count: int) -> str:
    """What the generator is told of failed hold-outs: how many, nothing else."""
    checks = "check" if count == 1 else "checks"
    return (
        f"{count} hidden {checks} failed: referee also judges the work with checks you are not"
        " shown; make the contract hold in general, not only for the visible tests"
    )


def build_brief(
    contract: Contract,
    iteration: int,
    records: Sequence[CardRecord],
    verdicts: dict[str, Verdict],
    asking: Sequence[str],
    guard: HoldoutGuard,
) -> tuple[RevisionBrief, list[HoldoutLeak]]:
    """Compile the revision brief for the next iteration.

    Args:
        contract: The contract (evaluator view; the brief is reduced to the generator's view).
        iteration: The iteration the brief is about (N); it is for N + 1.
        records: The iteration's scorecards.
        verdicts: Every evaluator's verdict.
        asking: The evaluators whose issues go into the brief (REVISE, and BLOCK when escalating).
        guard: What reveals a hold-out (holdouts.py).

    Returns:
        The brief (issues to address and deferred LOW ones, verdicts, failed visible criteria),
        and the issues withheld because they would reveal a hold-out.
    """
    order = [e for e in contract.evaluators if e in asking]
    raw = [i for name in order for r in records if r.evaluator == name for i in issues_of(r)]
    leaks = [
        _leak(i, why)
        for i in raw
        if (why := guard.leak(i)) and i.evaluator in guard.visible_evaluators
    ]
    groups = merge(i for i in raw if not guard.hides(i))
    rendered = [brief_issue(g, contract.evaluators) for g in groups]
    return RevisionBrief(
        contract_ref=contract.id,
        iteration_from=iteration,
        iteration_to=iteration + 1,
        issues_to_address=[i for i in rendered if i.severity not in DEFERRED],
        issues_deferred=[i for i in rendered if i.severity in DEFERRED],
        evaluator_verdicts={e: v for e, v in verdicts.items() if e in guard.visible_evaluators},
        failed_criteria=failed_visible_criteria(records, contract, guard),
        hidden_checks_failed=len(_failed(records) & guard.ids),
    ), leaks


def _leak(issue: RawIssue, why: str) -> HoldoutLeak:
    return HoldoutLeak(
        evaluator=issue.evaluator, severity=issue.severity, description=issue.description, why=why
    )
