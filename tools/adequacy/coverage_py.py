"""Python diff coverage, measured in the criterion's own run.

`instrument_python` rewrites a planned pytest or unittest command so that the project's
interpreter runs it through `coverage_shim.py`, which writes its data file into the check's report
folder, outside the evaluated tree: from Python 3.12 under coverage.py on `sys.monitoring`
(`coverage run`, limited to the changed source files), before 3.12 with referee's line probes in
the changed statements alone (`coverage_probes.py`), since coverage.py can only trace every line
there. `measure_python` reads either data file; the statements are coverage.py's parser's in both.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib.resources import files
from pathlib import Path

import coverage
from coverage.config import DEFAULT_EXCLUDE
from coverage.exceptions import CoverageException
from coverage.python import PythonParser  # type: ignore[attr-defined]  # not re-exported

from referee.tools import pysource
from referee.tools.adequacy.coverage_shim import CONFIG, PROBES
from referee.tools.adequacy.lines import FileLines, diff_coverage
from referee.tools.models.adequacy import DiffCoverage
from referee.tools.runners import Plan

__all__ = [
    "TOOL",
    "changed_statements",
    "instrument_python",
    "measurable",
    "measure_python",
    "unavailable",
]

_PYTHON = re.compile(r"python(\d+(\.\d+)*)?")
_EXCLUDE = "|".join(f"(?:{r})" for r in DEFAULT_EXCLUDE)
# What a comment excludes (`# pragma: no cover`), as against code that never runs by its shape
# (`if TYPE_CHECKING:`, a stub's `...`).
_PRAGMAS = [r for r in DEFAULT_EXCLUDE if "pragma" in r]
_MARK = re.compile("|".join(f"(?:{r})" for r in _PRAGMAS) or "(?!)")
_SHAPES = "|".join(f"(?:{r})" for r in DEFAULT_EXCLUDE if r not in _PRAGMAS) or None
TOOL = f"coverage.py {coverage.__version__}"


def instrument_python(
    plan: Plan,
    reports: Path,
    sources: Sequence[str],
    path: str | None,
    statements: Mapping[str, Sequence[int]],
) -> tuple[Plan, Path] | None:
    """The plan run measuring only `sources` (tree-relative .py files).

    Args:
        statements: The changed statements' first lines per source (`changed_statements`): where
            the line probes go on an interpreter before 3.12.

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
    probed = {s: sorted(statements.get(s, ())) for s in sources}
    probes = {"data": str(data), "files": probed}
    (reports / CONFIG).write_text(json.dumps(probes), encoding="utf-8")
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
    for name, copy in (("coverage_shim.py", shim), ("coverage_probes.py", reports / PROBES)):
        text = files("referee.tools.adequacy").joinpath(name).read_text("utf-8")
        copy.write_text(text, encoding="utf-8")
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


def changed_statements(
    tree: Path, changed: Mapping[str, set[int] | None], sources: Sequence[str]
) -> dict[str, list[int]]:
    """The first lines of the changed statements of each source, as coverage.py's parser finds
    them (a changed line inside a multi-line statement stands for that statement)."""
    out: dict[str, list[int]] = {}
    for rel in sources:
        statements = _statements(tree / rel, changed.get(rel))
        if statements is not None:
            out[rel] = sorted(_targets(*statements, changed.get(rel)))
    return out


def _targets(parser: PythonParser, statements: set[int], wanted: set[int] | None) -> set[int]:
    return statements if wanted is None else {parser.first_line(n) for n in wanted} & statements


def measure_python(
    data_file: Path, tree: Path, changed: Mapping[str, set[int] | None], sources: Sequence[str]
) -> DiffCoverage | None:
    """The changed statements of `sources` the run executed, per file (None: no data file, the
    tests never started).

    Args:
        data_file: What coverage.py or the line probes wrote.
        tree: The evaluated tree on the host, where the sources are read.
        changed: Changed lines per tree-relative file (None: the whole file is new).
        sources: The Python files measured.
    """
    run = _read(data_file, sources)
    if run is None:
        return None
    found, unmeasured = [], []
    for rel in sources:
        statements = _statements(tree / rel, changed.get(rel))
        if statements is None or rel in run.failed:
            unmeasured.append(rel)
            continue
        parser, lines = statements
        # As coverage.py's report does: a line run inside a multi-line statement runs the statement.
        executed = {parser.first_line(n) for n in run.executed.get(rel, ())}
        found.append(FileLines(rel, _targets(parser, lines, changed.get(rel)), executed))
    measured = diff_coverage(run.tool, found, unmeasured)
    if run.failed:
        failed = "; ".join(f"{rel}: {why}" for rel, why in sorted(run.failed.items()))
        measured.note = f"referee's line probes could not be compiled into {failed}"[:2000]
    return measured


