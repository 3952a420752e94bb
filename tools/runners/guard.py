"""pytest runs under referee's guard plugin (pytest_guard.py), and what its log says afterwards.

The plugin is copied into the run's report folder and loaded with `-p referee_guard`; its log
records refused writes of the report, signals the process sent itself, ctypes loads, the tests'
instruments found replaced, and a `finished` line once pytest's session ended. `judge_guarded`
turns a log that shows the runner was bypassed into an unscored criterion (`runner_bypassed`): a
report forged, an exit taken under pytest's feet or an assertion replaced never counts as a pass.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

__all__ = ["GUARD_LOG", "GuardLog", "copy_helper", "guarded_env", "read_guard"]

GUARD_LOG = "referee-guard.log"
_FOLDER = "guard"
_LIMIT = 256 * 1024


def copy_helper(name: str, target: Path) -> None:
    """One of referee's in-process helpers, copied where the run imports it from, with the
    instruments' watch beside it (instruments_watch.py, imported as `referee_instruments`)."""
    package = files("referee.tools.runners")
    target.write_text(package.joinpath(name).read_text("utf-8"), encoding="utf-8")
    watch = package.joinpath("instruments_watch.py").read_text("utf-8")
    (target.parent / "referee_instruments.py").write_text(watch, encoding="utf-8")


def guarded_env(reports: Path, report: Path) -> tuple[dict[str, str], tuple[str, ...]]:
    """Install the plugin for one run: the variables and the extra pytest arguments."""
    folder = reports / _FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    copy_helper("pytest_guard.py", folder / "referee_guard.py")
    env = {
        "PYTHONPATH": str(folder),
        "REFEREE_GUARD_REPORT": str(report),
        "REFEREE_GUARD_LOG": str(reports / GUARD_LOG),
    }
    return env, ("-p", "referee_guard")


@dataclass
class GuardLog:
    """What the guard saw in one run (nothing at all when the plugin did not load)."""

    loaded: bool = False
    finished: bool = False
    digests: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    signals: list[str] = field(default_factory=list)
    ctypes: list[str] = field(default_factory=list)
    elsewhere: list[str] = field(default_factory=list)
    """`name path`: the tree's own modules the run imported from another place."""
    interrupted: list[str] = field(default_factory=list)
    """Where the session was stopped before its end (`pytest.exit`, an interrupt)."""
    instruments: list[str] = field(default_factory=list)
    """`name when`: what the tests judge with (`math.isclose`, `unittest.TestCase.assertEqual`)
    found replaced during the run."""

    def bypassed(self, report: Path | None = None) -> str | None:
        """Why the run did not end through pytest (or its report is not pytest's), or None."""
        if self.blocked:
            return (
                f"test code wrote the runner's report itself, and was refused ({self.blocked[0]})"
            )
        if self.signals:
            return f"test code signalled its own process ({self.signals[0]})"
        if self.interrupted:
            # pytest.exit ends the session early with any exit code, and the tests after it
            # never run: whatever the report then says, it is not the whole run's account.
            return f"the session was stopped before its end ({self.interrupted[0]})"
        if self.instruments:
            # Every comparison made through a replaced assertion or comparison helper answers as
            # the replacement says: the run's passes are not the tests' verdicts.
            named = "; ".join(self.instruments[:3])
            more = f" and {len(self.instruments) - 3} more" if len(self.instruments) > 3 else ""
            return (
                f"what the tests judge with was replaced during the run ({named}{more}): the"
                " outcomes it reported were decided by the replacement, not by the tests"
            )
        if self.loaded and not self.finished:
            return "the test process ended before pytest finished its session (os._exit, a signal)"
        if report is not None and self.finished and _digest(report) not in self.digests:
            return "the report was rewritten after pytest wrote it"
        return None


def read_guard(reports: Path, root: Path) -> GuardLog:
    """The guard's log of a run (untrusted text, size-capped), paths relative to `root`."""
    path = reports / GUARD_LOG
    try:
        with open(path, "rb") as handle:
            text = handle.read(_LIMIT).decode("utf-8", "replace")
    except OSError:
        return GuardLog()
    log = GuardLog()
    for line in text.splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "start":
            log.loaded = True
        elif kind == "finished":
            log.finished = True
            log.digests.append(rest.rsplit(" ", 1)[-1])
        elif kind == "blocked":
            log.blocked.append(_short(rest, root))
        elif kind == "signal":
            log.signals.append(_short(rest, root))
        elif kind == "ctypes":
            log.ctypes.append(_short(rest, root))
        elif kind == "interrupted":
            log.interrupted.append(_short(rest, root))
        elif kind == "instrument" and len(log.instruments) < 20:
            log.instruments.append(rest[:300])
        elif kind == "elsewhere" and len(log.elsewhere) < 20:
            log.elsewhere.append(rest[:300])
    return log


def _digest(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return "-"


def _short(rest: str, root: Path) -> str:
    where, _, what = rest.partition(" ")
    file, _, line = where.rpartition(":")
    shown = os.path.relpath(file, root) if file.startswith(str(root)) else os.path.basename(file)
    return f"{shown}:{line} {what}"[:300]
