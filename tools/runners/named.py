"""A report the check names itself (`junit`): JUnit XML, or jest's JSON, told apart by content."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from xml.etree.ElementTree import Element

from referee.tools.models.evidence import TestOutcome
from referee.tools.runners.base import Parse
from referee.tools.runners.js_report import parse_jest_json
from referee.tools.runners.junit import CaseName, default_name, parse_junit_bytes

__all__ = ["confined_report", "junit_escape", "parse_named_report"]


def junit_escape(junit: str) -> str | None:
    """Why a `junit` path leaves the check's folder on its face (absolute, `..`, `~`), or None."""
    relative = PurePosixPath(junit.replace("\\", "/"))
    if relative.is_absolute() or junit.startswith("~") or (len(junit) > 1 and junit[1] == ":"):
        return "is absolute; name the report relative to the check's cwd, inside it"
    if ".." in relative.parts:
        return "climbs out with `..`; name the report inside the check's cwd"
    return None


def confined_report(cwd: Path, junit: str) -> Path | None:
    """The check's `junit` file under `cwd`, or None when it leads out of `cwd` (by its text or
    through a symlink)."""
    if junit_escape(junit) is not None:
        return None
    target = cwd / junit
    top, real = cwd.resolve(), target.resolve()
    return target if real == top or top in real.parents else None


def parse_named_report(cwd: Path) -> Parse:
    """A reader for a report of either format (ids relative to `cwd`)."""

    def parse(data: bytes) -> list[TestOutcome]:
        if data.lstrip()[:1] == b"{":
            return parse_jest_json(data, cwd)
        return parse_junit_bytes(data, _runnable_name(cwd))

    return parse


def _runnable_name(cwd: Path) -> CaseName:
    """Ids a runner accepts: a dotted Python classname that names a file under `cwd` becomes
    pytest's node id (`tests.test_x.TestA` + `test_b` → `tests/test_x.py::TestA::test_b`)."""
    files: dict[str, bool] = {}

    def exists(rel: str) -> bool:
        if rel not in files:
            files[rel] = (cwd / rel).is_file()
        return files[rel]

    def name(case: Element, suites: list[str]) -> str:
        classname, title = case.get("classname") or "", case.get("name") or "?"
        file = case.get("file")
        parts = classname.split(".") if classname and not suites else []
        for cut in range(len(parts), 0, -1):
            rel = "/".join(parts[:cut]) + ".py"
            if (file or rel) == rel and exists(rel):
                return "::".join([rel, *parts[cut:], title])
        return default_name(case, suites)

    return name
