"""The environments outside the tree of the interpreters the checks name
(tools/environment/interpreters.py): found without running them, read like the tree's own."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from referee.tools.environment.interpreters import interpreter_environments, outside_changes


def _python(folder: Path, venv: bool) -> Path:
    (folder / "bin").mkdir(parents=True)
    python = folder / "bin" / "python3.11"
    python.write_bytes(b"\x7fELF\x00")
    python.chmod(0o755)
    (folder / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    if venv:
        (folder / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    return python


def test_a_virtualenv_or_a_system_prefix_the_checks_name_is_found(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    venv = _python(tmp_path / "env", venv=True)
    system = _python(tmp_path / "usr", venv=False)
    script = tmp_path / "tools" / "pytest"
    script.parent.mkdir()
    script.write_text(f"#!{venv}\nimport pytest\n", encoding="utf-8")
    inside = _python(root / ".venv", venv=True)
    argvs = [
        [str(venv), "-m", "pytest"],
        [str(script), "-q"],  # a script whose #! line names the interpreter
        ["python3.11", "-m", "unittest"],  # a bare name, on PATH
        [str(inside), "-m", "pytest"],  # the tree's own: installed.py reads it
        [sys.executable, "-m", "pytest"],  # referee's own
        ["npx", "vitest"],
    ]
    found = interpreter_environments(argvs, root, str(system.parent))
    assert found == [(tmp_path / "env").resolve(), tmp_path / "usr"]


def test_what_was_written_there_after_the_contract_is_reported(tmp_path: Path) -> None:
    venv = tmp_path / "env"
    _python(venv, venv=True)
    system = tmp_path / "usr"
    _python(system, venv=False)
    site = "lib/python3.11/site-packages"
    (system / site / "old.py").write_text("", encoding="utf-8")
    anchor = time.time()
    time.sleep(0.01)
    assert outside_changes([venv, system], anchor) == []
    (venv / site / "zz.pth").write_text("import fix\n", encoding="utf-8")
    (system / site / "sitecustomize.py").write_text("", encoding="utf-8")
    (system / site / "new_package.py").write_text("", encoding="utf-8")  # not run at start
    found = {c.path: c.example for c in outside_changes([venv, system], anchor)}
    assert found == {
        str(venv): str(venv / site / "zz.pth"),
        str(system): str(system / site / "sitecustomize.py"),
    }
    assert os.path.isabs(next(iter(found)))
