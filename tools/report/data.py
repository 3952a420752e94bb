"""Gathering what a report shows: the contract, its runs, scorecards, latest aggregate and
calibration."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, ValidationError

from referee.tools.calibration import CalibrationReport, calibration_report
from referee.tools.create_contract import contract_rubrics
from referee.tools.errors import NotFound
from referee.tools.models.aggregate import AggregateResult
from referee.tools.models.common import Model
from referee.tools.models.contract import Contract
from referee.tools.models.evaluation import Evaluation
from referee.tools.models.evidence import EvidenceItem
from referee.tools.models.rubric import Rubric
from referee.tools.report.places import Places, places
from referee.tools.store import (
    Store,
    StoredRun,
    StoredScorecard,
    load_contract,
    load_run,
    scorecards_for,
)
from referee.tools.store.aggregates import aggregates_for
from referee.tools.store.calibration import calibration_rows
from referee.tools.store.canaries import real_runs
from referee.tools.store.files import local_run_file
from referee.tools.store.runs import sealed_item


class ScorecardEntry(Model):
    """A stored scorecard reduced to what a report needs (the body is kept for details)."""

    id: int
    evaluator: str
    iteration: int
    format: str
    variant: str = Field(description="original, or perturbed for the anti-gaming re-scoring")
    stored_at: str
    run_id: str | None = None
    active: bool = Field(description="False once a later scorecard replaced it")
    verdict: str | None = None
    weighted_score: float | None = None
    normalized: float | None = None
    scale_max: float = 3.0
    dimensions: dict[str, float] = Field(default_factory=dict)
    evaluator_prompt_version: str | None = None
    body: dict[str, Any] = Field(default_factory=dict)

    def dimension_text(self, key: str, field: str) -> str:
        """A dimension's `evidence` or `recommendation` text from the scorecard body ('' when
        absent)."""
        entry = (self.body.get("dimensions") or {}).get(key)
        return str(entry.get(field) or "") if isinstance(entry, dict) else ""


class CalibrationEntry(Model):
    """A human's verdict on a stored scorecard."""

    scorecard_id: int
    verdict: str
    note: str = ""
    created_at: str


class BrowserEvidence(Model):
    """One browser check as its evidence recorded it: what ran, what failed, what it showed."""

    run_id: str
    iteration: int
    evidence_id: str
    criterion_id: str | None = None
    summary: str = ""
    outcome: dict[str, Any] = Field(
        default_factory=dict, description="The check's outcome: status, reason, steps, expectations"
    )
    screenshot: str | None = None
    trace: str | None = None


def browser_evidence(store: Store, stored: StoredRun) -> list[BrowserEvidence]:
    """The browser checks of a stored run, in evidence order; the screenshot and trace as files
    on this machine (a team store's copies written into this store's folders)."""
    found = []
    for item in sorted(stored.evidence.values(), key=lambda e: int(e.id[1:] or 0)):
        if item.tool != "browser":
            continue
        found.append(
            BrowserEvidence(
                run_id=stored.run_id,
                iteration=stored.evaluation.iteration,
                evidence_id=item.id,
                criterion_id=item.criterion_id,
                summary=item.summary,
                outcome=item.details,
                screenshot=_here(store, stored, item, ".png"),
                trace=_here(store, stored, item, ".trace.zip"),
            )
        )
    return found


def _here(store: Store, stored: StoredRun, item: EvidenceItem, suffix: str) -> str | None:
    """The item's first artifact ending in `suffix`, as a file on this machine when it can be."""
    kept = next((a for a in item.artifacts if a.lower().endswith(suffix)), None)
    if kept is None:
        return None
    sealed = sealed_item(stored.evaluation, item)
    local = local_run_file(store, stored.run_id, kept, sealed=sealed)
    return str(local) if local else kept


