"""What a string means to the readers, in every language: a runner's protocol line, a runner's
report or hooks, a place that tells one run from another, a project source file.

The readers fold constants first (concatenation, joins, character codes, reversal …), so these
see the string the program computes, not how it was spelled.
"""

from __future__ import annotations

import itertools
import posixpath
import re

from referee.tools.claims.model import Module, Scope

__all__ = [
    "names_runner",
    "names_source",
    "protocol_line",
    "reveals_environment",
]

# A format placeholder stands for whatever the program fills in (a count, a test name).
_PLACEHOLDER = re.compile(r"\{[^{}]*\}|%[-+ #0]*\d*(?:\.\d+)?[a-zA-Z]|\$\{[^{}]*\}")
_N = r"(?:\d+|X)"
# What a placeholder may be filled with to make a protocol line, and how many are tried.
_VOCABULARY = ("X", "---", "===", "ok", "not ok", "test", "PASS", "FAIL", "Ran")
_MAX_HOLES = 3
_OWN = 3  # letters and digits of the program's own in a line its placeholders complete
# The closing and per-test lines the runners referee reads print themselves: printed by a test,
# they are a forged report (go test, libtest, TAP/node, pytest, unittest, PHPUnit, Surefire,
# jest, vitest, mocha, and the plain closing line any runner may print). A bare `PASS`, `FAIL` or
# `OK` is not one: code prints those for its own reasons (a health check, a CLI, an example's
# output), and no runner referee reads takes its result from them alone (go test's binary gives
# its own account, unittest and pytest report through referee's reporter and guard).
_PROTOCOL = re.compile(
    r"^\s*(?:"
    + "|".join(
        [
            r"--- (?:PASS|FAIL|SKIP):",
            r"=== (?:RUN|PAUSE|CONT|NAME)\s",
            r"ok\s+\S+\s+(?:\(cached\)|[\d.X]+s)",
            r"test \S.* \.\.\. (?:ok|FAILED|ignored)",
            r"test result: ",
            rf"running {_N} tests?\s*$",
            rf"(?:not )?ok {_N}\b",
            rf"1\.\.{_N}\s*$",
            r"TAP version",
            rf"# (?:pass|fail|tests|skip|todo|cancelled) +{_N}",
            rf"(?:\w+:\s*)?{_N} passed, {_N} failed",
            rf"=+ .*{_N} passed",
            rf"Ran {_N} tests? in",
            rf"OK \({_N} tests?",
            rf"Tests run: {_N}, Failures: ",
            rf"Tests:\s+.*{_N} passed",
            r"Test Files\s+.*passed",
            rf"{_N} passing\b",
        ]
    )
    + ")",
    re.MULTILINE,
)
# The runner's report and hooks (a module under test has no business with them either).
_RUNNER = re.compile(
    r"junit_?xml|junit_family|--junit|log-junit|xmlpath|outputFile|reporter-option"
    r"|\bpytest_(?:runtest|collection|session|unconfigure|configure|terminal_summary|report)\w*"
    r"|\.referee-meta|REFEREE_",
    re.IGNORECASE,
)
# Places whose presence or content differ between referee's runs of one tree: its git layout
# (a worktree's `.git` is a file), the process table, the mounts, the container.
_ENVIRONMENT = re.compile(
    r"(?:^|/)\.git(?:/|$)|^/proc(?:/|$)|mountinfo|/sys/fs/cgroup|^/\.dockerenv$|\.containerenv"
)


# The C library's ways to end or signal the process, whatever binds them (cgo's `C.exit`, Rust's
# `libc::_Exit` or an `extern "C"` declaration of its own, ctypes): each skips the runner.
C_ENDS = frozenset(
    {"exit", "_exit", "_Exit", "quick_exit", "abort", "raise", "kill", "pthread_kill", "tgkill"}
    | {"syscall", "exit_group"}
    # The exec family replaces the test binary with another program, which exits as it likes.
    | {"execv", "execve", "execvp", "execvpe", "execl", "execle", "execlp", "fexecve"}
)


def protocol_line(value: str) -> str | None:
    """The runner protocol line a printed string forges, if any: as written, or with its
    placeholders filled with the protocol's own words (`"%s PASS: TestAdd"` with `---`, `"test {}
    ... {}"` with `ok`): what fills a placeholder is the program's to choose."""
    match = _PROTOCOL.search(_PLACEHOLDER.sub("X", value))
    if match:
        return match.group(0).strip()
    holes = _PLACEHOLDER.findall(value)
    if not holes or len(holes) > _MAX_HOLES:
        return None
    pieces = _PLACEHOLDER.split(value)
    for words in itertools.product(_VOCABULARY, repeat=len(holes)):
        filled, written = "", ""  # `written`: the program's own characters, a space for a fill
        for piece, word in zip(pieces, [*words, ""], strict=True):
            filled += piece + word
            written += piece + " " * len(word)
        match = _PROTOCOL.search(filled)
        # The line must be the program's words as much as the fill's (`"%v %v"` forges nothing).
        if match and sum(c.isalnum() for c in written[match.start() : match.end()]) >= _OWN:
            return match.group(0).strip()
    return None


def names_runner(value: str) -> str | None:
    """The runner's report option or hook a string (or name) mentions, if any."""
    match = _RUNNER.search(value)
    return match.group(0) if match else None


def reveals_environment(value: str) -> str | None:
    """The git, process or mount path a string names, if any."""
    match = _ENVIRONMENT.search(value)
    return match.group(0).strip("/") if match else None


def names_source(value: str, scope: Scope, here: str) -> Module | None:
    """The project source file a path string names: resolved from the reading file's folder,
    or, for a bare or rooted path, by its trailing components (`calc.py`, `src/calc.py`)."""
    if not value or "\n" in value or len(value) > 300:
        return None
    near = posixpath.normpath(posixpath.join(posixpath.dirname(here), value))
    tail = value.replace("\\", "/").lstrip("./")
    for module in scope.modules:
        if module.path == near or (tail and _ends_with(module.path, tail)):
            return module
    return None


def _ends_with(path: str, tail: str) -> bool:
    return path == tail or path.endswith("/" + tail)
