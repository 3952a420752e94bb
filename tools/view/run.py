"""A run's page (criteria failing first, per-test outcomes, logs with the failing test's lines in
view) and a scorecard's page (beside the draft referee derived for it).

Every text shown passes through the report's Places: no machine path, temp folder or sandbox
wrapper reaches the page; a criterion's command is the check's own (`check_command`), never the
argv referee ran it through.
"""

from __future__ import annotations

from typing import Any

from referee.tools.calibration import CalibrationRecord
from referee.tools.errors import NotFound
from referee.tools.models.contract import Contract
from referee.tools.models.evaluation import CriterionResult, Evaluation
from referee.tools.models.evidence import EvidenceItem
from referee.tools.report.adequacy import adequacy_rows
from referee.tools.report.data import report_places, run_report
from referee.tools.report.failing import check_command
from referee.tools.report.history import browser_checks
from referee.tools.report.layout import (
    Section,
    adequacy_section,
    browser_section,
    public_section,
)
from referee.tools.report.places import Places
from referee.tools.store import (
    Store,
    StoredScorecard,
    load_contract,
    load_run,
    load_scorecard,
    run_index,
    scorecards_for,
)
from referee.tools.store.calibration import calibration_rows
from referee.tools.view.change import change_view
from referee.tools.view.gather import (
    evaluator_visible,
    previous_run,
    run_visible,
    visible_evidence,
)
from referee.tools.view.gather import hidden_criteria as _hidden
from referee.tools.view.pages import (
    Audience,
    CardLink,
    CriterionLine,
    FindingLine,
    HumanVerdict,
    Log,
    LogLine,
    RunPage,
    ScorecardPage,
    ScoreRow,
    TestLine,
    VerdictRow,
)
from referee.tools.view.traces import traced_items

_FAILED = ("failed", "error")
_ORDER = {"fail": 0, "unscored": 1, "pass": 2}


def run_page(store: Store, run_id: str, audience: Audience) -> RunPage:
    """One evaluation run as its page shows it.

    Raises:
        NotFound: no such run, or (for the generator) a run of hold-outs only.
    """
    stored = load_run(store, run_id)
    ev = stored.evaluation
    contract = load_contract(store, ev.contract_ref)
    if not run_visible(ev, contract, audience):
        raise NotFound("run", run_id, path="/run_id", hint="see the contract's page")
    p = report_places(store, contract)
    hidden = _hidden(contract) if audience == "generator" else set()
    items = visible_evidence(stored, contract, audience)
    logs = [_log(i, contract, p) for i in items if i.stdout or i.stderr]
    anchors = {log.evidence_id: _first_marked(log) for log in logs}
    results = [c for c in ev.criteria if not (c.id in hidden or (c.holdout and hidden))]
    criteria = [_criterion(c, contract, anchors, p) for c in results]
    criteria.sort(key=lambda c: _ORDER.get(c.status, 1))
    tests = [t for i in items for t in _tests(i, anchors, p)]
    tests.sort(key=lambda t: t.outcome not in _FAILED)
    previous, others = _neighbours(store, ev, contract, audience)
    return RunPage(
        run_id=ev.run_id,
        contract_id=ev.contract_ref,
        audience=audience,
        evaluator=ev.evaluator,
        iteration=ev.iteration,
        tree=ev.target.tree,
        commit=ev.target.commit,
        sandbox=ev.sandbox,
        changed_files=list(ev.target.changed_files),
        criteria=criteria,
        tests=tests,
        logs=logs,
        findings=[
            FindingLine(f.severity, f.rule, p.public(f.location), p.public(f.message))
            for f in ev.findings
        ],
        # referee's own issues name failing criteria, hold-outs among them: the evaluator's.
        issues=_issues(ev, p) if audience == "evaluator" else [],
        cards=_cards(store, ev) if audience == "evaluator" else [],
        **_report_sections(store, ev, {i.id for i in items if i.tool == "browser"}, hidden, p),
        traces=traced_items(store, stored, items),
        change=change_view(ev, results, p),
        previous=previous,
        others=others,
    )


_OTHERS = 20


