"""The contracts list and a contract's page, gathered from the store through its public functions.

The generator's audience sees what `get_contract(view="generator")` and the `generator_brief`
prompt show it, no more: hold-out criteria, evaluators that own only hold-outs, and the parts of an
aggregate written for the orchestrator (its reason, escalation, quality notes) are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.tools.aggregate import hidden_checks_text
from referee.tools.create_contract import generator_view
from referee.tools.evaluate.progress import running
from referee.tools.models.contract import Contract
from referee.tools.models.evaluation import Evaluation
from referee.tools.models.evidence import EvidenceItem
from referee.tools.store import (
    Store,
    StoredRun,
    StoredScorecard,
    contract_ids,
    latest_iteration,
    load_contract,
    runs_for,
    scorecards_for,
)
from referee.tools.store.aggregates import StoredAggregate, aggregates_for
from referee.tools.view.pages import (
    Alert,
    Audience,
    Cell,
    ContractPage,
    ContractRow,
    ContractsPage,
    CriterionInfo,
    Filters,
    IterationRow,
    LiveRow,
    Plot,
    RunLink,
    Series,
)

DECISIONS = ["DELIVER", "REVISE", "ESCALATE", "PENDING"]


def visible_evaluators(contract: Contract, audience: Audience) -> list[str]:
    """The contract's evaluators as the audience may know them."""
    if audience == "generator":
        return list(generator_view(contract)["evaluators"])
    return list(contract.evaluators)


def run_visible(evaluation: Evaluation, contract: Contract, audience: Audience) -> bool:
    """Whether the audience may see a run: not, for the generator, a run of an evaluator that
    owns only hold-outs (its very name would tell that hidden criteria exist)."""
    return evaluator_visible(evaluation.evaluator, contract, audience)


def evaluator_visible(evaluator: str | None, contract: Contract, audience: Audience) -> bool:
    """Whether the audience may see a run of `evaluator` (None: every evaluator's run)."""
    if audience == "evaluator" or evaluator is None:
        return True
    return evaluator in visible_evaluators(contract, audience)


RunEntry = tuple[str, int, str | None]  # run id, iteration, evaluator


def previous_run(index: list[RunEntry], run_id: str, evaluator: str | None) -> str | None:
    """The run a run is compared with first: its evaluator's previous run, else the run just
    before it (`index` oldest first, as the run page and the bundle both read it)."""
    at = next((n for n, r in enumerate(index) if r[0] == run_id), len(index))
    earlier = index[:at]
    same = [r[0] for r in earlier if r[2] == evaluator]
    return same[-1] if same else earlier[-1][0] if earlier else None


def hidden_criteria(contract: Contract) -> set[str]:
    """The ids of the contract's hold-out criteria."""
    return {c.id for c in contract.all_criteria() if c.holdout}


def visible_evidence(
    stored: StoredRun, contract: Contract, audience: Audience
) -> list[EvidenceItem]:
    """A run's evidence in id order; for the generator, none a hold-out produced."""
    hidden = hidden_criteria(contract)
    items = sorted(stored.evidence.values(), key=lambda e: int(e.id.lstrip("EG") or 0))
    if audience == "evaluator":
        return items
    return [e for e in items if not (e.holdout or e.sealed or e.criterion_id in hidden)]


def visible_criteria(contract: Contract, audience: Audience) -> list[CriterionInfo]:
    return [
        CriterionInfo(c.id, c.criterion, c.evaluator, c.verification_method, c.holdout)
        for c in contract.all_criteria()
        if audience == "evaluator" or not c.holdout
    ]


def contract_rows(store: Store, audience: Audience) -> list[ContractRow]:
    """Every stored contract with its status, newest activity first."""
    rows = [_row(store, load_contract(store, cid), audience) for cid in contract_ids(store)]
    rows.sort(key=lambda r: r.last_activity, reverse=True)
    return rows


