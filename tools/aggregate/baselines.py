"""A delivered iteration's screenshots become the baselines its `screenshot` expectations are
held to from then on (the "first accepted run"): its own images, taken by referee in its run, of
the tree that was delivered. A baseline that exists is never replaced here; `referee baseline
accept` replaces one by hand. Canary runs (a planted defect) never give one."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import PurePath

from referee.tools.browser.baselines import Baseline, shot_file, store_baselines
from referee.tools.errors import NotFound
from referee.tools.models.browser import BrowserCheck, ScreenshotExpect
from referee.tools.models.contract import Contract
from referee.tools.store import Store, StoredRun, load_contract, load_run
from referee.tools.store.canaries import real_runs
from referee.tools.store.files import run_file

__all__ = ["accept_baselines", "keep_delivered_baselines", "list_baselines", "screenshot_names"]


def screenshot_names(contract: Contract) -> dict[str, list[str]]:
    """Each browser criterion's screenshot expectation names."""
    found: dict[str, list[str]] = {}
    for c in contract.all_criteria():
        if isinstance(c.check, BrowserCheck):
            names = [e.name for e in c.check.expect if isinstance(e, ScreenshotExpect)]
            if names:
                found[c.id] = names
    return found


def keep_delivered_baselines(
    store: Store, contract: Contract, iteration: int, at: str
) -> list[Baseline]:
    """Store the delivered iteration's images as the baselines that do not exist yet."""
    wanted = screenshot_names(contract)
    if not wanted:
        return []
    baselines = store_baselines(store)
    kept: list[Baseline] = []
    for run in real_runs(store, contract.id, iteration):
        for criterion, name, image in _images(store, run, wanted):
            if baselines.load(contract.id, criterion, name) is None:
                kept.append(_save(store, contract.id, criterion, name, image, run.run_id, at))
    return kept


def accept_baselines(
    store: Store, run_id: str, criterion_id: str, name: str | None, at: str
) -> list[Baseline]:
    """Make a run's images of a criterion (one name, or all) its baselines, replacing any.

    Raises:
        NotFound: no such run, criterion with screenshot expectations, or image in the run.
    """
    run = load_run(store, run_id)
    contract = load_contract(store, run.evaluation.contract_ref)
    names = screenshot_names(contract).get(criterion_id)
    if not names:
        raise NotFound(
            "criterion", criterion_id, path="/criterion", hint="one with screenshot expectations"
        )
    if name is not None and name not in names:
        raise NotFound("screenshot", name, path="/name", hint=f"one of {', '.join(names)}")
    wanted = {criterion_id: [name] if name else names}
    found = list(_images(store, run, wanted))
    if not found:
        raise NotFound(
            "screenshot", f"{run_id}/{criterion_id}", path="/run_id", hint="this run took none"
        )
    return [
        _save(store, contract.id, c, n, image, run_id, at, "accepted by hand")
        for c, n, image in found
    ]


def list_baselines(store: Store, contract_id: str) -> list[Baseline]:
    """The baselines kept for a contract (verified; their images left out)."""
    contract = load_contract(store, contract_id)
    baselines = store_baselines(store)
    found = [baselines.load(contract.id, c, n) for c, n in baselines.names(contract.id)]
    return [replace(b, png=b"") for b in found if b is not None]


def _images(
    store: Store, run: StoredRun, wanted: dict[str, list[str]]
) -> Iterator[tuple[str, str, bytes]]:
    """The run's images of the wanted expectations (read where the store keeps its run files)."""
    for item in run.evidence.values():
        criterion = item.criterion_id
        if item.tool != "browser" or criterion is None or criterion not in wanted:
            continue
        # The recorder keeps an artifact as `<evidence id>.<its name>`.
        files = {PurePath(a).name.removeprefix(f"{item.id}."): a for a in item.artifacts}
        for name in wanted[criterion]:
            kept = files.get(shot_file(criterion, name))
            image = None if kept is None else run_file(store, run.run_id, kept)
            if image is not None:
                yield criterion, name, image


def _save(
    store: Store,
    contract_id: str,
    criterion: str,
    name: str,
    png: bytes,
    run_id: str,
    at: str,
    how: str = "delivered",
) -> Baseline:
    made = Baseline(
        contract_id, criterion, name, hashlib.sha256(png).hexdigest(), run_id, how, at, png
    )
    store_baselines(store).save(made)
    return made
