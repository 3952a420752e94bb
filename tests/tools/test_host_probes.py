"""What referee runs on the host to ask a toolchain about itself (tools/process/probe.py), and
what of an in-tree environment it watches (tools/environment/installed.py): nothing of the tree
runs there, whatever the tree names or holds."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from referee.tools.environment.installed import bytecode_after, environment_roots
from referee.tools.process.probe import host_program, probe


def _program(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def test_a_program_inside_the_tree_is_never_one_to_ask(tmp_path: Path) -> None:
    tree = tmp_path / "repo"
    php = _program(tree / "vendor" / "bin" / "php", "touch ran")
    assert host_program(str(php), None, tree) is None
    # Found on a PATH that leads into the tree, or through a link out of it, alike.
    assert host_program("php", str(php.parent), tree) is None
    link = tmp_path / "elsewhere" / "php"
    link.parent.mkdir()
    link.symlink_to(php)
    assert host_program(str(link), None, tree) is None


def test_a_program_outside_the_tree_is_asked_from_the_root_folder(tmp_path: Path) -> None:
    tree = tmp_path / "repo"
    tree.mkdir()
    where = _program(tmp_path / "bin" / "where", "pwd")
    found = host_program("where", str(where.parent), tree)
    assert found is not None
    done = probe([found])
    assert done is not None and done.stdout.strip() == "/"


def test_a_toolchain_steering_variable_does_not_reach_the_probe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RUSTUP_TOOLCHAIN", str(tmp_path / "toolchain"))
    done = probe([sys.executable, "-c", "import os; print(os.environ.get('RUSTUP_TOOLCHAIN'))"])
    assert done is not None and done.stdout.strip() == "None"


def test_a_virtualenv_in_a_dot_folder_is_an_environment(tmp_path: Path) -> None:
    for venv in (tmp_path / ".tox" / "py", tmp_path / ".venv", tmp_path / "envs" / "dev"):
        venv.mkdir(parents=True)
        (venv / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    (tmp_path / ".git" / "x").mkdir(parents=True)
    (tmp_path / ".git" / "x" / "pyvenv.cfg").write_text("", encoding="utf-8")
    found = {p.relative_to(tmp_path).as_posix() for p in environment_roots(tmp_path)}
    assert found == {".tox/py", ".venv", "envs/dev"}


def test_bytecode_written_in_an_environment_after_the_anchor_is_found(tmp_path: Path) -> None:
    cache = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages" / "m" / "__pycache__"
    cache.mkdir(parents=True)
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("", encoding="utf-8")
    (cache / "m.cpython-311.pyc").write_bytes(b"old")
    anchor = time.time() + 1  # everything so far was there before
    assert bytecode_after(tmp_path, anchor) is None
    assert bytecode_after(tmp_path, 0.0) == (
        ".venv/lib/python3.11/site-packages/m/__pycache__/m.cpython-311.pyc"
    )
