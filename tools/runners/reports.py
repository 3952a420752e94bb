"""Reading the reports a test run wrote: untrusted input, read with limits.

Every report is written by the code under test. So referee reads only files written during this
run (a report left from before is stale, never evidence), never follows a symlink out of the tree
or its own scratch folder, refuses reports above `Settings.report_limit` without reading them, and
parses in a worker thread bounded by the check's timeout, so the server keeps answering other
calls. Nothing here deletes or writes a file.
"""

from __future__ import annotations

import fnmatch
import json
import os
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import anyio.to_thread

from referee.tools.models.common import ReasonCode
from referee.tools.models.evidence import TestOutcome
from referee.tools.runners.base import Report, Search
from referee.tools.runners.junit import JunitError

__all__ = ["ReportRead", "Snapshot", "read_report", "snapshot"]

_MAX_DEPTH = 8
_MAX_FILES = 10_000
_SKIPPED_FOLDERS = frozenset({"node_modules", ".git", "vendor", "__pycache__"})
_MIB = 1024 * 1024


@dataclass(frozen=True)
class Snapshot:
    """The report files that existed before the run, with (mtime_ns, size, inode)."""

    stats: Mapping[Path, tuple[int, int, int]] = field(default_factory=dict)


@dataclass
class ReportRead:
    """What the report gave: outcomes, the files read, or why there are none (`code`)."""

    outcomes: list[TestOutcome] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    problem: str | None = None
    code: ReasonCode | None = None
    size: int = 0
    bypassed: str | None = None


async def snapshot(report: Report) -> Snapshot:
    """Remember the candidate report files before the run (so stale ones are never read)."""
    return Snapshot(await anyio.to_thread.run_sync(_stats, report))


async def read_report(
    report: Report,
    *,
    stdout: Path,
    before: Snapshot,
    allowed: Sequence[Path],
    limit: int,
    timeout_s: float,
) -> ReportRead:
    """Read the outcomes a run reported.

    Args:
        report: Where the runner wrote its report and how to read it.
        stdout: The run's standard output (the report itself for go -json and libtest).
        before: The candidate files as they were before the run.
        allowed: Folders a report may lie in (the evaluated tree, the run's scratch folder).
        limit: Largest total report size in bytes that is read at all.
        timeout_s: Longest time parsing may take.

    Returns:
        The outcomes and files, or a problem with its reason code.
    """
    files = [stdout] if report.stdout else await anyio.to_thread.run_sync(_fresh, report, before)
    if not files:
        if report.optional:
            return ReportRead()
        return ReportRead(problem=_missing(report), code=ReasonCode.NO_REPORT)
    outside = [f for f in files if not _confined(f, allowed)]
    if outside:
        return ReportRead(
            problem=f"{outside[0]} is a symlink or lies outside the evaluated tree; not read",
            code=ReasonCode.REPORT_OUTSIDE,
        )
    size = sum(_size(f) for f in files)
    if size > limit:
        return ReportRead(
            files=files,
            size=size,
            problem=(
                f"the report is {size / _MIB:.1f} MiB, above the {limit / _MIB:.0f} MiB limit"
                " (Settings.report_limit); it was not read"
            ),
            code=ReasonCode.REPORT_TOO_LARGE,
        )
    return await _parse_all(report, files, size, limit, timeout_s)


async def _parse_all(
    report: Report, files: list[Path], size: int, limit: int, timeout_s: float
) -> ReportRead:
    with anyio.move_on_after(timeout_s):
        # A thread cannot be stopped; abandoning it lets the evaluation (and the server) go on.
        return await anyio.to_thread.run_sync(
            _parse_files, report, files, size, limit, abandon_on_cancel=True
        )
    return ReportRead(
        files=files,
        size=size,
        problem=f"reading the {report.format} report took longer than {timeout_s:g} s",
        code=ReasonCode.NO_REPORT,
    )


def _parse_files(report: Report, files: list[Path], size: int, limit: int) -> ReportRead:
    outcomes: list[TestOutcome] = []
    bypassed: str | None = None
    for path in files:
        try:
            data = _read(path, limit)
            outcomes.extend(report.parse(data))
            if report.account is not None and bypassed is None:
                bypassed = report.account(data)
        except JunitError as exc:
            return _unreadable(files, size, path, exc.reason)
        except (ValueError, OSError) as exc:  # JSON, UTF-8, a file gone meanwhile
            return _unreadable(files, size, path, f"not a {report.format} report ({exc})")
    return ReportRead(outcomes=outcomes, files=files, size=size, bypassed=bypassed)


def _unreadable(files: list[Path], size: int, path: Path, reason: str) -> ReportRead:
    return ReportRead(
        files=files, size=size, problem=f"{path.name}: {reason}", code=ReasonCode.NO_REPORT
    )


def _read(path: Path, limit: int) -> bytes:
    # O_NOFOLLOW: the file may have been swapped for a symlink since it was checked.
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"it grew above the {limit / _MIB:.0f} MiB limit while being read")
    return data


def _size(path: Path) -> int:
    try:
        return path.lstat().st_size
    except OSError:
        return 0


def _confined(path: Path, allowed: Sequence[Path]) -> bool:
    try:
        if stat.S_ISLNK(path.lstat().st_mode):
            return False
        real = path.resolve()
    except OSError:
        return False
    return any(real == top or top in real.parents for top in (a.resolve() for a in allowed))


def _missing(report: Report) -> str:
    places = [str(f) for f in report.files] + [
        f"{s.root}/**/{s.folder + '/' if s.folder else ''}{s.pattern}" for s in report.search
    ]
    return (
        f"no {report.format} report was written during this run (looked for "
        f"{', '.join(places) or 'nothing'}); the runner did not start, crashed, or was told"
        " not to write it"
    )


def _stats(report: Report) -> dict[Path, tuple[int, int, int]]:
    found: dict[Path, tuple[int, int, int]] = {}
    for path in _candidates(report):
        try:
            info = path.lstat()
        except OSError:
            continue
        found[path] = (info.st_mtime_ns, info.st_size, info.st_ino)
    return found


def _fresh(report: Report, before: Snapshot) -> list[Path]:
    """Candidate files written during the run: new, or changed since the snapshot."""
    now = _stats(report)
    return sorted(path for path, facts in now.items() if before.stats.get(path) != facts)


def _candidates(report: Report) -> Iterator[Path]:
    yield from report.files
    for search in report.search:
        yield from _search(search)


def _search(search: Search) -> Iterator[Path]:
    count = 0
    root_depth = len(search.root.parts)
    for folder, dirs, names in os.walk(search.root):
        here = Path(folder)
        if len(here.parts) - root_depth >= _MAX_DEPTH:
            dirs.clear()
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_FOLDERS and not d.startswith("."))
        if search.folder is not None and here.name != search.folder:
            continue
        for name in sorted(fnmatch.filter(names, search.pattern)):
            count += 1
            if count > _MAX_FILES:
                return
            yield here / name


def json_document(data: bytes) -> object:
    """A JSON document from untrusted bytes (UTF-8; the parser is linear)."""
    return json.loads(data.decode("utf-8"))
