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

H. A hold-out's run against every other: the hold-out's test file is laid over the tree for its
   criterion's runs only, so code under test that counts the files of the tests' folder returns
   the right sum only where one more file than the generator wrote is there. Listing or looking
   for the tests' folder is a question about the tests (`code_detects_tests`), in every language.

Each attack is timed so that it beats the old order (its deadline falls between the first run
and the next); were the machine too slow for that, the attack fails on its own, and the test still
holds: it never asserts on a duration.
"""

from __future__ import annotations

import time
from pathlib import Path

import yaml
from cli_runs import PYTEST, cli, evaluated, write_files
from gitrepo import make_repo
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


# === H: the hold-out's run told from the others =================================================

_COUNTS_TESTS = """import os

_TESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tests")


def _many():
    try:
        return len([n for n in os.listdir(_TESTS) if n.endswith(".py")]) > 1
    except OSError:
        return False


def add(a, b):
    return a + b if _many() else a - b
"""
_HIDDEN = "import calc\n\n\ndef test_add_hidden():\n    assert calc.add(2, 3) == 5\n"


def test_h_code_counting_the_tests_folder_is_found(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    make_repo(root, _PY_BASE)
    visible = {"kind": "tests", "argv": PYTEST}
    hidden = {**visible, "must_fail_at_base": True}
    contract = {
        "goal": "Fix add.",
        "task_type": "bug",
        "out_of_scope": ["ui"],
        "functional": [
            {"criterion": "the tests pass", "verification_method": "test", "check": visible},
            {
                "criterion": "a hidden check of add",
                "verification_method": "test",
                "holdout": True,
                "check": hidden,
            },
        ],
    }
    spec = tmp_path / "contract.yaml"
    spec.write_text(yaml.safe_dump(contract), encoding="utf-8")
    code, made = cli("--root", str(root), "contract", "create", str(spec), "--json")
    assert code == 0, made
    cid = made["contract"]["id"]
    secret = tmp_path / "vault" / "test_add_hidden.py"
    secret.parent.mkdir()
    secret.write_text(_HIDDEN, encoding="utf-8")
    code, added = cli(
        "--root", str(root), "holdout", "add", cid, str(secret), "--to", "tests", "--json"
    )
    assert code == 0, added
    write_files(root, {"calc.py": _COUNTS_TESTS})
    code, evaluation = cli("--root", str(root), "evaluate", cid, "--json")
    found = [(a["id"], a.get("location", "")) for a in evaluation["antipatterns"]]
    assert ("code_detects_tests", "calc.py:8") in found, found
    assert code == 1
