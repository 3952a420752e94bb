"""Python diff coverage with coverage.py, measured in the criterion's own run.

`instrument_python` rewrites a planned pytest or unittest command so that the project's
interpreter runs it under coverage.py (`coverage run`, through `coverage_shim.py`), limited to the
changed source files and writing its data file into the check's report folder, outside the
evaluated tree. `measure_python` reads that data file with coverage.py's data API and its own
parser of statements.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import replace
from importlib.resources import files
from pathlib import Path

import coverage
from coverage.config import DEFAULT_EXCLUDE
from coverage.exceptions import CoverageException
from coverage.python import PythonParser  # type: ignore[attr-defined]  # not re-exported

from referee.tools.adequacy.lines import FileLines, diff_coverage
from referee.tools.models.adequacy import DiffCoverage
from referee.tools.runners import Plan

__all__ = ["TOOL", "instrument_python", "measurable", "measure_python", "unavailable"]

_PYTHON = re.compile(r"python(\d+(\.\d+)*)?")
_EXCLUDE = "|".join(f"(?:{r})" for r in DEFAULT_EXCLUDE)
TOOL = f"coverage.py {coverage.__version__}"


def instrument_python(
    plan: Plan, reports: Path, sources: Sequence[str], path: str | None
) -> tuple[Plan, Path] | None:
    """The plan run under coverage.py, measuring only `sources` (tree-relative .py files).

    Returns None when the command is not a Python runner referee can wrap (a shell script, an
    interpreter started with options of its own).
    """
    if not sources or plan.shell or plan.runner not in ("pytest", "unittest"):
        return None
    argv = _wrapped(plan.argv, reports, path)
    if argv is None:
        return None
    data = reports / "coverage.data"
    rcfile = reports / "coveragerc"
    include = "\n".join(f"    {_pattern(s)}" for s in sources)
    rcfile.write_text(f"[run]\ndata_file = {data}\ninclude =\n{include}\n", encoding="utf-8")
    return replace(plan, argv=argv), data


def measurable(sources: Sequence[str]) -> tuple[str, ...]:
    """The Python sources coverage.py can measure: its data file stores names as SQLite text, so
    a name that is not UTF-8 would end the run's coverage in an error; such a file is named as
    unmeasured instead."""
    return tuple(s for s in sources if s.endswith(".py") and _utf8(s))


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _pattern(rel: str) -> str:
    """The include pattern of one source, always one line of the configuration whatever its name
    holds: every character but a letter, a digit and `._-/` matches as `?` (any one character),
    so no name ends the line, starts a comment, expands a `$VARIABLE` or becomes a glob. It may
    match a few more files, never fewer; `_executed` keeps only the source's own name.

    `*/rel` rather than an absolute path: a run in a scratch copy of the tree matches too.
    """
    return "*/" + "".join(c if c.isalnum() or c in "._-/" else "?" for c in rel)


def _wrapped(argv: Sequence[str], reports: Path, path: str | None) -> tuple[str, ...] | None:
    shim = reports / "referee_coverage.py"
    shim.write_text(
        files("referee.tools.adequacy").joinpath("coverage_shim.py").read_text("utf-8"),
        encoding="utf-8",
    )
    head = (str(shim), str(reports / "coveragerc"), str(_fallback(reports)))
    for i, token in enumerate(argv):
        name = os.path.basename(token)
        rest = argv[i + 1 :]
        if _PYTHON.fullmatch(name):
            # `python -m pytest …` or `python REPORTER.py …` (unittest): options of the
            # interpreter's own would have to stay before the script, so those are left alone.
            if rest and (rest[0] == "-m" or rest[0].endswith(".py")):
                return (*argv[: i + 1], *head, *rest)
            return None
        if name in ("pytest", "py.test"):
            python = _shebang_python(token, path)
            return None if python is None else (*argv[:i], *python, *head, "-m", "pytest", *rest)
    return None


def _shebang_python(program: str, path: str | None) -> tuple[str, ...] | None:
    """The interpreter a `pytest` script starts, from its `#!` line."""
    found = shutil.which(program, path=path)
    if found is None:
        return None
    try:
        with open(found, "rb") as script:
            first = script.readline(512).decode("utf-8", "replace")
    except OSError:
        return None
    words = first.removeprefix("#!").split() if first.startswith("#!") else []
    if words and os.path.basename(words[0]) == "env":
        words = words[1:]
    return tuple(words) if words and _PYTHON.fullmatch(os.path.basename(words[0])) else None


def _fallback(reports: Path) -> Path:
    """A folder holding only referee's coverage package (for a project that has none)."""
    folder = reports / "pylib"
    folder.mkdir(exist_ok=True)
    link = folder / "coverage"
    if not link.exists():
        link.symlink_to(Path(coverage.__file__).parent, target_is_directory=True)
    return folder


def measure_python(
    data_file: Path, tree: Path, changed: Mapping[str, set[int] | None], sources: Sequence[str]
) -> DiffCoverage:
    """The changed statements of `sources` the run executed, per file.

    Args:
        data_file: What coverage.py wrote (absent: the tests never started).
        tree: The evaluated tree on the host, where the sources are read.
        changed: Changed lines per tree-relative file (None: the whole file is new).
        sources: The Python files measured.
    """
    executed = _executed(data_file, sources)
    found, unmeasured = [], []
    for rel in sources:
        statements = _statements(tree / rel)
        if statements is None:
            unmeasured.append(rel)
            continue
        parser, lines = statements
        wanted = changed.get(rel)
        targets = lines if wanted is None else {parser.first_line(n) for n in wanted} & lines
        found.append(FileLines(rel, targets, executed.get(rel, set())))
    return diff_coverage(TOOL, found, unmeasured)


def unavailable(data_file: Path) -> str:
    """Why the run's interpreter could not measure (the shim said so next to the data), or ""."""
    note = data_file.parent / "coverage.unavailable"
    try:
        return note.read_text(encoding="utf-8", errors="replace")[:2000].strip()
    except OSError:
        return ""


def _executed(data_file: Path, sources: Sequence[str]) -> dict[str, set[int]]:
    if not data_file.is_file():
        return {}
    data = coverage.CoverageData(basename=str(data_file))
    try:
        data.read()
    except CoverageException:
        return {}
    out: dict[str, set[int]] = {}
    for measured in sorted(data.measured_files()):
        posix = Path(measured).as_posix()
        for rel in sources:
            if rel not in out and posix.endswith("/" + rel):
                out[rel] = set(data.lines(measured) or ())
    return out


def _statements(path: Path) -> tuple[PythonParser, set[int]] | None:
    try:
        text = path.read_text(encoding="utf-8")
        parser = PythonParser(text=text, filename=str(path), exclude=_EXCLUDE)
        parser.parse_source()
    except (OSError, UnicodeDecodeError, CoverageException, SyntaxError):
        return None
    return parser, set(parser.statements)
