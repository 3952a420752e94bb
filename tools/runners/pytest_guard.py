"""referee's pytest plugin: a channel the tests do not write, watching the ones they could.

Loaded with `-p referee_guard` before pytest collects anything (copied into the run's report
folder, which is on PYTHONPATH for this run only). It installs an audit hook, which no code in the
process can remove afterwards, and records in a log next to the report:

- every open of the JUnit report (or of this log) for writing by code that is not pytest's own
  junitxml plugin, and refuses it: a test that forges the report it finds in sys.argv gets an
  error instead;
- ctypes loads and signals sent to the process itself (ways to end it under pytest's feet);
- the tree's own modules that were imported from another place (an installed copy);
- the instruments the tests judge with (the test libraries' assertions, `math.isclose`, the
  operator comparisons, doctest's display hook and output checker, a few builtins) that were no
  longer the objects they were when pytest was configured, checked after collection, after each
  test's teardown and at the end: code that replaces one decides the comparisons made through it;
- `finished` with pytest's exit status and the report's sha256, written after the session ends:
  a run that exits without it did not end through pytest (os._exit from a test, a signal), and a
  report that differs from that digest was written after pytest wrote it.

What happens in-process can be hidden by code that knows this file; referee treats the log as
evidence that a run was tampered with, never as proof that it was not.
Runs on the project's interpreter (Python 3.8+): standard library and pytest only.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from referee.tools.runners.instruments_watch import Watch
else:
    try:  # the copy beside this file in a run's folder
        from referee_instruments import Watch
    except ImportError:  # referee's own package
        from referee.tools.runners.instruments_watch import Watch

_REPORT = os.environ.get("REFEREE_GUARD_REPORT", "")
_LOG = os.environ.get("REFEREE_GUARD_LOG", "")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_JUNIT = os.sep + os.path.join("_pytest", "junitxml.py")
_fd = -1


def _real(path: Any) -> str:
    try:
        return os.path.realpath(os.fsdecode(path))
    except (TypeError, ValueError):
        return ""


_GUARDED = {p for p in (_real(_REPORT), _real(_LOG)) if p}


def _write(line: str) -> None:
    if _fd >= 0:
        with contextlib.suppress(OSError):
            os.write(_fd, (line.replace("\n", " ") + "\n").encode("utf-8", "replace"))


def _caller() -> tuple[str, int, bool]:
    """Where the audited call was made, and whether that is pytest's own junitxml plugin."""
    frame: Any = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    if frame is None:
        return "?", 0, False
    return frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_filename.endswith(_JUNIT)


def _writes(mode: Any, flags: Any) -> bool:
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event == "open":
        path, mode, flags = (list(args) + [None, None, None])[:3]
        if path is None or isinstance(path, int) or not _GUARDED:
            return
        if _real(path) in _GUARDED and _writes(mode, flags):
            _refuse(path, "opened", writer_allowed=_real(path) != _real(_LOG))
    elif event in _MOVES:
        for path in args[:2]:
            if isinstance(path, (str, bytes, os.PathLike)) and _real(path) in _GUARDED:
                _refuse(path, event, writer_allowed=False)
    elif event in ("ctypes.dlopen", "ctypes.dlsym"):
        file, line, _trusted = _caller()
        _write(f"ctypes {file}:{line} {event} {args[0] if args else ''}")
    elif event in ("os.kill", "os.killpg", "signal.pthread_kill"):
        target = args[0] if args else None
        # Signal 0 delivers nothing: it only asks whether the process exists (a lock file's
        # liveness probe of its own pid), so it cannot end or stop the run.
        signal_number = args[1] if len(args) > 1 else None
        if signal_number != 0 and target in (os.getpid(), os.getpgrp(), 0, -1):
            file, line, _trusted = _caller()
            _write(f"signal {file}:{line} {event} {target}")


# Removing, renaming or truncating the report or this log is refused like writing it.
_MOVES = ("os.remove", "os.rename", "os.truncate", "os.chmod", "os.link", "os.symlink")


