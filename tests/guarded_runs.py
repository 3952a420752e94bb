"""A tiny project with a broken `add`, run by pytest under referee's guard as referee runs it:
the instruments tests (tests/tools/test_guard_instruments.py, test_redteam_instruments.py)
share its sources and its runner."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from referee.tools.runners.guard import guarded_env, read_guard

CALC = "def add(a, b):\n    return a - b\n"
UNITTEST_TESTS = (
    "import unittest\n\nimport calc\n\n\nclass T(unittest.TestCase):\n"
    "    def test_add(self):\n        self.assertEqual(calc.add(1, 2), 3)\n"
)
ISCLOSE_TESTS = (
    "import math\n\nimport calc\n\n\ndef test_add():\n    assert math.isclose(calc.add(1, 2), 3)\n"
)
APPROX_TESTS = (
    "import pytest\n\nimport calc\n\n\ndef test_add():\n"
    "    assert calc.add(1, 2) == pytest.approx(3)\n"
)
DOCTEST_CALC = 'def add(a, b):\n    """\n    >>> add(1, 2)\n    3\n    """\n    return a - b\n'
DOCTESTS = ("--doctest-modules", "calc.py")


def run_guarded(tmp_path: Path, files: dict[str, str]) -> tuple[Path, str | None]:
    """Write the project, run its tests (tests/test_calc.py, else calc.py's doctests) under the
    guard; the JUnit report and what the guard's log says of the run (None: not bypassed)."""
    root = tmp_path / "project"
    (root / "tests").mkdir(parents=True)
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    argv = ["tests"] if "tests/test_calc.py" in files else list(DOCTESTS)
    reports = tmp_path / "reports"
    report = reports / "junit.xml"
    env, extra = guarded_env(reports, report)
    env = {
        **env,
        "PATH": "/usr/bin:/bin",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": f"{env['PYTHONPATH']}:{root}",
    }
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra]
    subprocess.run(
        [*command, f"--junitxml={report}", "-o", "junit_family=xunit1", *argv],
        cwd=root,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    return report, read_guard(reports, root).bypassed(report)
