"""Two iterations of a contract side by side (criteria, dimensions, findings, files changed), and
the calibration page (agreement with humans per evaluator)."""

from __future__ import annotations

from referee.tools.calibration import calibration_report
from referee.tools.errors import NotFound
from referee.tools.models.evaluation import Evaluation, Finding
from referee.tools.report.data import report_places
from referee.tools.report.layout import num
from referee.tools.report.places import Places
from referee.tools.store import (
    Store,
    StoredScorecard,
    load_contract,
    load_run,
    runs_for,
    scorecards_for,
)
from referee.tools.view.gather import run_visible, visible_criteria, visible_evaluators
from referee.tools.view.pages import (
    AgreementBar,
    Audience,
    CalibrationPage,
    Change,
    ComparePage,
    FindingLine,
    ModelAgreement,
)


def compare_page(store: Store, contract_id: str, a: int, b: int, audience: Audience) -> ComparePage:
    """Iteration `a` against iteration `b`.

    Raises:
        NotFound: no such contract, or an iteration with nothing stored.
    """
    contract = load_contract(store, contract_id)
    runs = [r.evaluation for r in runs_for(store, contract.id)]
    shown = {c.id for c in visible_criteria(contract, audience)}
    names = set(visible_evaluators(contract, audience))
    cards = [c for c in scorecards_for(store, contract.id) if c.evaluator in names]
    if not any(r.iteration == a for r in runs) or not any(r.iteration == b for r in runs):
        raise NotFound("iteration", f"{a} or {b}", path="/iteration", hint="see the contract")
    p = report_places(store, contract)
    before, after = _findings(runs, a), _findings(runs, b)
    return ComparePage(
        contract_id=contract.id,
        audience=audience,
        a=a,
        b=b,
        criteria=[Change(c, _status(runs, a, c), _status(runs, b, c)) for c in sorted(shown)],
        dimensions=[
            Change(d, num(_mean(cards, a, d)), num(_mean(cards, b, d)))
            for d in sorted({k for c in cards for k in (c.computed.get("dimensions") or {})})
        ],
        findings_added=[_line(f, p) for k, f in after.items() if k not in before],
        findings_removed=[_line(f, p) for k, f in before.items() if k not in after],
        files=_files(runs, a, b),
    )


def compare_runs_page(store: Store, a: str, b: str, audience: Audience) -> ComparePage:
    """Run `a` against run `b`, of one contract or two: each run's own statuses, referee's
    dimension values, findings and changed files (no scorecard: a run may have none yet).

    Raises:
        NotFound: no such run, or one the audience may not see.
    """
    runs = [load_run(store, a).evaluation, load_run(store, b).evaluation]
    contracts = {r.contract_ref: load_contract(store, r.contract_ref) for r in runs}
    for r in runs:
        if not run_visible(r, contracts[r.contract_ref], audience):
            raise NotFound("run", r.run_id, path="/run_id", hint="see the contract's page")
    shown = {c.id for k in contracts.values() for c in visible_criteria(k, audience)}
    first, second = runs
    p = report_places(store, contracts[first.contract_ref])
    before, after = _run_findings(first), _run_findings(second)
    dims = sorted({*first.dimensions, *second.dimensions})
    return ComparePage(
        contract_id=first.contract_ref,
        audience=audience,
        a=first.iteration,
        b=second.iteration,
        criteria=[
            Change(c, _run_status(first, c), _run_status(second, c))
            for c in sorted(shown)
            if any(x.id == c for r in runs for x in r.criteria)
        ],
        dimensions=[Change(d, _score(first, d), _score(second, d)) for d in dims],
        findings_added=[_line(f, p) for k, f in after.items() if k not in before],
        findings_removed=[_line(f, p) for k, f in before.items() if k not in after],
        files=_run_files(first, second),
        runs=(first.run_id, second.run_id),
        contracts=(first.contract_ref, second.contract_ref),
    )


def _run_status(run: Evaluation, criterion: str) -> str:
    return next((c.status for c in run.criteria if c.id == criterion), "—")


def _score(run: Evaluation, dim: str) -> str:
    found = run.dimensions.get(dim)
    return "—" if found is None or found.score is None else num(found.score)


def _run_findings(run: Evaluation) -> dict[tuple[str, str, str], Finding]:
    return {(f.rule, f.location, f.message): f for f in run.findings}


def _run_files(a: Evaluation, b: Evaluation) -> list[Change]:
    return _file_changes(set(a.target.changed_files), set(b.target.changed_files))


def _status(runs: list[Evaluation], n: int, criterion: str) -> str:
    found = "—"
    for r in runs:  # oldest first: the latest run of the iteration stands
        if r.iteration == n:
            found = next((c.status for c in r.criteria if c.id == criterion), found)
    return found


def _mean(cards: list[StoredScorecard], n: int, dim: str) -> float | None:
    values = [
        float(v)
        for c in cards
        if c.iteration == n
        for k, v in (c.computed.get("dimensions") or {}).items()
        if k == dim and isinstance(v, int | float)
    ]
    return round(sum(values) / len(values), 3) if values else None


def _findings(runs: list[Evaluation], n: int) -> dict[tuple[str, str, str], Finding]:
    return {k: f for r in runs if r.iteration == n for k, f in _run_findings(r).items()}


def _line(f: Finding, p: Places) -> FindingLine:
    return FindingLine(f.severity, f.rule, p.public(f.location), p.public(f.message))


def _files(runs: list[Evaluation], a: int, b: int) -> list[Change]:
    at = {n: {f for r in runs if r.iteration == n for f in r.target.changed_files} for n in (a, b)}
    return _file_changes(at[a], at[b])


def _file_changes(before: set[str], after: set[str]) -> list[Change]:
    mark = {True: "changed", False: "—"}
    return [Change(f, mark[f in before], mark[f in after]) for f in sorted(before | after)]


def calibration_page(store: Store, contract_id: str | None = None) -> CalibrationPage:
    """Agreement and Cohen's kappa per evaluator and prompt version, from the calibration log."""
    report = calibration_report(store, contract_id)
    bars = [
        AgreementBar(
            label=f"{name} ({v.evaluator_prompt_version})",
            count=a.count,
            rate=a.agreement_rate,
            kappa=a.kappa,
            kappa_note=a.kappa_note,
        )
        for v in report.versions
        for name, a in v.evaluators.items()
    ]
    models = [
        ModelAgreement(
            j.evaluator,
            j.evaluator_prompt_version,
            j.evaluator_model,
            j.human.cases,
            j.human.rate,
            j.human.kappa,
        )
        for j in report.judges
        if j.human is not None and j.human.cases
    ]
    return CalibrationPage(bars=bars, models=models)