class ReportData(Model):
    """Everything stored about a contract (or one run of it) that a report shows."""

    kind: Literal["contract", "run"]
    subject: str = Field(description="The contract id or run id the report is about")
    contract: Contract
    rubric: Rubric | None = None
    runs: list[Evaluation] = Field(default_factory=list, description="Oldest first")
    scorecards: list[ScorecardEntry] = Field(
        default_factory=list, description="History, every variant, oldest first"
    )
    aggregate: AggregateResult | None = None
    calibration: list[CalibrationEntry] = Field(default_factory=list)
    agreement: CalibrationReport | None = Field(
        default=None, description="Agreement with humans per prompt version"
    )
    warnings: list[str] = Field(default_factory=list)
    browser: list[BrowserEvidence] = Field(
        default_factory=list, description="Every browser check of the runs, oldest first"
    )
    repo_root: str | None = Field(
        default=None, description="The repository's folder (the page names paths relative to it)"
    )
    store_home: str | None = Field(default=None, description="The store's folder")
    evidence_criteria: dict[str, str] = Field(
        default_factory=dict,
        description="`RUN/E…` → the criterion whose check the evidence ran (cited or not)",
    )


def contract_report(store: Store, contract_id: str) -> ReportData:
    """Gather the report of a contract: every run, scorecard history, the latest aggregate,
    calibration.

    Args:
        store: The store holding the contract.
        contract_id: The contract (SC-…).

    Returns:
        The report data.

    Raises:
        NotFound: No such contract is stored.
    """
    contract = load_contract(store, contract_id, path="/report_id")
    rubric = _rubric(store, contract)
    # Canaries measure the judge (calibration_report), they are no part of the contract's history.
    cards = [
        _entry(s, rubric)
        for s in scorecards_for(store, contract.id, history=True, variant=None)
        if not s.variant.startswith("canary:")
    ]
    aggregate, warnings = _latest_aggregate(store, contract.id, None)
    stored = real_runs(store, contract.id)
    return ReportData(
        kind="contract",
        subject=contract.id,
        contract=contract,
        rubric=rubric,
        runs=[r.evaluation for r in stored],
        browser=[b for r in stored for b in browser_evidence(store, r)],
        evidence_criteria=_evidence_criteria(stored),
        scorecards=cards,
        aggregate=aggregate,
        calibration=_calibration(store, [c.id for c in cards]),
        agreement=calibration_report(store, contract.id),
        warnings=warnings + _rubric_warning(contract, rubric),
        repo_root=_repo_root(store, contract),
        store_home=str(store.home.resolve()),
    )


def run_report(store: Store, run_id: str) -> ReportData:
    """Gather the report of one evaluation run, with the scorecards grounded on it.

    Scorecards count as grounded on the run when they cite its run id, or when they belong to its
    iteration (and evaluator, when the run was for one evaluator) and cite no run.

    Args:
        store: The store holding the run.
        run_id: The run (R…).

    Returns:
        The report data.

    Raises:
        NotFound: No such run (or its contract) is stored.
    """
    run = load_run(store, run_id, path="/report_id")
    evaluation = run.evaluation
    contract = load_contract(store, evaluation.contract_ref, path="/report_id")
    rubric = _rubric(store, contract)
    stored = scorecards_for(store, contract.id, evaluation.iteration, history=True, variant=None)
    cards = [_entry(s, rubric) for s in stored if _grounded(s, evaluation)]
    aggregate, warnings = _latest_aggregate(store, contract.id, evaluation.iteration)
    return ReportData(
        kind="run",
        subject=run_id,
        contract=contract,
        rubric=rubric,
        runs=[evaluation],
        browser=browser_evidence(store, run),
        evidence_criteria=_evidence_criteria([run]),
        scorecards=cards,
        aggregate=aggregate,
        calibration=_calibration(store, [c.id for c in cards]),
        warnings=warnings + _rubric_warning(contract, rubric),
        repo_root=_repo_root(store, contract),
        store_home=str(store.home.resolve()),
    )


def _evidence_criteria(runs: list[StoredRun]) -> dict[str, str]:
    # A criterion's base run and base-tests run are its evidence too, though it may cite only
    # the run of the current code: each shows the check's own command rather than referee's.
    return {
        f"{r.run_id}/{e.id}": e.criterion_id
        for r in runs
        for e in r.evidence.values()
        if e.criterion_id
    }


