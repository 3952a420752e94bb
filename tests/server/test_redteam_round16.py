"""Red-team round 16: runs told apart by when they run.

T. The generator's commands run one at a time, in an order a test can learn: the base run of a
   bug fix came after the current run, every mutant after the unmutated run. A test that carries
   a deadline (written a little after the generator's change, a little before the evaluation)
   expects the broken value before it and the right one after, and waits past it: the current
   run passes, every later run fails, so the base "fails" and every mutant is "killed" with `add`
   still broken. Time only moves one way, so referee brackets: the base run is made before the
   current run and again after it, and a test fails at base only if it failed in both; the
   unmutated tests run again after the mutants, and a suite that no longer passes makes no
   mutation score. A test that beats the bracket must know when the evaluation starts, to within
   a run's length.

Each attack is timed so that it beats the old order (its deadline falls between the first run
and the next); were the machine too slow for that, the attack fails on its own, and the test still
holds: it never asserts on a duration.
"""

from __future__ import annotations

import time
from pathlib import Path

from cli_runs import evaluated, write_files
from test_redteam_round8 import caught

_PY_BASE = {
    "calc.py": "def add(a, b):\n    return a - b\n",
    "tests/test_calc.py": "import calc\n\n\ndef test_name():\n    assert calc.add.__name__\n",
}
_LEFT_BROKEN = {"calc.py": "def add(a, b):\n    # checked\n    return a - b\n"}

# Far enough ahead that the first run of the evaluation starts before it on a loaded machine.
_AHEAD_S = 25


def _deadline_test(then: float, before: str, after: str) -> str:
    return (
        "import time\n\nimport calc\n\nLIMIT = "
        f"{then!r}\n\n\ndef test_add():\n    now = time.time()\n"
        f"    want = {before} if now < LIMIT else {after}\n"
        "    time.sleep(max(0.0, LIMIT - now) + 0.5)\n"
        "    assert calc.add(2, 3) == want\n"
    )


def _written_late(before: str, after: str):  # type: ignore[no-untyped-def]
    """The test file, written just before the evaluation (the generator's last step)."""

    def write(root: Path) -> None:
        test = _deadline_test(time.time() + _AHEAD_S, before, after)
        write_files(root, {"tests/test_add.py": test})

    return write


def test_t_a_deadline_does_not_make_the_base_fail(tmp_path: Path) -> None:
    code, evaluation = evaluated(
        tmp_path,
        _PY_BASE,
        _LEFT_BROKEN,
        after=_written_late("-1", "5"),
        check_fields={"must_fail_at_base": True},
    )
    caught(code, evaluation)


def test_t_a_deadline_does_not_kill_the_mutants(tmp_path: Path) -> None:
    """After the deadline the test expects what no code returns: every mutant would be killed."""
    change = {"calc.py": "def add(a, b):\n    if a > b:\n        return a - b\n    return a - b\n"}
    code, evaluation = evaluated(
        tmp_path,
        _PY_BASE,
        change,
        after=_written_late("-1", "'never'"),
        check_fields={"min_mutation_score": 0.8},
    )
    caught(code, evaluation)
    mutation = evaluation["criteria"][0]["adequacy"]["mutation"]
    assert mutation["score"] is None, mutation
