"""A store for the viewer's tests: a real contract evaluated twice (a failing test, then the fix),
each iteration scored by a validated card and aggregated, with a hold-out the generator never
sees."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import anyio
import pytest
from aggregate_cards import store_card
from projects import BUG_HEADER, calc_repo, command_check, contract_for, evaluate_deps, pytest_check

from referee.tools.aggregate import aggregate
from referee.tools.evaluate.entry import EvaluateInput, evaluate
from referee.tools.evidence.recorder import EvidenceRecorder
from referee.tools.evidence.redact import Redactor
from referee.tools.models.evidence import EvidenceSummary
from referee.tools.rubrics import load_rubrics
from referee.tools.store import Store, load_run, save_run

FAILING = "def test_sums_three():\n    assert sum([1, 2, 3]) == 7, 'sum is off'\n"
FIXED = BUG_HEADER + "from calc import add\n\n\ndef test_sums_three():\n    assert add(3, 3) == 6\n"
# The fix also changes the code under test, whose changed lines the tests then cover (or not).
CALC_FIXED = (
    "def add(a, b):\n    total = a + b\n    if total < 0:\n        return -1\n    return total\n"
)
HOLDOUT_TEXT = "the secret rounding rule holds"
# A judge's evidence that tries to break out of the page: the viewer escapes every stored text.
HOSTILE = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>"


class Viewed(NamedTuple):
    store: Store
    repo: Path
    contract_id: str
    runs: dict[int, str]  # iteration -> run id
    cards: dict[int, int]  # iteration -> scorecard id


def _now() -> datetime:
    return datetime.now(UTC)


def _card(draft: dict[str, Any], score: int, iteration: int) -> dict[str, Any]:
    card = {k: v for k, v in draft.items() if k not in ("verdict", "weighted_score")}
    card["provider"], card["evaluator_model"] = "scripted", "judge-v1"
    for dim in card["dimensions"].values():
        if dim["score"] is None:
            dim["score"] = score
            dim["evidence"] = f"read src/calc.py by hand {HOSTILE}"
    # The judge lowers a deterministic score: the viewer highlights it as an override.
    card["dimensions"]["craft"]["score"] = 2
    card["dimensions"]["craft"]["evidence"] = "the names say little"
    for criterion in card["criteria"]:
        if criterion["pass"] is None:
            criterion["pass"], criterion["evidence"] = True, "read by hand"
    card["issues"] = [
        *card.get("issues", []),
        {
            "severity": "MEDIUM",
            "description": f"iteration {iteration}: naming could be clearer {HOSTILE}",
            "location": "src/calc.py:1",
            "suggestion": "rename",
        },
    ]
    card["guidance"] = "Fix the failing test."
    return card


def viewed_store(folder: Path) -> Viewed:
    """Evaluate, score and aggregate two iterations of a one-evaluator contract."""
    repo = calc_repo(folder / "calc")
    (repo / "tests" / "test_sum.py").write_text(FAILING, encoding="utf-8")
    store = Store(repo / ".referee")
    contract = contract_for(
        store,
        repo,
        {
            "criterion": "sums are right",
            "verification_method": "test",
            "check": pytest_check("tests/test_sum.py"),
        },
        {
            "criterion": HOLDOUT_TEXT,
            "verification_method": "test",
            "check": command_check("print('hidden check ran')"),
            "holdout": True,
        },
        max_iterations=3,
    )
    runs, cards = {}, {}
    for it, (text, score) in enumerate(((FAILING, 1), (FIXED, 2)), 1):
        (repo / "tests" / "test_sum.py").write_text(text, encoding="utf-8")
        if it == 2:
            (repo / "src" / "calc.py").write_text(CALC_FIXED, encoding="utf-8")
        request = EvaluateInput(contract_id=contract.id)
        result = anyio.run(evaluate, request, evaluate_deps(store, repo))
        runs[it] = result.run_id
        draft = result.draft_scorecard.model_dump(mode="json", by_alias=True)
        cards[it] = store_card(store, contract, _card(draft, score, it))
        aggregate(contract.id, store=store, rubrics=load_rubrics(None), now=_now)
    return Viewed(store, repo, contract.id, runs, cards)


def filled_view(factory: pytest.TempPathFactory, data_home: Path) -> Iterator[Viewed]:
    """A module's viewed store (the body of its fixture), its key in the session's data home."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_DATA_HOME", str(data_home))
        found = viewed_store(factory.mktemp("view"))
        yield found
        found.store.close()


# A 1×1 PNG: a screenshot as the browser grader keeps one.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)
PLAYWRIGHT_MESSAGE = (
    "Locator expected to be visible\nCall log:\n  - waiting for get_by_text('Saved')\n"
    "    - waiting for get_by_text('Saved')"
)


def browser_run(
    store: Store,
    base_run_id: str,
    folder: Path,
    criterion: str = "AC-F-001",
    trace: Path | None = None,
) -> str:
    """A copy of a stored run with one failing browser check of `criterion` (its screenshot and
    Playwright's message, and `trace` if given), as the browser grader records it."""
    base = load_run(store, base_run_id).evaluation
    # One run a folder: each test that adds a browser run to a module's store gets its own.
    run_id = f"R20991231000000-{criterion[-3:]}{hashlib.sha1(str(folder).encode()).hexdigest()[:5]}"
    shot = folder / "shot.png"
    shot.write_bytes(PNG)
    recorder = EvidenceRecorder(run_id, store.run_artifacts(run_id), Redactor(), _now)
    for _ in base.evidence:  # the browser item follows the copied run's evidence ids
        recorder.next_id()
    outcome = {
        "status": "fail",
        "reason": "expectation 1 failed: 'Saved' is not visible",
        "steps": [{"action": "click", "selector": "#save", "ok": True}],
        "expectations": [
            {"type": "visible", "text": "Saved", "ok": False, "message": PLAYWRIGHT_MESSAGE}
        ],
    }
    item = recorder.record(
        tool="browser",
        summary="'Saved' is not visible",
        command="browser http://127.0.0.1:8000/",
        exit_code=1,
        criterion_id=criterion,
        extra_artifacts=[shot, *([trace] if trace else [])],
        details=outcome,
    )
    evaluation = base.model_copy(
        update={"run_id": run_id, "evidence": [*base.evidence, EvidenceSummary.of(item)]}
    )
    save_run(store, evaluation, [item], "unsigned-test", created_at="2099-12-31T00:00:00+00:00")
    return run_id
