"""Page names to pages: what the running app answers and what a bundle writes, from one router.

A page name is `links.PAGE` (flat `.html` names); ids in it are matched by a strict pattern and
only ever used as store keys, never as paths. The generator's audience has no scorecard, report
or calibration page: those quote hold-out criteria and judges' notes on them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

from referee.tools.calibration import record_human_verdict
from referee.tools.errors import InvalidInput, NotFound, Problem
from referee.tools.report import contract_report
from referee.tools.report.html import document_html
from referee.tools.report.layout import document
from referee.tools.report.places import places
from referee.tools.report.view import analyse
from referee.tools.store import Store, StoreTampered, load_scorecard
from referee.tools.view import links
from referee.tools.view.cache import RowCache
from referee.tools.view.compare import calibration_page, compare_page, compare_runs_page
from referee.tools.view.gather import contract_page, contracts_page, live_rows
from referee.tools.view.html import (
    Context,
    calibration_html,
    compare_html,
    contract_html,
    contracts_html,
    live_html,
    missing_html,
    report_html,
    run_html,
    scorecard_html,
)
from referee.tools.view.pages import Audience, Filters, LivePage
from referee.tools.view.run import run_page, scorecard_page

__all__ = ["Page", "VerdictForm", "page_for", "record_verdict"]


PAGE_SIZE = 100


@dataclass(frozen=True)
class Page:
    status: int
    body: str


def _no_such_page(name: str) -> NotFound:
    """A page name the viewer does not have (or not for this audience)."""
    return NotFound("page", name, path="/", hint="start at index.html")


def page_for(
    store: Store,
    name: str,
    audience: Audience,
    ctx: Context,
    query: Mapping[str, str] | None = None,
    cache: RowCache | None = None,
) -> Page:
    """The page called `name` (e.g. `contract-SC-x.html`), or a 404 page.

    Args:
        store: The store to read.
        name: The page's file name.
        audience: Whose view: the generator's shows no hold-out.
        ctx: Live app or bundle.
        query: The contracts list's filters (the running app only).
        cache: The running app's contracts list cache; None gathers the list afresh.
    """
    try:
        return Page(200, _render(store, name, audience, ctx, query or {}, cache))
    except NotFound as exc:
        return Page(404, missing_html(str(exc), audience, ctx))
    except StoreTampered as exc:  # refused as every command refuses it: say so, show nothing
        return Page(500, missing_html(exc.summary, audience, ctx, title="Store refused"))


def _render(
    store: Store,
    name: str,
    audience: Audience,
    ctx: Context,
    query: Mapping[str, str],
    cache: RowCache | None,
) -> str:
    m = links.PAGE.match(name)
    if m is None:
        raise _no_such_page(name)
    if m["index"]:
        cached = cache.rows(audience) if cache is not None else None
        size = PAGE_SIZE if ctx.live else None
        rows = cached.rows if cached is not None else None
        listed = contracts_page(store, audience, _filters(query), rows, size)
        return contracts_html(listed, audience, ctx, updating=bool(cached and cached.updating))
    if m["live"]:
        refresh = 2 if ctx.live and query.get("refresh") == "2" else 0
        return live_html(LivePage(live_rows(store, audience), refresh), audience, ctx)
    if m["cmp"]:
        found = compare_page(store, m["cmp"], int(m["a"]), int(m["b"]), audience)
        return compare_html(found, ctx)
    if m["ra"]:
        return compare_html(compare_runs_page(store, m["ra"], m["rb"], audience), ctx)
    evaluator_only: dict[str, Callable[[], str]] = {
        "calibration": lambda: _calibration(store, ctx, cache),
        "scorecard": lambda: scorecard_html(scorecard_page(store, _int(m["id"])), ctx),
        "report": lambda: _report(store, m["id"], ctx),
    }
    kind = "calibration" if m["calibration"] else m["kind"]
    if kind in evaluator_only:
        if audience != "evaluator":
            raise _no_such_page(name)
        return evaluator_only[kind]()
    if kind == "contract":
        return contract_html(contract_page(store, m["id"], audience), ctx)
    return run_html(run_page(store, m["id"], audience), ctx)


def _calibration(store: Store, ctx: Context, cache: RowCache | None) -> str:
    if cache is None:
        return calibration_html(calibration_page(store), ctx)
    kept = cache.calibration()
    return calibration_html(kept.page, ctx, updating=kept.updating)


def _int(text: str) -> int:
    if not text.isdigit():
        raise _no_such_page(text)
    return int(text)


def _filters(query: Mapping[str, str]) -> Filters:
    def get(key: str) -> str:
        return str(query.get(key, ""))[:200]

    page = get("page")
    return Filters(
        get("decision"),
        get("evaluator"),
        get("since"),
        get("until"),
        get("q"),
        int(page) if page.isdigit() else 1,
    )


def _report(store: Store, contract_id: str, ctx: Context) -> str:
    data = contract_report(store, contract_id)
    doc = document(analyse(data), places(data.repo_root, data.store_home))
    return report_html(document_html(doc), doc.title, ctx)


@dataclass(frozen=True)
class VerdictForm:
    """What the scorecard page's form sends."""

    choice: str  # agree or disagree
    verdict: str  # the verdict a disagreeing human gives
    note: str


def record_verdict(
    store: Store, scorecard_id: int, form: VerdictForm, now: Callable[[], datetime]
) -> str:
    """Store a human verdict exactly as the record_human_verdict tool does (its own core), and
    return what the page says about it.

    Agreeing records the scorecard's own verdict; disagreeing records another one.

    Raises:
        NotFound: no such scorecard.
        InvalidInput: the choice or verdict is not one of the form's.
    """
    card = load_scorecard(store, scorecard_id)
    mine = card.computed.get("verdict")
    if form.choice == "agree" and isinstance(mine, str):
        verdict = mine
    elif form.choice == "disagree" and form.verdict != mine:
        verdict = form.verdict
    else:
        message = "choose agree, or disagree with another verdict than the scorecard's"
        raise InvalidInput([Problem(path="/choice", code="not_allowed", message=message)])
    record = record_human_verdict(scorecard_id, verdict, form.note[:4000], store=store, now=now)
    agrees = {True: "agrees", False: "disagrees", None: "—"}[record.agrees]
    return f"Recorded {record.human_verdict} on scorecard {scorecard_id} ({agrees})."
