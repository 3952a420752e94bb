"""PHP diff coverage from PHPUnit's own `--coverage-clover`, with pcov (or Xdebug) as its driver,
measured in the criterion's own run.

`instrument_phpunit` starts the run's php with the driver switched on for that run only
(`-d pcov.enabled=1 -d pcov.directory=<tree>`; Xdebug: `-d xdebug.mode=coverage`) and asks
PHPUnit for a clover report into the check's report folder, filtered to the changed files'
folders (PHPUnit collects nothing without a filter). With neither driver loaded the run is not
measured, and the reason says what to install. `measure_clover` reads the report: a changed line
is a statement when clover lists a `stmt` on it, executed when its count is above 0.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path, PurePosixPath
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import iterparse

from referee.tools.adequacy.coverage_v8 import statement_lines
from referee.tools.adequacy.lines import FileLines, diff_coverage
from referee.tools.models.adequacy import DiffCoverage
from referee.tools.process.probe import host_program, probe
from referee.tools.runners import Plan
from referee.tools.runners.base import base_name

__all__ = [
    "PHP_SUFFIXES",
    "TOOL",
    "CloverError",
    "coverage_driver",
    "instrument_phpunit",
    "measure_clover",
    "read_clover",
]

PHP_SUFFIXES = (".php",)
TOOL = "phpunit --coverage-clover"
NO_DRIVER = (
    "no PHP coverage driver: {php} loads neither pcov nor Xdebug"
    " (`apt install php-pcov`, or `pecl install pcov`, measures it)"
)
_CLOVER_LIMIT = 64 * 1024 * 1024  # written by the code under test: read only this much
_PHP = re.compile(r"php[\d.]*")
_PHPUNIT = ("phpunit", "phpunit.phar")


class CloverError(ValueError):
    """A clover report referee cannot read (too large, or not clover's XML)."""


def instrument_phpunit(
    plan: Plan, reports: Path, sources: Sequence[str], cwd: Path, root: Path, path: str | None
) -> tuple[Plan, Path] | str | None:
    """The PHPUnit plan writing a clover report of the changed files, and the report's path.

    A string says why the run is not measured (no driver, its own coverage, no php to start);
    None: not a PHPUnit plan.
    """
    if plan.runner != "phpunit" or plan.shell or not sources:
        return None
    if any(a.startswith("--coverage") for a in plan.argv):
        return "the command asks PHPUnit for coverage of its own, which referee leaves alone"
    started = _php_start(plan.argv, cwd, path)
    if isinstance(started, str):
        return started
    at, php, script = started
    driver = coverage_driver(php, path, root)
    if driver is None:
        return NO_DRIVER.format(php=php)
    # For this run only: the project's php.ini is not changed, and pcov looks at the tree alone.
    settings = (
        ("-d", "pcov.enabled=1", "-d", f"pcov.directory={root}")
        if driver == "pcov"
        else ("-d", "xdebug.mode=coverage")
    )
    report = reports / "phpunit-clover.xml"
    folders = sorted({str(root / PurePosixPath(s).parent) for s in sources})
    extra = (
        "--coverage-clover",
        str(report),
        *(a for f in folders for a in ("--coverage-filter", f)),
    )
    argv = (*plan.argv[:at], php, *settings, *script, *plan.argv[at + 1 :], *extra)
    return replace(plan, argv=argv), report


def _php_start(
    argv: Sequence[str], cwd: Path, path: str | None
) -> tuple[int, str, tuple[str, ...]] | str:
    """Where the command starts php or phpunit: (index, the php to run, the script to give it).

    `php … vendor/bin/phpunit`: that php, no script added. `phpunit` alone: the interpreter of
    its `#!` line, given the script as the command would have found it.
    """
    for i, word in enumerate(argv):
        name = base_name(word)
        if _PHP.fullmatch(name):
            return i, word, ()
        if name in _PHPUNIT:
            script = _resolve(word, cwd, path)
            php = _shebang_php(script, path) if script else None
            if script is None or php is None:
                return f"{word} is not a PHP script referee can start with a coverage driver"
            return i, php, (word if "/" in word else str(script),)
    return "no php or phpunit in the command"


def _resolve(word: str, cwd: Path, path: str | None) -> Path | None:
    if "/" in word:
        return cwd / word
    found = shutil.which(word, path=path)
    return Path(found) if found else None


def _shebang_php(script: Path, path: str | None) -> str | None:
    """The php of a script's `#!/usr/bin/php` or `#!/usr/bin/env php` line (a phar has one)."""
    try:
        with script.open("rb") as f:
            first = f.readline(256).decode("utf-8", "replace").strip()
    except OSError:
        return None
    words = first[2:].split() if first.startswith("#!") else []
    if words and base_name(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
        return shutil.which(words[0], path=path) if words and _PHP.fullmatch(words[0]) else None
    return words[0] if words and _PHP.fullmatch(base_name(words[0])) else None


def coverage_driver(php: str, path: str | None, tree: Path | None = None) -> str | None:
    """`pcov` or `xdebug` when the php loads one (pcov first: it only collects lines).

    Asked on the host, so only of a php outside the evaluated `tree`: a `#!` line or a command
    may name one of the tree's own files, which is the generator's program (then None: the run
    is not measured, and says so)."""
    program = host_program(php, path, tree)
    return _modules(program) if program is not None else None


@lru_cache(maxsize=16)
def _modules(php: str) -> str | None:
    done = probe([php, "-m"])
    if done is None:
        return None
    loaded = {line.strip().lower() for line in done.stdout.splitlines()}
    return next((d for d in ("pcov", "xdebug") if d in loaded), None)


def read_clover(report: Path) -> dict[str, tuple[set[int], set[int]]]:
    """Per file (as clover names it) its statement lines and the executed ones.

    Raises CloverError when the report is too large or not XML (a clear reason, not a crash:
    the file is in a folder the tests can write); a DTD or entity is refused unread.
    """
    try:
        if report.stat().st_size > _CLOVER_LIMIT:
            raise CloverError(f"the clover report is over {_CLOVER_LIMIT >> 20} MiB")
        return dict(_files(report))
    except OSError as e:
        raise CloverError(f"the clover report cannot be read: {e.strerror}") from e
    except (ParseError, DefusedXmlException) as e:
        raise CloverError(f"the clover report is not XML referee reads: {e}") from e


def _files(report: Path) -> Iterator[tuple[str, tuple[set[int], set[int]]]]:
    # iterparse and clear: a large report is never held as a whole tree.
    statements: set[int] = set()
    executed: set[int] = set()
    for _, element in iterparse(str(report), events=("end",), forbid_dtd=True):
        if element.tag == "line" and element.get("type") == "stmt":
            line, count = _number(element, "num"), _number(element, "count")
            if line is not None:
                statements.add(line)
                if count:
                    executed.add(line)
        elif element.tag == "file":
            yield element.get("name") or "", (statements, executed)
            statements, executed = set(), set()
            element.clear()


def _number(element: Element, name: str) -> int | None:
    text = element.get(name) or ""
    return int(text) if text.isdigit() and len(text) < 19 else None


def measure_clover(
    report: Path, tree: Path, changed: Mapping[str, set[int] | None], sources: Sequence[str]
) -> DiffCoverage:
    """The changed statements of `sources` (tree-relative .php files) that the run executed.

    A file the report does not name was loaded by no test: each of its lines of code counts as
    a statement no test ran (PHPUnit lists only the files it saw run).
    """
    try:
        files = read_clover(report)
    except CloverError as e:
        return DiffCoverage(tool=TOOL, unmeasured=list(sources), note=str(e))
    found = []
    for rel in sources:
        entry = next((v for k, v in files.items() if k.endswith("/" + rel)), None)
        statements, executed = entry if entry else (_unloaded(tree / rel), set())
        wanted = changed.get(rel)
        targets = statements if wanted is None else statements & wanted
        found.append(FileLines(rel, targets, executed & targets))
    return diff_coverage(TOOL, found, [])


def _unloaded(path: Path) -> set[int]:
    """A file no test loaded: its lines of code, but the `<?php` opening tag."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return set()
    opening = {n for n, line in enumerate(text.splitlines(), 1) if line.strip() == "<?php"}
    return statement_lines(text) - opening