def _neighbours(
    store: Store, ev: Evaluation, contract: Contract, audience: Audience
) -> tuple[str | None, list[str]]:
    """The runs this one can be compared with: its evaluator's previous run (else the run just
    before it) first, then the contract's other visible runs, newest first."""
    index = [
        r for r in run_index(store, ev.contract_ref) if evaluator_visible(r[2], contract, audience)
    ]
    previous = previous_run(index, ev.run_id, ev.evaluator)
    others = [r[0] for r in reversed(index) if r[0] not in (ev.run_id, previous)]
    return previous, others[:_OTHERS]


def _report_sections(
    store: Store, ev: Evaluation, browser: set[str], hidden: set[str], p: Places
) -> dict[str, Section | None]:
    """The report's own sections of what the run measured, only what the audience sees: its
    browser checks (all of them, failing first) and its test adequacy (uncovered changed lines,
    surviving mutants, flaky tests)."""
    measured = any(c.adequacy is not None and c.id not in hidden for c in ev.criteria)
    if not browser and not measured:
        return {"browser": None, "adequacy": None}
    data = run_report(store, ev.run_id)
    checks = [b for b in browser_checks(data) if b.evidence_id in browser]
    rows = [r for r in adequacy_rows(data) if r.criterion not in hidden]
    return {
        "browser": public_section(browser_section(checks, most=len(checks)), p)
        if browser
        else None,
        "adequacy": public_section(adequacy_section(rows), p) if measured else None,
    }


def _issues(ev: Evaluation, p: Places) -> list[FindingLine]:
    return [
        FindingLine(i.severity, "issue", p.public(i.location or ""), p.public(i.description))
        for i in ev.issues
    ]


def _cards(store: Store, ev: Evaluation) -> list[CardLink]:
    found = scorecards_for(store, ev.contract_ref, ev.iteration, history=True)
    return [
        CardLink(c.id, c.evaluator, c.computed.get("verdict"), c.superseded_by is None)
        for c in found
        if c.run_id == ev.run_id or (c.run_id is None and c.evaluator == ev.evaluator)
    ]


def _criterion(
    c: CriterionResult, contract: Contract, anchors: dict[str, str | None], p: Places
) -> CriterionLine:
    declared = contract.criterion(c.id)
    anchor = next((anchors[e] for e in c.evidence_ids if anchors.get(e)), None)
    if anchor is None and c.evidence_ids and c.evidence_ids[0] in anchors:
        anchor = f"log-{c.evidence_ids[0]}"
    return CriterionLine(
        id=c.id,
        criterion=declared.criterion if declared else "",
        status=c.status,
        holdout=c.holdout,
        reason=p.public(c.reason or c.evidence),
        reason_code=c.reason_code,
        command=p.public(check_command(declared)) if declared else "",
        evidence_ids=list(c.evidence_ids),
        anchor=anchor,
    )


def _log(item: EvidenceItem, contract: Contract, p: Places) -> Log:
    text = item.stdout + (f"\n--- stderr ---\n{item.stderr}" if item.stderr else "")
    raw = p.public(text).splitlines()
    names = [_short(t.name) for t in item.tests if t.outcome in _FAILED]
    marked = {_find(raw, n) for n in names} - {None}
    lines = [LogLine(n, line, n in marked) for n, line in enumerate(raw, 1)]
    return Log(
        evidence_id=item.id,
        tool=item.tool,
        command=_command(item, contract, p),
        exit_code=item.exit_code,
        summary=p.public(item.summary),
        lines=lines,
        truncated=item.truncated,
    )


def _command(item: EvidenceItem, contract: Contract, p: Places) -> str:
    # The argv referee ran wraps the check (a coverage shim, --junitxml into a temp folder): the
    # reader is shown the command the contract states, which they can run themselves.
    declared = contract.criterion(item.criterion_id) if item.criterion_id else None
    if declared is not None and check_command(declared):
        return p.public(check_command(declared))
    return p.public(item.summary or item.tool)


def _short(name: str) -> str:
    return name.split("::")[-1].split(" > ")[-1].split(".")[-1]


def _find(lines: list[str], name: str) -> int | None:
    bare = name.split("[")[0]
    for wanted in (name, bare):
        for n, line in enumerate(lines, 1):
            if wanted and wanted in line:
                return n
    return None


def anchor_of(evidence_id: str, line: int) -> str:
    return f"{evidence_id}-L{line}"


