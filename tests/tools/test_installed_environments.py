"""Installed environments in the tree changed after the contract (tools/environment/installed.py):
files written after it, and folders changed after it while nothing in them was (a package
prepared earlier and renamed in), read on a folder."""

from __future__ import annotations

import os
import time
from pathlib import Path

from referee.tools.environment.installed import changed_environments

SITE = ".venv/lib/python3.11/site-packages"


def _venv(root: Path) -> Path:
    site = root / SITE
    (site / "calc_dep").mkdir(parents=True)
    (site / "calc_dep" / "__init__.py").write_text("x = 1\n", encoding="utf-8")
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    return site


def _after() -> float:
    anchor = time.time()
    time.sleep(0.01)  # a ctime strictly after the anchor, on any clock granularity
    return anchor


def test_a_package_prepared_before_and_renamed_in_after_is_reported(tmp_path: Path) -> None:
    site = _venv(tmp_path)
    staged = tmp_path / "staged" / "sitecustomize"
    staged.mkdir(parents=True)
    (staged / "__init__.py").write_text("import calc\n", encoding="utf-8")
    anchor = _after()
    assert changed_environments(tmp_path, anchor) == []
    os.rename(staged, site / "sitecustomize")
    found = changed_environments(tmp_path, anchor)
    assert [c.path for c in found] == [f"{SITE}/sitecustomize"], found


def test_what_runs_write_as_they_go_is_not_reported(tmp_path: Path) -> None:
    site = _venv(tmp_path)
    (tmp_path / "node_modules" / "vitest").mkdir(parents=True)
    (tmp_path / "node_modules" / "vitest" / "index.js").write_text("", encoding="utf-8")
    anchor = _after()
    # Python's bytecode beside a module, vite's config bundle made and deleted.
    (site / "calc_dep" / "__pycache__").mkdir()
    (site / "calc_dep" / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"\0")
    temp = tmp_path / "node_modules" / ".vite-temp"
    temp.mkdir()
    (temp / "vite.config.ts.timestamp-1.mjs").write_text("", encoding="utf-8")
    (temp / "vite.config.ts.timestamp-1.mjs").unlink()
    assert changed_environments(tmp_path, anchor) == []


def test_a_file_taken_out_of_a_package_is_reported(tmp_path: Path) -> None:
    site = _venv(tmp_path)
    (site / "calc_dep" / "checks.py").write_text("", encoding="utf-8")
    anchor = _after()
    (site / "calc_dep" / "checks.py").unlink()
    assert [c.path for c in changed_environments(tmp_path, anchor)] == [f"{SITE}/calc_dep"]