def report_places(store: Store, contract: Contract) -> Places:
    """The machine prefixes a page about `contract` writes as relative paths."""
    return places(_repo_root(store, contract), str(store.home.resolve()))


def _repo_root(store: Store, contract: Contract) -> str | None:
    # A contract made through the MCP server names its repository; otherwise the store usually
    # lives in the repository's own `.referee/`.
    home = store.home.resolve()
    return contract.repo or (str(home.parent) if home.name == ".referee" else None)


def build_report(store: Store, report_id: str) -> ReportData:
    """Gather a report by id: a contract id (SC-…) or a run id (R…).

    Raises:
        NotFound: The id is neither a stored contract nor a stored run.
    """
    if report_id.startswith("SC-"):
        return contract_report(store, report_id)
    if report_id.startswith("R"):
        return run_report(store, report_id)
    raise NotFound(
        "report",
        report_id,
        path="/report_id",
        hint="a report id is a contract id (SC-…) or a run id (R…) from evaluate",
    )


def _rubric(store: Store, contract: Contract) -> Rubric | None:
    # The rubric stored with the contract, not the working tree's (which the generator writes).
    return contract_rubrics(store, contract).get(contract.rubric_ref)


def _rubric_warning(contract: Contract, rubric: Rubric | None) -> list[str]:
    if rubric is not None:
        return []
    return [
        f"rubric {contract.rubric_ref} is not available: dimension weights and priorities are"
        " missing"
    ]


def _grounded(card: StoredScorecard, evaluation: Evaluation) -> bool:
    if card.run_id is not None:
        return card.run_id == evaluation.run_id
    return evaluation.evaluator is None or card.evaluator == evaluation.evaluator


def _entry(card: StoredScorecard, rubric: Rubric | None) -> ScorecardEntry:
    computed = card.computed or {}
    return ScorecardEntry(
        id=card.id,
        evaluator=card.evaluator,
        iteration=card.iteration,
        format=card.format,
        variant=card.variant,
        stored_at=card.stored_at,
        run_id=card.run_id,
        active=card.superseded_by is None,
        verdict=computed.get("verdict") or card.body.get("verdict"),
        weighted_score=_number(computed.get("weighted_score", card.body.get("weighted_score"))),
        normalized=_number(computed.get("normalized")),
        scale_max=_number(computed.get("scale_max")) or (rubric.scale.max if rubric else 3.0),
        dimensions=_dimension_scores(computed, card.body),
        evaluator_prompt_version=computed.get("evaluator_prompt_version")
        or card.body.get("evaluator_prompt_version"),
        body=card.body,
    )


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _dimension_scores(computed: dict[str, Any], body: dict[str, Any]) -> dict[str, float]:
    scores = computed.get("dimensions")
    if not isinstance(scores, dict):
        dims = body.get("dimensions")
        scores = (
            {k: v.get("score") for k, v in dims.items() if isinstance(v, dict)}
            if isinstance(dims, dict)
            else {}
        )
    return {k: float(v) for k, v in scores.items() if _number(v) is not None}


def _latest_aggregate(
    store: Store, contract_id: str, iteration: int | None
) -> tuple[AggregateResult | None, list[str]]:
    found = [
        a
        for a in aggregates_for(store, contract_id)
        if iteration is None or a.iteration == iteration
    ]
    if not found:
        return None, []
    latest = found[-1]
    try:
        return AggregateResult.model_validate(latest.body), []
    except ValidationError as exc:
        return None, [f"stored aggregate {latest.id} could not be read: {exc.__class__.__name__}"]


def _calibration(store: Store, scorecard_ids: list[int]) -> list[CalibrationEntry]:
    if not scorecard_ids:
        return []
    wanted = set(scorecard_ids)
    rows = [r for r in calibration_rows(store) if r.scorecard_id in wanted]
    return [
        CalibrationEntry(
            scorecard_id=r.scorecard_id,
            verdict=r.verdict,
            note=r.note or "",
            created_at=r.created_at,
        )
        for r in rows
    ]