def unavailable(data_file: Path) -> str:
    """Why the run's interpreter could not measure (the shim said so next to the data), or ""."""
    note = data_file.parent / "coverage.unavailable"
    try:
        return note.read_text(encoding="utf-8", errors="replace")[:2000].strip()
    except OSError:
        return ""


@dataclass(frozen=True)
class _Run:
    """What a measured run wrote: the lines executed per source, by which tool."""

    tool: str
    executed: dict[str, set[int]]
    failed: dict[str, str] = field(default_factory=dict)


def _read(data_file: Path, sources: Sequence[str]) -> _Run | None:
    try:
        with data_file.open("rb") as handle:
            head = handle.read(1)
    except OSError:
        return None
    if head == b"{":
        return _probed(data_file, sources)
    return _Run(TOOL, _executed(data_file, sources))


def _of(sources: Sequence[str], measured: Iterable[str]) -> dict[str, str]:
    """Each source's measured file (its path ends with the source's): the first, sorted."""
    out: dict[str, str] = {}
    for path in sorted(measured):
        posix = Path(path).as_posix()
        for rel in sources:
            if rel not in out and posix.endswith("/" + rel):
                out[rel] = path
    return out


def _executed(data_file: Path, sources: Sequence[str]) -> dict[str, set[int]]:
    data = coverage.CoverageData(basename=str(data_file))
    try:
        data.read()
    except CoverageException:
        return {}
    return {rel: set(data.lines(f) or ()) for rel, f in _of(sources, data.measured_files()).items()}


def _probed(data_file: Path, sources: Sequence[str]) -> _Run:
    """The line probes' JSON (written in the run, so read as a claim: capped, and of the shape
    the probes write or nothing)."""
    tool = f"referee's line probes ({TOOL}'s statements)"
    try:
        with data_file.open("rb") as handle:
            record = json.loads(handle.read(_PROBES_LIMIT))
        files, failed = record["files"], record.get("failed", {})
        python = str(record["python"])
        if _VERSION.fullmatch(python):
            tool = f"referee's line probes on Python {python} ({TOOL}'s statements)"
        executed = {rel: _lines(files[f]) for rel, f in _of(sources, map(str, files)).items()}
        return _Run(
            tool, executed, {rel: str(failed[f])[:300] for rel, f in _of(sources, failed).items()}
        )
    except (ValueError, TypeError, KeyError, AttributeError):
        return _Run(tool, {})


def _lines(value: object) -> set[int]:
    if not isinstance(value, list) or not all(type(n) is int for n in value):
        raise ValueError("not a list of line numbers")
    return set(value)


_PROBES_LIMIT = 64 * 1024 * 1024
_VERSION = re.compile(r"\d{1,2}\.\d{1,3}\.\d{1,3}")


def _statements(path: Path, changed: set[int] | None) -> tuple[PythonParser, set[int]] | None:
    """The file's statements, without those a `# pragma: no cover` excludes, unless the change
    wrote such a mark itself (`changed`: its lines, None for a new file): the contract's
    `min_diff_coverage` is the contract's, and a comment in the change cannot lower it. Code
    that never runs by its shape (`if TYPE_CHECKING:`) is left out either way."""
    try:
        text = path.read_text(encoding="utf-8")
        marked = _marks(text, changed)
        parser, lines = _parsed(text, str(path), not marked)
    except (OSError, UnicodeDecodeError, CoverageException, SyntaxError):
        return None
    return parser, set(lines)  # a copy: the cached set is never handed out to be changed


def _marks(text: str, changed: set[int] | None) -> bool:
    """Whether a line the change wrote holds an exclusion mark."""
    return any(
        (changed is None or number in changed) and _MARK.search(line)
        for number, line in enumerate(text.splitlines(), start=1)
    )


# A run reads each changed source twice (its statements before the run, what ran after); a
# megabyte of generated Python takes seconds to parse. Keyed on the text, so an edit is a new entry;
# the parser keeps line numbers, not the syntax tree.
@functools.lru_cache(maxsize=8)
def _parsed(text: str, filename: str, marks: bool = True) -> tuple[PythonParser, set[int]]:
    """`marks`: whether `# pragma: no cover` excludes what it marks (code that never runs by its
    shape is always left out)."""
    parser = PythonParser(text=text, filename=filename, exclude=_EXCLUDE if marks else _SHAPES)
    with pysource.exclusive():  # coverage.py parses with ast: one thread at a time
        parser.parse_source()
    return parser, set(parser.statements)
