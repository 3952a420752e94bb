"""Near-duplicate blocks through jscpd, run as a subprocess alongside the per-file analysis.

jscpd gets an empty config of ours (`--config`), so a repository's own `.jscpd.json` cannot hide
its duplicates, and never `--semantic` (that downloads a model).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from referee.tools.static.model import Item, StaticConfig

_TIMEOUT_S = 900
# jscpd spends about a millisecond per path argument (4.9 s for the 1,790 files of the standard
# library, against 2.3 s for `.`), so beyond this many files it scans the whole tree, skipping
# ignored files and non-code formats, and the report is filtered down to the requested files.
_EXPLICIT_MAX = 256
_ARGV_BUDGET = 100_000
_FORMATS = (
    "python,javascript,jsx,typescript,tsx,go,java,rust,c,c-header,cpp,cpp-header,kotlin,swift,ruby,php,"
    "csharp,scala,dart,lua,bash,perl,elixir,vue,svelte,objectivec,sql,r"
)
_TREE_IGNORE = "**/node_modules/**,**/.venv/**,**/__pycache__/**,**/.referee/**"
# jscpd's own markers: `jscpd:ignore-start`/`-end` (matched as jscpd matches them, any case).
_MARKER = re.compile(rb"(?i)jscpd:ignore")
_SHADOW = "unmarked"


class Clone(NamedTuple):
    """One duplicated block: both sides' repository-relative paths and 1-based line spans."""

    first: str
    first_start: int
    first_end: int
    second: str
    second_start: int
    second_end: int
    lines: int


def jscpd_binary() -> str | None:
    """Where jscpd is: next to the interpreter (where the PyPI wheel installs it), else on PATH.

    The wheel's binary comes first: an npm `jscpd` found on PATH takes other options.
    """
    beside = Path(sys.executable).with_name("jscpd.exe" if os.name == "nt" else "jscpd")
    return str(beside) if beside.exists() else shutil.which("jscpd")


