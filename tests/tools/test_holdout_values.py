"""aggregate's hold-out guard recognises a value quoted from a hidden run by itself, however
short: a token with a digit that only the hold-out's run printed."""

from __future__ import annotations

import pytest

from referee.tools.aggregate.holdout_runs import HoldoutOutput, fold, value_tokens


def _guard(produced: str, known: str) -> HoldoutOutput:
    return HoldoutOutput(
        produced=fold(produced),
        known=fold(known),
        values=frozenset(value_tokens(fold(produced)) - value_tokens(fold(known))),
    )


HIDDEN = "E   assert add(10**20, 1) == 100000000000000000001\nexpected_total_cents mismatch, 0x1f"
VISIBLE = "2 passed in 0.01s\ntests/test_calc.py::test_add PASSED"


@pytest.mark.parametrize(
    "issue",
    [
        "add() is inexact for (10**20, 1)",
        "ADD IS INEXACT FOR 10**20",
        "the total 100000000000000000001 is off",
        "mask 0x1f is wrong",
    ],
)
def test_a_value_only_the_hidden_run_printed_is_withheld(issue: str) -> None:
    assert _guard(HIDDEN, VISIBLE).repeated(issue) is not None


@pytest.mark.parametrize(
    "issue",
    [
        "add() has no docstring",
        "2 passed but the edge case of 0 is untested",
        "tests/test_calc.py::test_add checks one case only",
        "the function is 120 lines long",
    ],
)
def test_an_issue_of_the_visible_world_is_kept(issue: str) -> None:
    assert _guard(HIDDEN, VISIBLE).repeated(issue) is None


def test_value_tokens_are_values_and_long_names() -> None:
    # Each number also stands as its magnitude, however written.
    assert value_tokens(fold("add(10**20, 1) -1 42 1e9 x_y expected_total 3.11.2")) == {
        "10**20",
        "#100000000000000000000",
        "#1e+20",
        "1e9",
        "#1000000000",
        "3.11.2",
    }


@pytest.mark.parametrize("spelled", ["1e20", "-1e20", "10^20", "100_000_000_000_000_000_000"])
def test_a_hidden_value_written_another_way_is_withheld(spelled: str) -> None:
    assert _guard("assert add(10**20, 1) == 10**20 + 1", VISIBLE).repeated(
        f"add({spelled}, 1) loses the 1"
    )


def test_a_small_number_is_no_value() -> None:
    assert value_tokens(fold("0x1f 17 -17")) >= {"0x1f", "-17"}
    assert "#17" not in value_tokens(fold("0x1f 17 -17"))
