"""Skips under other names, through the CLI: a broken `add` whose tests are kept from running by
an alias of a skip mark, a helper that skips, a fixture that skips or a pytest class given an
`__init__` (tools/tampering/python.py). `referee evaluate` names the skip (`test_skipped`),
exits 1, and the base's version of the test still fails on the change.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_runs import evaluated

pytestmark = [pytest.mark.slow]

BASE = {
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/__init__.py": "",
    "tests/test_calc.py": (
        "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))\n"
        "import pytest\nfrom calc import add\n\n\nclass TestAdd:\n"
        "    def test_add(self):\n        assert add(1, 2) == 3\n"
    ),
}
HEAD = "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))\n"
HEAD += "import pytest\nfrom calc import add\n\n\n"
CASE = "class TestAdd:\n{extra}    def test_add(self{args}):\n{body}        assert add(1, 2) == 3\n"

SKIPPED = {
    "an alias of the skip mark": HEAD
    + "off, _ = pytest.mark.skip, None\n\n\n"
    + CASE.format(extra="    @off\n", args="", body=""),
    "a helper that skips": HEAD
    + "def _later():\n    pytest.skip('later')\n\n\n"
    + CASE.format(extra="", args="", body="        _later()\n"),
    "a fixture that skips, requested": HEAD
    + "@pytest.fixture\ndef later():\n    pytest.skip('later')\n\n\n"
    + CASE.format(extra="", args=", later", body=""),
    "a class pytest no longer collects": HEAD
    + CASE.format(extra="    def __init__(self):\n        self.n = 1\n\n", args="", body=""),
}


@pytest.mark.parametrize("name", list(SKIPPED))
def test_a_skip_under_another_name_is_named(name: str, tmp_path: Path) -> None:
    change = {"calc.py": "def add(a, b):\n    return a - b\n", "tests/test_calc.py": SKIPPED[name]}
    code, evaluation = evaluated(tmp_path, BASE, change)
    found = [a for a in evaluation["antipatterns"] if a["id"] == "test_skipped"]
    assert found and "test_add" in found[0]["evidence"], evaluation["antipatterns"]
    assert code == 1, evaluation
    criterion = evaluation["criteria"][0]
    assert criterion["status"] == "fail" and "base form" in criterion["reason"], criterion
