"""Live progress: an evaluate publishes its progress while it runs (the messages MCP reports),
and the viewer shows the evaluations running now (for the generator, only that one runs)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import anyio
from projects import calc_repo, contract_for, evaluate_deps, pytest_check

from referee.tools.evaluate import EvaluateInput, evaluate
from referee.tools.evaluate.progress import FOLDER, live_progress, running
from referee.tools.store import Store
from referee.tools.view import Context, page_for
from referee.tools.view.gather import contract_page, live_rows


def _now() -> datetime:
    return datetime.now(UTC)


def test_an_evaluate_publishes_its_progress_while_it_runs(tmp_path: Path) -> None:
    repo = calc_repo(tmp_path / "calc")
    store = Store(repo / ".referee")
    check = pytest_check("tests/test_calc.py")
    criterion = {"criterion": "adds", "verification_method": "test", "check": check}
    contract = contract_for(store, repo, criterion)
    seen: list[list[str]] = []

    async def watch(done: float, total: float | None, message: str) -> None:
        seen.append(
            [
                f"{r.contract_id} {r.done:g}/{r.total:g} {r.message}"
                for r in running(repo / ".referee")
            ]
        )

    deps = evaluate_deps(store, repo)
    deps.on_progress = watch
    anyio.run(evaluate, EvaluateInput(contract_id=contract.id), deps)
    assert seen and all(len(found) == 1 for found in seen)
    assert any(f"{contract.id} " in found[0] and "AC-F-001" in found[0] for found in seen)
    assert running(store.home) == [] and not list((store.home / FOLDER).glob("*.json"))
    store.close()


def test_the_viewer_shows_what_runs_now_and_hides_its_checks_from_the_generator(
    tmp_path: Path,
) -> None:
    repo = calc_repo(tmp_path / "calc")
    store = Store(repo / ".referee")
    contract = contract_for(store, repo, {"criterion": "adds", "verification_method": "manual"})
    with live_progress(store.home, contract.id, "evaluator", _now) as live:
        anyio.run(live.relay(None), 1, 4, "AC-F-002")
        (row,) = live_rows(store, "evaluator")
        assert (row.done, row.total, row.message) == (1, 4, "AC-F-002")
        (hidden,) = live_rows(store, "generator")
        assert (hidden.done, hidden.total, hidden.message) == (None, None, "running")
        assert hidden.recent == []
        assert contract_page(store, contract.id, "evaluator").running == [row]
        asked = page_for(store, "live.html", "evaluator", Context(live=True), {"refresh": "2"})
        assert 'http-equiv="refresh"' in asked.body and "AC-F-002" in asked.body
        plain = page_for(store, "live.html", "generator", Context(live=True)).body
        assert 'http-equiv="refresh"' not in plain and "AC-F-002" not in plain
        assert contract.id in plain
    assert live_rows(store, "evaluator") == []
    store.close()


def test_a_progress_file_of_a_process_that_is_gone_is_not_shown(tmp_path: Path) -> None:
    home = tmp_path / ".referee"
    with live_progress(home, "SC-x-20260101", None, _now) as live:
        live.state["pid"] = 2**22 + 12345  # above Linux's pid_max: no such process
        live.write()
        assert running(home) == []
    assert os.listdir(home / FOLDER) == []
