"""The guard's view of a hold-out run's output: what it alone produced is withheld, what the
generator can see anyway (its own code in the hold-out's traceback, an ordinary run's output)
is not."""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import calc_repo, contract_for, evaluated, pytest_check

from referee.tools.aggregate.holdouts import RawIssue, holdout_guard
from referee.tools.store import Store

pytestmark = pytest.mark.anyio

# The change: a float sum that asserts its own precision, so that the hold-out's failure runs
# through it and pytest prints these lines in the hold-out's traceback.
CALC = (
    "def add(a, b):\n"
    "    total_as_float = float(a) + float(b)\n"
    "    assert total_as_float < 1e19, 'precision lost above 1e19'\n"
    "    return int(total_as_float)\n"
)
HIDDEN = (
    "import os, sys\n"
    "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'src'))\n"
    "from calc import add\n\n"
    "def test_sums_beyond_a_float():\n"
    "    print('probing with 98765432109876543210')\n"
    "    assert add(98765432109876543210, 1) == 98765432109876543211\n"
)


async def test_what_only_a_holdout_run_printed_is_withheld_and_the_generators_own_code_is_not(
    tmp_path: Path,
) -> None:
    repo = calc_repo(tmp_path / "calc", {"tests/test_hidden.py": HIDDEN})
    store = Store(tmp_path / "store")
    contract = contract_for(
        store,
        repo,
        {
            "criterion": "visible",
            "verification_method": "test",
            "check": pytest_check("tests/test_calc.py"),
        },
        {
            "criterion": "sums beyond a float's precision are exact",
            "verification_method": "test",
            "holdout": True,
            "check": pytest_check("tests/test_hidden.py"),
        },
    )
    (repo / "src" / "calc.py").write_text(CALC)
    evaluation = await evaluated(store, repo, contract.id)
    assert [c.status for c in evaluation.criteria] == ["pass", "fail"]
    guard = holdout_guard(store, contract, evaluation.iteration)

    def why(text: str) -> str | None:
        return guard.leak(RawIssue("evaluator", "HIGH", text, "src/calc.py:3"))

    # The generator's own lines, though the hold-out's traceback quotes them.
    assert why("`assert total_as_float < 1e19` fails for large sums") is None
    assert why("`total_as_float = float(a) + float(b)` loses precision") is None
    assert why("it fails as total_as_float = float(a) + float(b) rounds") is None
    assert why("it stops at assert total_as_float < 1e19 for large sums") is None
    # What only the hold-out's run printed, however it is spaced or cased.
    assert why("it probes with 98765432109876543210") is not None
    assert why("ADD(98765432109876543210,   1) == 98765432109876543211 fails") is not None
    assert why("test_sums_beyond_a_float fails") is not None