class JscpdRun:
    """A jscpd process started now and collected later, so other analysers run meanwhile."""

    def __init__(self, repo: Path, files: Sequence[str], config: StaticConfig) -> None:
        self.repo, self.files = repo, set(files)
        self.error: str | None = None
        self._tmp = tempfile.TemporaryDirectory(prefix="referee-jscpd-")
        self._proc: subprocess.Popen[bytes] | None = None
        binary = jscpd_binary()
        if binary is None:
            self.error = "jscpd not found: near-duplicate check skipped"
            return
        try:
            self._proc = _start(binary, repo, files, config, Path(self._tmp.name))
        except OSError as exc:
            self.error = f"jscpd could not start: {exc.strerror}"

    def collect(self) -> list[Clone]:
        """Wait for jscpd and read its clones (empty, with `error` set, when it failed)."""
        try:
            return self._collect()
        finally:
            self._tmp.cleanup()

    def cancel(self) -> None:
        """Stop jscpd if it still runs and remove its files."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        self._tmp.cleanup()

    def _collect(self) -> list[Clone]:
        if self._proc is None:
            return []
        try:
            code = self._proc.wait(timeout=_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.cancel()
            self.error = f"jscpd timed out after {_TIMEOUT_S} s: near-duplicate check incomplete"
            return []
        tmp = Path(self._tmp.name)
        report = tmp / "out" / "jscpd-report.json"
        if code != 0 or not report.exists():
            stderr = (tmp / "stderr.txt").read_text(encoding="utf-8", errors="replace").strip()
            self.error = f"jscpd failed (exit {code}): {stderr[-300:]}"
            return []
        try:
            clones = [
                _clone(c, self.repo, tmp / _SHADOW)
                for c in json.loads(report.read_text(encoding="utf-8"))["duplicates"]
            ]
        except (ValueError, KeyError, TypeError) as exc:
            self.error = f"jscpd report unreadable: {type(exc).__name__}"
            return []
        return [c for c in clones if c.first in self.files and c.second in self.files]


def _start(
    binary: str, repo: Path, files: Sequence[str], config: StaticConfig, tmp: Path
) -> subprocess.Popen[bytes]:
    (tmp / "jscpd.json").write_text("{}", encoding="utf-8")
    argv = [
        binary,
        "--config",
        str(tmp / "jscpd.json"),
        "--min-lines",
        str(config.max_duplicate_lines + 1),
        "--max-size",
        str(config.max_file_bytes),
        "--reporters",
        "json",
        "--output",
        str(tmp / "out"),
        "--silent",
        "--no-tips",
        "--absolute",
    ]
    if len(files) <= _EXPLICIT_MAX and sum(len(f) + 1 for f in files) <= _ARGV_BUDGET:
        argv += ["--no-gitignore", "--", *(_unmarked(repo, f, tmp / _SHADOW) for f in files)]
    else:
        argv += ["--format", _FORMATS, "--ignore", _TREE_IGNORE, "--", "."]
    with open(tmp / "stderr.txt", "wb") as stderr:
        return subprocess.Popen(
            argv, cwd=repo, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr
        )


def _unmarked(repo: Path, path: str, shadow: Path) -> str:
    """The file jscpd reads for `path`: itself, or, where it holds jscpd's ignore markers
    (`jscpd:ignore-start`), a copy with them spelled so jscpd does not take them. A marker in the
    code is the author's word that a block is no duplicate: referee's rule is the contract's, and
    reads through it (lines and columns stay where they were)."""
    try:
        data = (repo / path).read_bytes()
    except OSError:
        return path
    if _MARKER.search(data) is None:
        return path
    copy = shadow / path
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_bytes(_MARKER.sub(b"jscpd_ignore", data))
    return str(copy)


def _clone(raw: dict[str, Any], repo: Path, shadow: Path | None = None) -> Clone:
    first, second = raw["firstFile"], raw["secondFile"]
    return Clone(
        _rel(first["name"], repo, shadow),
        int(first["start"]),
        int(first["end"]),
        _rel(second["name"], repo, shadow),
        int(second["start"]),
        int(second["end"]),
        int(raw["lines"]),
    )


def _rel(name: str, repo: Path, shadow: Path | None = None) -> str:
    # Absolute in the report (`--absolute`): jscpd otherwise
    # names files relative to their common folder. A copy read in a file's place is that file.
    real = Path(os.path.realpath(name))
    if shadow is not None and real.is_relative_to(os.path.realpath(shadow)):
        return real.relative_to(os.path.realpath(shadow)).as_posix()
    return Path(os.path.relpath(real, os.path.realpath(repo))).as_posix()


def duplicate_items(clones: Sequence[Clone], files: Collection[str]) -> list[tuple[str, Item]]:
    """(path, finding) per clone with at least one side in `files`, placed on that side."""
    found: list[tuple[str, Item]] = []
    for c in clones:
        if c.first in files:
            here, start, other, o_start, o_end = (
                c.first,
                c.first_start,
                c.second,
                c.second_start,
                c.second_end,
            )
        elif c.second in files:
            here, start, other, o_start, o_end = (
                c.second,
                c.second_start,
                c.first,
                c.first_start,
                c.first_end,
            )
        else:
            continue
        where = _HERE if other == here else f"in {other}"
        message = f"{c.lines} lines duplicated {where} (lines {o_start}-{o_end})"
        found.append((here, Item("near_duplicates", start, message, c.lines)))
    return found


_HERE = "elsewhere in this file"
_OTHER_SIDE = re.compile(
    r" lines duplicated (?:in (?P<path>.+)|" + _HERE + r") \(lines (\d+)-(\d+)\)$"
)


def other_side(path: str, message: str) -> tuple[str, int, int] | None:
    """The other block of a near-duplicate finding (path, first line, last line), read back from
    the message `duplicate_items` wrote."""
    match = _OTHER_SIDE.search(message)
    if match is None:
        return None
    return match.group("path") or path, int(match.group(2)), int(match.group(3))