def _first_marked(log: Log) -> str | None:
    line = next((x.number for x in log.lines if x.marked), None)
    return anchor_of(log.evidence_id, line) if line is not None else None


def _tests(item: EvidenceItem, anchors: dict[str, str | None], p: Places) -> list[TestLine]:
    return [
        TestLine(
            name=t.name,
            outcome=t.outcome,
            duration_s=t.duration_s,
            message=p.public(t.message),
            evidence_id=item.id,
            anchor=anchors.get(item.id) if t.outcome in _FAILED else None,
        )
        for t in item.tests
    ]


def scorecard_page(store: Store, scorecard_id: int) -> ScorecardPage:
    """A stored scorecard beside the draft referee derived from its run; overrides marked.

    Raises:
        NotFound: no such scorecard.
    """
    card = load_scorecard(store, scorecard_id)
    contract = load_contract(store, card.contract_id)
    p = report_places(store, contract)
    draft = _draft(store, card)
    return ScorecardPage(
        id=card.id,
        contract_id=card.contract_id,
        evaluator=card.evaluator,
        iteration=card.iteration,
        active=card.superseded_by is None,
        verdict=card.computed.get("verdict"),
        weighted=card.computed.get("weighted_score"),
        run_id=card.run_id,
        summary=p.public(str(card.body.get("summary") or "")),
        guidance=p.public(str(card.body.get("guidance") or "")),
        dimensions=_scores(card, draft, p),
        criteria=_verdicts(card, draft, p),
        issues=[
            FindingLine(
                str(i.get("severity", "")),
                "issue",
                p.public(str(i.get("location") or "")),
                p.public(str(i.get("description", ""))),
            )
            for i in card.body.get("issues") or []
            if isinstance(i, dict)
        ],
        humans=humans(store, card),
    )


def _draft(store: Store, card: StoredScorecard) -> Evaluation | None:
    if card.run_id is None:
        return None
    try:
        return load_run(store, card.run_id).evaluation
    except NotFound:
        return None


def _scores(card: StoredScorecard, ev: Evaluation | None, p: Places) -> list[ScoreRow]:
    stated = card.body.get("dimensions")
    dims: dict[str, Any] = stated if isinstance(stated, dict) else {}
    computed: dict[str, Any] = card.computed.get("dimensions") or {}
    rows = []
    for key in sorted(set(dims) | set(ev.dimensions if ev else {})):
        found = dims.get(key)
        entry: dict[str, Any] = found if isinstance(found, dict) else {}
        derived = ev.dimensions.get(key) if ev else None
        mine = computed.get(key, entry.get("score"))
        theirs = derived.score if derived else None
        rows.append(
            ScoreRow(
                dimension=key,
                card=float(mine) if isinstance(mine, int | float) else None,
                draft=theirs,
                source=derived.source if derived else "judgment",
                overridden=theirs is not None and mine is not None and float(mine) != theirs,
                evidence=p.public(str(entry.get("evidence") or "")),
                recommendation=p.public(str(entry.get("recommendation") or "")),
            )
        )
    return rows


def _verdicts(card: StoredScorecard, ev: Evaluation | None, p: Places) -> list[VerdictRow]:
    derived = {c.id: c.pass_ for c in ev.criteria} if ev else {}
    rows = []
    for v in card.body.get("criteria") or []:
        if not isinstance(v, dict):
            continue
        ident, mine = str(v.get("id")), v.get("pass")
        theirs = derived.get(ident)
        rows.append(
            VerdictRow(
                id=ident,
                card=mine if isinstance(mine, bool) else None,
                draft=theirs,
                overridden=theirs is not None and isinstance(mine, bool) and mine != theirs,
                evidence=p.public(str(v.get("evidence") or "")),
            )
        )
    return rows


def humans(store: Store, card: StoredScorecard) -> list[HumanVerdict]:
    """The human verdicts recorded on a scorecard, oldest first."""
    mine = card.computed.get("verdict")
    return [
        HumanVerdict(r.verdict, r.note, r.created_at, None if mine is None else r.verdict == mine)
        for r in calibration_rows(store, card.contract_id)
        if r.scorecard_id == card.id
    ]


def recorded(record: CalibrationRecord) -> HumanVerdict:
    return HumanVerdict(record.human_verdict, record.note, record.created_at, record.agrees)
