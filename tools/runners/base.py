"""What every runner module shares: the call it plans for, the plan it returns, the report it reads.

A runner module answers two questions about one test command: how to ask the runner for a
per-test report (`Plan.argv`, `Plan.env`), and how to read what it wrote (`Report`). A command
whose runner cannot be asked gets an `Advice` instead: it still runs, and the advice says exactly
what to add.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from referee.tools.models.evidence import TestOutcome

__all__ = [
    "JUNIT_HINT",
    "Account",
    "Advice",
    "Call",
    "Parse",
    "Plan",
    "Report",
    "Runner",
    "Search",
    "base_name",
    "relative_to",
]

Parse = Callable[[bytes], list[TestOutcome]]
"""Reads one report's bytes (untrusted: written by the code under test) into outcomes."""

Account = Callable[[bytes], str | None]
"""Reads the same bytes for the test binaries' own account of the run: why it does not back the
outcomes (the runner was bypassed), or None."""

JUNIT_HINT = "and name that file in the check's `junit` field"


@dataclass(frozen=True)
class Call:
    """One test command as a check gives it, split where the runner's own program starts.

    Attributes:
        prefix: Tokens before the runner (`uv run`, `npx`, `poetry run --` …), kept as they are.
        command: The runner's program and its arguments.
        cwd: The check's working directory.
        tree: The root of the evaluated tree the command runs in.
        reports: A fresh folder of referee's scratch space for this run's reports.
        path: The PATH to look programs up in (the server's).
        depth: How many package.json scripts led here (a script calling itself ends).
        throwaway: What the run writes into the tree is thrown away afterwards (the sandbox's
            overlay), so a runner may be told to start from a clean build folder.
    """

    prefix: tuple[str, ...]
    command: tuple[str, ...]
    cwd: Path
    tree: Path
    reports: Path
    path: str | None = None
    depth: int = 0
    throwaway: bool = False

    @property
    def program(self) -> str:
        return base_name(self.command[0]) if self.command else ""

    @property
    def args(self) -> tuple[str, ...]:
        return self.command[1:]

    def argv(self, command: Sequence[str]) -> tuple[str, ...]:
        """The full argv for a rewritten runner command, behind the same prefix."""
        return (*self.prefix, *command)

    def with_command(
        self, command: Sequence[str], prefix: Sequence[str] = (), *, deeper: bool = False
    ) -> Call:
        """The same place and folders, another command (a script's segment)."""
        depth = self.depth + 1 if deeper else self.depth
        return Call(
            tuple(prefix),
            tuple(command),
            self.cwd,
            self.tree,
            self.reports,
            self.path,
            depth,
            self.throwaway,
        )


@dataclass(frozen=True)
class Search:
    """Report files found after the run: under `root`, in folders named `folder`, matching
    `pattern` (only files written during the run count)."""

    root: Path
    pattern: str
    folder: str | None = None


@dataclass(frozen=True)
class Report:
    """Where a runner writes its per-test report and how to read it.

    Attributes:
        format: junit · jest-json · go-json · libtest (for people: which reader ran).
        parse: The reader; each file (or the stdout) is parsed on its own and the results joined.
        files: Exact report files.
        search: Folders looked through after the run (Maven writes inside the tree).
        stdout: The report is the command's standard output (go -json, libtest).
        optional: The runner writes no report when it runs no test (Surefire, Gradle), so none
            means zero tests rather than a run that broke.
        account: Checks the report against the test binaries' own account of the run (go test,
            cargo test: tools/runners/account.py).
    """

    format: str
    parse: Parse
    files: tuple[Path, ...] = ()
    search: tuple[Search, ...] = ()
    stdout: bool = False
    optional: bool = False
    account: Account | None = None


@dataclass(frozen=True)
class Plan:
    """How to run a test command so that it reports every test's outcome.

    Attributes:
        runner: The runner's name (pytest, jest, go …).
        argv: The command to run.
        report: Where the report is written and how to read it.
        env: Extra variables for the command.
        shell: Run `argv` through `/bin/sh -c` (a package.json script); None keeps the check's.
        notes: Facts worth recording (a script resolved, a report written inside the tree).
        hide: Tree-relative folders the run must not see (build output outside git that the
            runner would take for up to date).
        segments: A shell line's segments before the runner's (`npm ci` of `npm ci && jest`).
        line: A shell line's segments as planned, joined by `&&` into `argv`.
        runner_at: Which of `line` is the runner's segment.
        inner: The runner segment's own plan (so a coverage tool can wrap that segment alone).
    """

    runner: str
    argv: tuple[str, ...]
    report: Report
    env: Mapping[str, str] = field(default_factory=dict)
    shell: bool | None = None
    notes: tuple[str, ...] = ()
    hide: tuple[str, ...] = ()
    segments: tuple[str, ...] = ()
    line: tuple[str, ...] = ()
    runner_at: int = 0
    inner: Plan | None = None

    def with_segment(self, segment: Plan) -> Plan:
        """This shell line with its runner's segment planned as `segment` (its variables added)."""
        text = segment.argv[0] if segment.shell else join_words(segment.argv)
        line = (*self.line[: self.runner_at], text, *self.line[self.runner_at + 1 :])
        return replace(self, argv=(" && ".join(line),), env={**self.env, **segment.env}, line=line)


@dataclass(frozen=True)
class Advice:
    """A command whose runner referee cannot ask for a report: what the check should add."""

    runner: str | None
    hint: str


@dataclass(frozen=True)
class Runner:
    """One test runner: which commands are its own, and how to plan them.

    Attributes:
        name: As people call it.
        matches: True for the runner's command (program and arguments, wrappers removed).
        plan: The plan (or advice) for a matching call.
    """

    name: str
    matches: Callable[[Sequence[str]], bool]
    plan: Callable[[Call], Plan | Advice]


def base_name(token: str) -> str:
    """A program's name without its folder (`./node_modules/.bin/jest` → `jest`)."""
    return os.path.basename(token)


def relative_to(name: str, folder: Path) -> str:
    """A path a report gives, relative to `folder` when it lies inside it (for readable ids)."""
    try:
        return Path(name).relative_to(folder).as_posix()
    except ValueError:
        return name


_PLAIN = re.compile(r"[\w@%+=:,./*?\[\]{}~$-]+")


def join_words(words: Sequence[str]) -> str:
    """Words of a shell line joined back: each as written (quotes kept), or quoted when the shell
    would change it."""
    return " ".join(_word(w) for w in words)


def _word(word: str) -> str:
    if word[:1] in ("'", '"') or _PLAIN.fullmatch(word):
        return word  # as written in the line, or a word with nothing the shell would change
    return shlex.quote(word)
