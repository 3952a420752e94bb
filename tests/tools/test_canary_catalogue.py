"""The canary catalogue: each kind plants one defect in Python source, keeping every other line
where it was, so a judge's issue can be compared with the defect's line."""

from __future__ import annotations

import ast

import pytest
from judges import CHANGE

from referee.tools.canary import DEFECT_KINDS, candidates, plantable

SOURCE = CHANGE.encode("utf-8")


@pytest.mark.parametrize("kind", [k for k in DEFECT_KINDS if k != "surviving_mutant"])
def test_every_kind_plants_a_defect_that_keeps_the_file_valid_and_its_lines(kind: str) -> None:
    found = candidates(kind, "src/calc.py", SOURCE)  # type: ignore[arg-type]
    assert found, kind
    for defect in found:
        planted = defect.apply(SOURCE)
        ast.parse(planted)
        assert planted != SOURCE
        before, after = SOURCE.splitlines(), planted.splitlines()
        assert before[: defect.line - 1] == after[: defect.line - 1]
        if kind != "hardcoded_credential":
            assert len(after) == len(before)


def test_the_defects_are_the_ones_named() -> None:
    def first(kind: str) -> str:
        (defect, *_) = candidates(kind, "src/calc.py", SOURCE)  # type: ignore[arg-type]
        return defect.apply(SOURCE).decode().splitlines()[defect.line - 1].strip()

    assert first("off_by_one") == "if x >= hi:"
    assert first("removed_check") == "pass"
    assert first("swallowed_error") == "pass"
    assert first("inverted_condition") == "if not (x > hi):"
    assert first("hardcoded_credential").startswith('SERVICE_LOGIN = ("svc", "')


def test_a_surviving_mutant_is_planted_only_from_the_mutants_the_tests_left_alive() -> None:
    assert candidates("surviving_mutant", "src/calc.py", SOURCE) == []
    (defect,) = candidates("surviving_mutant", "src/calc.py", SOURCE, [(4, "+", "-")])
    assert defect.line == 4 and defect.apply(SOURCE).splitlines()[3].strip() == b"return a - b"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("src/calc.py", True),
        ("calc.py", True),
        ("tests/test_calc.py", False),
        ("src/calc_test.py", False),
        ("conftest.py", False),
        ("src/calc.js", False),
        ("main.go", False),
    ],
)
def test_only_python_source_that_is_not_a_test_is_plantable(path: str, expected: bool) -> None:
    assert plantable(path) is expected
