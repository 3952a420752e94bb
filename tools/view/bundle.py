"""`referee view --bundle DIR`: every page of the viewer written as static files (a CI
artifact). Links are relative and the pages fetch nothing, so the folder works opened from disk."""

from __future__ import annotations

from pathlib import Path

from referee.tools.store import Store, contract_ids, load_contract, runs_for, scorecards_for
from referee.tools.view import links
from referee.tools.view.app import page_for
from referee.tools.view.gather import previous_run, run_visible
from referee.tools.view.html import Context
from referee.tools.view.pages import Audience


def page_names(store: Store, audience: Audience) -> list[str]:
    """Every page of the store for the audience: the list, each contract with its runs, compare
    pairs and (for evaluators) its report, scorecards and the calibration page."""
    names = [links.INDEX]
    if audience == "evaluator":
        names.append(links.CALIBRATION)
    for cid in contract_ids(store):
        names.append(links.contract(cid))
        contract = load_contract(store, cid)
        runs = [r for r in runs_for(store, cid) if run_visible(r.evaluation, contract, audience)]
        names += [links.run(r.run_id) for r in runs]
        index = [(r.run_id, r.evaluation.iteration, r.evaluation.evaluator) for r in runs]
        names += [
            links.compare_runs(previous, run_id)
            for run_id, _, evaluator in index
            if (previous := previous_run(index, run_id, evaluator)) is not None
        ]
        numbers = sorted({r.evaluation.iteration for r in runs})
        names += [links.compare(cid, a, b) for i, a in enumerate(numbers) for b in numbers[i + 1 :]]
        if audience == "evaluator":
            names.append(links.report(cid))
            cards = scorecards_for(store, cid, history=True, variant=None)
            names += [links.scorecard(c.id) for c in cards]
    return names


def write_bundle(store: Store, folder: Path, audience: Audience) -> list[Path]:
    """Write every page into `folder` (created); returns the files written, index first.

    A page that cannot be gathered is written as its 404 page, so a link never dangles.
    """
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in page_names(store, audience):
        path = folder / name
        path.write_text(page_for(store, name, audience, Context(live=False)).body, encoding="utf-8")
        written.append(path)
    return written