def _refuse(path: Any, how: str, *, writer_allowed: bool) -> None:
    file, line, trusted = _caller()
    if trusted and writer_allowed:
        return
    _write(f"blocked {file}:{line} {how} {os.fsdecode(path)}")
    raise PermissionError(f"referee: {os.fsdecode(path)} is written by pytest alone")


def _install() -> None:
    global _fd
    if not _LOG:
        return
    _fd = os.open(_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    _write(f"start {os.getpid()}")
    sys.addaudithook(_hook)


_instruments = Watch()


def _watch(when: str, deep: bool = False) -> None:
    for name in _instruments.replaced(deep):
        _write(f"instrument {name} {when}")


@pytest.hookimpl(trylast=True)  # after the plugins that set themselves up at configure time
def pytest_configure(config: Any) -> None:
    _instruments.start()


def pytest_collection_finish(session: Any) -> None:
    _watch("after collection", deep=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: Any, nextitem: Any) -> Any:
    yield  # the fixtures' own teardown (monkeypatch's undo) runs first
    _watch(f"after {getattr(item, 'nodeid', '?')}")


def pytest_unconfigure(config: Any) -> None:
    _watch("at the end", deep=True)
    status = getattr(getattr(config, "_referee_session", None), "exitstatus", None)
    with contextlib.suppress(Exception):  # a note for people: never in the way of the account
        for name, file in _elsewhere(str(getattr(config, "rootpath", "") or os.getcwd())):
            _write(f"elsewhere {name} {file}")
    _write(f"finished {os.getpid()} {status} {_digest(_REPORT)}")


def _elsewhere(root: str) -> list[tuple[str, str]]:
    """The tree's own top-level modules and packages (at its root or under src/) that the run
    imported from another file than the tree's: an installed copy (in site-packages, even a
    virtualenv inside the tree), which the tests then tested instead."""
    top = os.path.realpath(root)
    stdlib = set(getattr(sys, "stdlib_module_names", ())) | set(sys.builtin_module_names)
    found = []
    for name, own in sorted(_own_files(top).items()):
        file = getattr(sys.modules.get(name), "__file__", None)
        if name in stdlib or not file:
            continue
        real = os.path.realpath(file)
        if real != own:
            found.append((name, real))
    return found[:20]


def _own_files(top: str) -> dict[str, str]:
    """Each top-level module or package of the tree: its file (a package's __init__.py)."""
    names: dict[str, str] = {}
    for folder in (top, os.path.join(top, "src")):
        entries: list[os.DirEntry[str]] = []
        with contextlib.suppress(OSError):
            entries = list(os.scandir(folder))
        for entry in entries:
            # Each entry on its own: a link that loops (ELOOP) must not end the listing and
            # hide the modules after it.
            with contextlib.suppress(OSError):
                init = os.path.join(entry.path, "__init__.py")
                if entry.name.endswith(".py") and entry.is_file():
                    names.setdefault(entry.name[:-3], os.path.realpath(entry.path))
                elif entry.is_dir() and os.path.isfile(init):
                    names.setdefault(entry.name, os.path.realpath(init))
    return {n: f for n, f in names.items() if n.isidentifier() and n not in ("conftest", "setup")}


def _digest(path: str) -> str:
    """The report as pytest left it: referee compares it with the file it reads afterwards."""
    import hashlib

    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return "-"


def pytest_keyboard_interrupt(excinfo: Any) -> None:
    """pytest.exit stopped the session: the tests after it never ran. (pytest's own stop after
    collection errors comes here too, as `Interrupted`: its report says why, and is whole.)"""
    if getattr(excinfo, "typename", "") != "Exit":
        return
    file, line = "?", 0
    with contextlib.suppress(Exception):
        last = excinfo.traceback[-1]
        file, line = str(last.path), last.lineno + 1
    _write(f"interrupted {file}:{line} {getattr(excinfo, 'typename', 'interrupt')}")


def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    session.config._referee_session = session


_install()
