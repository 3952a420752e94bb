"""The Python environments outside the tree that a check's interpreter loads: changed since the
contract?

A check may name an interpreter outside the tree (`../env/bin/python -m pytest`, a script whose
`#!` line does). Everything its environment holds runs in the check too: a `.pth` file or a
`sitecustomize` module at startup, any package on import. The generator can write there as
easily as in the tree, so a virtualenv a check's interpreter belongs to is read like the tree's
own (installed.py: files written after the contract, folders changed after it), and for an
interpreter outside any virtualenv, the files that run at every start (`*.pth`,
`sitecustomize`, `usercustomize` in its site folders).

The interpreter is never run to ask where its environment is (it may be the generator's): a
virtualenv says so with its `pyvenv.cfg`, and a system interpreter's site folders follow from its
prefix. referee's own environment is referee's, and is not read.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path

from referee.tools.environment.installed import Changed, ctime_of, written

__all__ = ["interpreter_environments", "outside_changes"]

_PYTHON = re.compile(r"^(?:python|pypy)(?:\d+(?:\.\d+)?)?$")
_STARTUP = re.compile(r"^(?:.*\.pth|(?:site|user)customize(?:\.py|\.pyc)?)$")
_MAX_HEAD = 256


def interpreter_environments(
    argvs: Iterable[list[str]], root: Path, path: str | None
) -> list[Path]:
    """The prefixes (a virtualenv's folder, or a system interpreter's `sys.prefix`) of the Python
    interpreters the checks' commands name, outside `root` and outside referee's own.

    Args:
        argvs: The checks' commands.
        root: The evaluated tree (its own environments are read by installed.py).
        path: The PATH a bare command name is looked up on.
    """
    found: list[Path] = []
    own = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()}
    for argv in argvs:
        python = _python_of(argv, root, path)
        if python is None:
            continue
        prefix = _prefix(python)
        if prefix is None or prefix in own or prefix in found or _inside(prefix, root):
            continue
        found.append(prefix)
    return found


def outside_changes(prefixes: list[Path], anchor: float) -> list[Changed]:
    """What of those environments was written after `anchor`: a virtualenv whole, a system
    interpreter's startup files."""
    found: list[Changed] = []
    for prefix in prefixes:
        if (prefix / "pyvenv.cfg").is_file():
            files = [str(p) for p, _package in written(prefix, anchor)]
        else:
            files = [str(p) for p in _startup_files(prefix) if ctime_of(p) > anchor]
        if files:
            found.append(Changed(path=str(prefix), files=len(files), example=files[0]))
    return found


def _python_of(argv: list[str], root: Path, path: str | None) -> Path | None:
    """The interpreter a command runs: its program when that is Python, or the program a script
    names on its `#!` line."""
    if not argv:
        return None
    program = _resolved(argv[0], root, path)
    if program is None:
        return None
    if _PYTHON.match(program.name):
        return program
    line = _shebang(program)
    if not line:
        return None
    words = line.split()
    if Path(words[0]).name == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
    if not words or not _PYTHON.match(Path(words[0]).name):
        return None
    return _resolved(words[0], root, path)


def _resolved(program: str, root: Path, path: str | None) -> Path | None:
    if "/" in program:
        candidate = Path(program) if os.path.isabs(program) else root / program
        return candidate if candidate.is_file() else None
    found = shutil.which(program, path=path)
    return Path(found) if found else None


def _shebang(program: Path) -> str:
    try:
        with program.open("rb") as file:
            head = file.read(_MAX_HEAD)
    except OSError:
        return ""
    if not head.startswith(b"#!"):
        return ""
    return head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").strip()


def _prefix(python: Path) -> Path | None:
    """A virtualenv's folder (its `pyvenv.cfg` beside `bin/`), else the prefix the resolved
    interpreter lives under (`/usr` for `/usr/bin/python3.11`)."""
    folder = python.parent.parent
    if (folder / "pyvenv.cfg").is_file():
        return folder.resolve()
    try:
        real = python.resolve(strict=True)
    except OSError:
        return None
    return real.parent.parent


def _startup_files(prefix: Path) -> list[Path]:
    """The files a system interpreter runs at every start, in its site folders."""
    folders = [
        *prefix.glob("lib/python3*/site-packages"),
        *prefix.glob("lib/python3*/dist-packages"),
        *prefix.glob("local/lib/python3*/dist-packages"),
        *prefix.glob("lib/python3/dist-packages"),
    ]
    found: list[Path] = []
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        found += [Path(e.path) for e in entries if _STARTUP.match(e.name)]
    return found


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root.resolve())
    except ValueError:
        return False
    return True
