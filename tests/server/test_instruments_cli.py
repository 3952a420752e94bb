"""Through the CLI: code under test that replaces what the tests judge with (a string run by
`exec`, so no reader names it) leaves the run `runner_bypassed`, under pytest and under
`python -m unittest`; the honest fix of the same project passes."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from cli_runs import evaluated
from redteam_round5 import PY_INSTRUMENT, PY_UNITTEST_TESTS

pytestmark = [pytest.mark.slow]

CHECKS = {
    "pytest": [sys.executable, "-m", "pytest", "-q", "tests"],
    "unittest": [sys.executable, "-m", "unittest", "discover", "-s", "tests", "-t", "."],
}


def _evaluated(tmp_path: Path, runner: str, calc: str) -> tuple[int, dict[str, Any]]:
    base = {
        "calc.py": "def add(a, b):\n    return a - b\n",
        "tests/__init__.py": "",
        "tests/test_calc.py": PY_UNITTEST_TESTS,
    }
    return evaluated(tmp_path, base, {"calc.py": calc}, argv=CHECKS[runner])


@pytest.mark.parametrize("runner", sorted(CHECKS))
def test_an_instrument_replaced_by_the_code_under_test_fails_the_run(
    runner: str, tmp_path: Path
) -> None:
    code, evaluation = _evaluated(tmp_path, runner, PY_INSTRUMENT)
    criterion = evaluation["criteria"][0]
    said = (criterion["status"], criterion.get("reason_code"), criterion["reason"])
    assert code == 1, said
    assert criterion["status"] != "pass", said
    if runner == "pytest":
        assert criterion["reason_code"] == "runner_bypassed", said
        assert "unittest.TestCase.assertEqual" in criterion["reason"], said
    else:  # the reporter's own failing case, whose text names the replaced instrument
        assert "referee.instruments" in criterion["reason"], said


@pytest.mark.parametrize("runner", sorted(CHECKS))
def test_the_honest_fix_passes(runner: str, tmp_path: Path) -> None:
    code, evaluation = _evaluated(tmp_path, runner, "def add(a, b):\n    return a + b\n")
    criterion = evaluation["criteria"][0]
    assert criterion["status"] == "pass", criterion["reason"]
    assert code == 0, evaluation