def contracts_page(
    store: Store,
    audience: Audience,
    filters: Filters,
    rows: list[ContractRow] | None = None,
    page_size: int | None = None,
) -> ContractsPage:
    """The contracts list, filtered, one page of `page_size` rows (None: every row).

    Args:
        store: The store.
        audience: Whose view.
        filters: The list's filters and the page wanted.
        rows: The rows already gathered (the running app's cache); None gathers them.
        page_size: Rows a page.
    """
    every = contract_rows(store, audience) if rows is None else rows
    shown = [r for r in every if matches(r, filters)]
    pages = max(1, -(-len(shown) // page_size)) if page_size else 1
    at = min(max(filters.page, 1), pages)
    cut = shown[(at - 1) * page_size : at * page_size] if page_size else shown
    names = sorted({e for r in every for e in r.evaluators})
    live = live_rows(store, audience)
    return ContractsPage(
        cut, len(every), len(shown), filters, DECISIONS, names, pages, live, history(shown)
    )


HISTORY = 20


def history(rows: list[ContractRow]) -> Plot | None:
    """The last contracts by activity, oldest first: each one's latest weighted score and the
    iterations it took, so a trend across tasks shows (scores falling, loops lengthening)."""
    recent = sorted(rows, key=lambda r: r.last_activity)[-HISTORY:]
    if len(recent) < 2:
        return None
    top = max([*(r.scale_max for r in recent), *(float(r.iteration) for r in recent)])
    return Plot(
        f"The last {len(recent)} contracts, oldest first",
        list(range(1, len(recent) + 1)),
        [
            Series("weighted score", [r.weighted for r in recent]),
            Series("iterations used", [float(r.iteration) for r in recent]),
        ],
        top,
        x_label="contract",
        columns=[r.id for r in recent],
    )


def live_rows(store: Store, audience: Audience, contract_id: str | None = None) -> list[LiveRow]:
    """The evaluations running now (of one contract, or all)."""
    found = [r for r in running(store.home) if contract_id in (None, r.contract_id)]
    if audience == "evaluator":
        return [
            LiveRow(
                r.contract_id,
                r.evaluator,
                r.started_at,
                r.updated_at,
                r.done,
                r.total,
                r.message,
                r.recent,
            )
            for r in found
        ]
    return [
        LiveRow(r.contract_id, None, r.started_at, r.updated_at, None, None, "running")
        for r in found
    ]


def _row(store: Store, contract: Contract, audience: Audience) -> ContractRow:
    decided = aggregates_for(store, contract.id)
    cards = scorecards_for(store, contract.id)
    times = [contract.created_at, *(a.created_at for a in decided), *(c.stored_at for c in cards)]
    names = visible_evaluators(contract, audience)
    iteration = latest_iteration(store, contract.id)
    last = [c for c in cards if c.iteration == iteration and c.evaluator in names]
    weights = [w for c in last if (w := _number(c.computed.get("weighted_score"))) is not None]
    return ContractRow(
        id=contract.id,
        goal=contract.goal,
        decision=decided[-1].decision if decided else None,
        iteration=iteration,
        max_iterations=contract.max_iterations,
        last_activity=max(times),
        evaluators=tuple(names),
        weighted=round(sum(weights) / len(weights), 3) if weights else None,
        scale_max=max([3.0, *(_number(c.computed.get("scale_max")) or 3.0 for c in last)]),
    )


def matches(row: ContractRow, f: Filters) -> bool:
    """Whether a contract row passes every filter that is set."""
    day = row.last_activity[:10]
    words = f.q.lower().split()
    text = f"{row.id} {row.goal}".lower()
    return (
        (not f.decision or (row.decision or "NONE") == f.decision)
        and (not f.evaluator or f.evaluator in row.evaluators)
        and (not f.since or day >= f.since)
        and (not f.until or day <= f.until)
        and all(w in text for w in words)
    )


def contract_page(store: Store, contract_id: str, audience: Audience) -> ContractPage:
    """A contract: iterations × evaluators, decisions and briefs, the delivered iteration, plots.

    Raises:
        NotFound: no such contract is stored.
    """
    contract = load_contract(store, contract_id)
    names = visible_evaluators(contract, audience)
    cards = [c for c in scorecards_for(store, contract.id) if c.evaluator in names]
    runs = runs_for(store, contract.id)
    decided = _last_per_iteration(aggregates_for(store, contract.id))
    numbers = sorted({r.evaluation.iteration for r in runs} | {c.iteration for c in cards})
    rows = [_iteration(n, names, cards, runs, decided.get(n), contract, audience) for n in numbers]
    latest = decided[max(decided)] if decided else None
    delivered = _delivered(latest)
    return ContractPage(
        id=contract.id,
        goal=contract.goal,
        audience=audience,
        rubric=contract.rubric_ref,
        max_iterations=contract.max_iterations,
        evaluators=names,
        criteria=visible_criteria(contract, audience),
        iterations=rows,
        decision=latest.decision if latest else None,
        delivered=delivered,
        checkout=f"referee checkout {contract.id} --iteration {delivered}" if delivered else None,
        alerts=_alerts(latest),
        plots=plots(numbers, cards),
        pairs=[(a, b) for i, a in enumerate(numbers) for b in numbers[i + 1 :]],
        running=live_rows(store, audience, contract.id),
    )


def _last_per_iteration(found: Sequence[StoredAggregate]) -> dict[int, StoredAggregate]:
    latest: dict[int, StoredAggregate] = {}
    for a in found:  # oldest first: the last one of an iteration stands
        latest[a.iteration] = a
    return latest


def _delivered(latest: StoredAggregate | None) -> int | None:
    if latest is None or latest.decision != "DELIVER":
        return None
    value = latest.body.get("delivered_iteration")
    return value if isinstance(value, int) else latest.iteration


def _alerts(latest: StoredAggregate | None) -> list[Alert]:
    if latest is None:
        return []
    return [
        Alert(str(a.get("kind")), a.get("dimension"), str(a.get("message", "")))
        for a in latest.body.get("alerts") or []
        if isinstance(a, dict)
    ]


def _iteration(
    number: int,
    names: list[str],
    cards: list[StoredScorecard],
    runs: list[StoredRun],
    decided: StoredAggregate | None,
    contract: Contract,
    audience: Audience,
) -> IterationRow:
    mine = {c.evaluator: c for c in cards if c.iteration == number}
    cells = {n: _cell(mine.get(n)) for n in names}
    links = [
        _run_link(r, contract, audience)
        for r in runs
        if r.evaluation.iteration == number and run_visible(r.evaluation, contract, audience)
    ]
    body = decided.body if decided else {}
    brief = body.get("revision_brief") or {}
    return IterationRow(
        number=number,
        cells=cells,
        runs=links,
        decision=decided.decision if decided else None,
        # The reason names every evaluator and may quote their escalations: the orchestrator's.
        reason=str(body.get("reason", "")) if audience == "evaluator" else "",
        brief=[str(i.get("text", "")) for i in brief.get("issues_to_address") or []],
        hidden_failed=int(brief.get("hidden_checks_failed") or 0),
    )


def hidden_text(count: int) -> str:
    return hidden_checks_text(count) if count else ""


def _cell(card: StoredScorecard | None) -> Cell:
    if card is None:
        return Cell(None, None, None)
    return Cell(card.computed.get("verdict"), _number(card.computed.get("weighted_score")), card.id)


def _run_link(run: StoredRun, contract: Contract, audience: Audience) -> RunLink:
    hidden = {c.id for c in contract.all_criteria() if c.holdout}
    shown = [
        c
        for c in run.evaluation.criteria
        if audience == "evaluator" or not (c.holdout or c.id in hidden)
    ]
    return RunLink(
        run.run_id,
        run.evaluation.evaluator,
        sum(1 for c in shown if c.pass_ is True),
        sum(1 for c in shown if c.pass_ is False),
    )


def plots(numbers: list[int], cards: list[StoredScorecard]) -> list[Plot]:
    """Weighted score per evaluator, and each dimension's mean score, over the iterations."""
    if not numbers or not cards:
        return []
    top = max((_number(c.computed.get("scale_max")) or 3.0) for c in cards)
    evaluators = sorted({c.evaluator for c in cards})
    weighted = [Series(e, [_weighted(cards, e, n) for n in numbers]) for e in evaluators]
    dims = sorted({k for c in cards for k in _dimensions(c)})
    per_dim = [Series(d, [_mean_dimension(cards, d, n) for n in numbers]) for d in dims]
    return [
        Plot("Weighted score per evaluator", numbers, weighted, top),
        Plot("Dimension scores (mean over evaluators)", numbers, per_dim, top),
    ]


def _weighted(cards: list[StoredScorecard], evaluator: str, n: int) -> float | None:
    for c in cards:
        if c.evaluator == evaluator and c.iteration == n:
            return _number(c.computed.get("weighted_score"))
    return None


def _dimensions(card: StoredScorecard) -> dict[str, float]:
    found = card.computed.get("dimensions")
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in ((k, _number(v)) for k, v in found.items()) if v is not None}


def _mean_dimension(cards: list[StoredScorecard], dim: str, n: int) -> float | None:
    values = [_dimensions(c)[dim] for c in cards if c.iteration == n and dim in _dimensions(c)]
    return round(sum(values) / len(values), 3) if values else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
