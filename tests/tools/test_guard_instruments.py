"""referee's pytest guard finds the tests' instruments replaced during a run, however the code
spelled the replacement: the run is bypassed. A test's own patch, undone by its fixture or its
`with` block, is not."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from guarded_runs import (
    APPROX_TESTS,
    CALC,
    DOCTEST_CALC,
    ISCLOSE_TESTS,
    UNITTEST_TESTS,
    run_guarded,
)

from referee.tools.runners.base import Call
from referee.tools.runners.py_unittest import plan

RAISES_TESTS = (
    "import pytest\n\nimport calc\n\n\ndef test_refuses():\n"
    "    with pytest.raises(TypeError):\n        calc.add(1, None)\n"
)

# The code under test (calc.py) replaces an instrument; each is spelled so that no reader of the
# code could name it.
FORGED = {
    "assert-equal-by-exec": (
        CALC + "exec('import unittest; unittest.TestCase.assertEqual = lambda *a, **k: None')\n",
        UNITTEST_TESTS,
    ),
    "assert-equal-through-import-module": (
        CALC + "import importlib\n"
        "setattr(importlib.import_module('unit' + 'test').TestCase, 'assert' + 'Equal',"
        " lambda *a, **k: None)\n",
        UNITTEST_TESTS,
    ),
    "base-assert-equal": (
        CALC + "import unittest.case as c\nc.TestCase._baseAssertEqual = lambda *a, **k: None\n",
        UNITTEST_TESTS,
    ),
    "isclose-replaced-when-add-runs": (
        "def add(a, b):\n    __import__('math').__dict__['isclose'] = lambda *a, **k: True\n"
        "    return a - b\n",
        ISCLOSE_TESTS,
    ),
    "approx-replaced-by-code-under-test": (
        CALC + "import sys\nsys.modules['pytest'].approx = lambda expected, **k: type("
        "'A', (), {'__eq__': lambda s, o: True})()\n",
        APPROX_TESTS,
    ),
    "raises-replaced": (
        CALC + "import contextlib, pytest\npytest.raises = lambda *a, **k: contextlib.suppress()\n",
        RAISES_TESTS,
    ),
    "displayhook-restored-by-doctest": (
        DOCTEST_CALC + "import sys\nsys.__displayhook__ = lambda v: print(3)\n",
        None,
    ),
    "doctest-output-checker": (
        DOCTEST_CALC + "import doctest\n"
        "doctest.OutputChecker.check_output = lambda self, want, got, flags: True\n",
        None,
    ),
    "failure-report-made-a-pass": (
        CALC + "import _pytest.reports as r\n_orig = r.TestReport.from_item_and_call\n"
        "def _passed(item, call):\n    report = _orig(item, call)\n"
        "    report.outcome = 'passed'\n    return report\n"
        "r.TestReport.from_item_and_call = staticmethod(_passed)\n",
        ISCLOSE_TESTS,
    ),
    "operator-eq-for-a-sorted-check": (
        CALC + "import operator\noperator.eq = lambda a, b: True\n",
        "import operator\n\nimport calc\n\n\ndef test_add():\n"
        "    assert operator.eq(calc.add(1, 2), 3)\n",
    ),
}

# Tests that patch for themselves, undone before the test ends.
HONEST = {
    "monkeypatched-builtin": (
        "def ask():\n    return input('? ')\n",
        "import calc\n\n\ndef test_ask(monkeypatch):\n"
        "    monkeypatch.setattr('builtins.input', lambda _: 'y')\n    assert calc.ask() == 'y'\n",
    ),
    "mock-patch-block": (
        "import math\n\n\ndef near(a, b):\n    return math.isclose(a, b)\n",
        "from unittest import mock\n\nimport calc\n\n\ndef test_near():\n"
        "    with mock.patch('math.isclose', return_value=False):\n"
        "        assert not calc.near(1, 1)\n    assert calc.near(1, 1)\n",
    ),
    "doctest-passes": (DOCTEST_CALC.replace("a - b", "a + b"), None),
}


def _run(tmp_path: Path, calc: str, tests: str | None) -> str | None:
    files = {"calc.py": calc} if tests is None else {"calc.py": calc, "tests/test_calc.py": tests}
    return run_guarded(tmp_path, files)[1]


@pytest.mark.parametrize("form", sorted(FORGED))
def test_an_instrument_replaced_during_the_run_bypasses_it(form: str, tmp_path: Path) -> None:
    calc, tests = FORGED[form]
    said = _run(tmp_path, calc, tests)
    assert said is not None and "replaced during the run" in said, (form, said)


@pytest.mark.parametrize("form", sorted(HONEST))
def test_a_patch_the_test_undoes_is_its_own(form: str, tmp_path: Path) -> None:
    calc, tests = HONEST[form]
    assert _run(tmp_path, calc, tests) is None, form


def _unittest(tmp_path: Path, calc: str, tests: str) -> list[tuple[str, str]]:
    """Run `python -m unittest` the way referee plans it; each case's id and outcome tag."""
    root = tmp_path / "project"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "__init__.py").write_text("", encoding="utf-8")
    (root / "calc.py").write_text(calc, encoding="utf-8")
    (root / "tests" / "test_calc.py").write_text(tests, encoding="utf-8")
    reports = tmp_path / "reports"
    reports.mkdir()
    command = (sys.executable, "-m", "unittest")
    planned = plan(Call(prefix=(), command=command, cwd=root, tree=root, reports=reports))
    subprocess.run(list(planned.argv), cwd=root, capture_output=True, timeout=120, check=False)
    found = ET.parse(planned.report.files[0]).getroot().iter("testcase")
    return [(c.get("name") or "", c[0].tag if len(c) else "passed") for c in found]


@pytest.mark.parametrize(
    "form", ["assert-equal-by-exec", "assert-equal-through-import-module", "base-assert-equal"]
)
def test_unittest_runs_report_an_instrument_replaced(form: str, tmp_path: Path) -> None:
    calc, tests = FORGED[form]
    assert tests is not None
    cases = _unittest(tmp_path, calc, tests)
    assert ("referee.instruments", "error") in cases, (form, cases)


def test_an_honest_unittest_run_has_no_instruments_case(tmp_path: Path) -> None:
    cases = _unittest(tmp_path, CALC.replace("a - b", "a + b"), UNITTEST_TESTS)
    assert cases == [("tests.test_calc.T.test_add", "passed")]
