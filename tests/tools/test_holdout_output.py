"""The guard's view of a hold-out run's output: what it alone produced is withheld, even the
generator's own lines (code that read the hidden test chooses which of them the hidden run
prints); what an ordinary run showed is not."""

from __future__ import annotations

import base64
import binascii
import codecs
import gzip
from pathlib import Path
from typing import Any

import pytest
from projects import calc_repo, contract_for, evaluated, pytest_check

from referee.tools.aggregate.holdouts import RawIssue, holdout_guard
from referee.tools.models.contract import Contract
from referee.tools.models.evaluation import Evaluation
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


VISIBLE = {
    "criterion": "visible",
    "verification_method": "test",
    "check": pytest_check("tests/test_calc.py"),
}
HIDDEN_CHECK = {
    "criterion": "sums beyond a float's precision are exact",
    "verification_method": "test",
    "holdout": True,
    "check": pytest_check("tests/test_hidden.py"),
}


async def _evaluated(
    tmp_path: Path, *criteria: dict[str, Any]
) -> tuple[Store, Contract, Evaluation]:
    """The calculator with the hidden test, a contract of `criteria`, and CALC evaluated."""
    repo = calc_repo(tmp_path / "calc", {"tests/test_hidden.py": HIDDEN})
    store = Store(tmp_path / "store")
    contract = contract_for(store, repo, *criteria)
    (repo / "src" / "calc.py").write_text(CALC)
    return store, contract, await evaluated(store, repo, contract.id)


async def test_what_only_a_holdout_run_printed_is_withheld_even_the_generators_own_lines(
    tmp_path: Path,
) -> None:
    store, contract, evaluation = await _evaluated(tmp_path, VISIBLE, HIDDEN_CHECK)
    assert [c.status for c in evaluation.criteria] == ["pass", "fail"]
    guard = holdout_guard(store, contract, evaluation.iteration)

    def why(text: str, location: str = "src/calc.py") -> str | None:
        return guard.leak(RawIssue("evaluator", "HIGH", text, location))

    # The generator's own lines, as only the hold-out's traceback printed them, and the place
    # it failed at: which of them the hidden run printed can be the code's answer.
    assert why("`assert total_as_float < 1e19` fails for large sums") is not None
    assert why("`total_as_float = float(a) + float(b)` loses precision") is not None
    assert why("the check fails", "src/calc.py:3") is not None
    # What only the hold-out's run printed, however it is spaced or cased.
    assert why("it probes with 98765432109876543210") is not None
    assert why("ADD(98765432109876543210,   1) == 98765432109876543211 fails") is not None
    assert why("test_sums_beyond_a_float fails") is not None
    # The generator's code the hidden run did not print, at a place it did not report.
    assert why("`return int(total_as_float)` truncates", "src/calc.py:4") is None
    assert why("add() has no docstring") is None


def _uu(data: bytes) -> str:
    return "".join(binascii.b2a_uu(data[i : i + 45]).decode() for i in range(0, len(data), 45))


HIDDEN_LINE = "assert add(98765432109876543210, 1) == 98765432109876543211"
OWN_LINE = "total_as_float = float(a) + float(b)"
# How code under test could spell a hold-out's line through a channel that reaches the brief.
DISGUISES = {
    "hex": lambda t: t.encode().hex(),
    "base32 in test ids, 40 characters each": lambda t: " ".join(
        f"test_notes[{n:02d}{c}]"
        for n, c in enumerate(_pieces(base64.b32encode(t.encode()).decode().rstrip("="), 40))
    ),
    "base64, 2 bytes in": lambda t: base64.b64encode(b"id" + t.encode()).decode(),
    "base64url": lambda t: base64.urlsafe_b64encode(t.encode()).decode(),
    "base85": lambda t: base64.b85encode(t.encode()).decode(),
    "gzip + base64": lambda t: base64.b64encode(gzip.compress(t.encode())).decode(),
    "reversed": lambda t: t[::-1],
    "rot13": lambda t: codecs.encode(t, "rot13"),
    "percent-encoded": lambda t: "".join(f"%{b:02x}" for b in t.encode()),
    "character codes": lambda t: str(list(t.encode())),
    "a Caesar shift of two": lambda t: "".join(chr(ord(c) + 2) for c in t),
    "every other character": lambda t: t[::2] + " and " + t[1::2],
    "fullwidth": lambda t: "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in t),
    "uuencode": lambda t: _uu(t.encode()),
}


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


async def test_a_holdouts_line_in_a_disguise_is_withheld_and_the_generators_own_is_not(
    tmp_path: Path,
) -> None:
    store, contract, evaluation = await _evaluated(tmp_path, HIDDEN_CHECK)
    guard = holdout_guard(store, contract, evaluation.iteration, ["tests/test_hidden.py"], [HIDDEN])
    for name, disguise in DISGUISES.items():
        hidden = RawIssue("evaluator", "HIGH", f"the tests print {disguise(HIDDEN_LINE)}")
        own = RawIssue("evaluator", "HIGH", f"the change has {disguise(OWN_LINE)}")
        assert guard.leak(hidden) is not None, name
        assert guard.leak(own) is None, name
