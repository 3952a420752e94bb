"""What tells a program it runs under test, in any language: a test runner's name, its variables
and flags, the tests' own files and the git folder, as a string the program computes.

The readers fold constants first (`"py" + "test"`, character codes, reversal …), so this sees the
string the program would compare or look up, not how it was spelled. A tell alone is nothing (a
log line may name pytest); it counts where the same expression also reads the process's situation
(tools/claims/situation.py).
"""

from __future__ import annotations

import fnmatch
import re
from typing import Literal, NamedTuple

__all__ = [
    "RUNNER_GLOBALS",
    "Read",
    "Tell",
    "is_runner_config",
    "paired",
    "pairs",
    "situated",
    "tell_of",
]


class Tell(NamedTuple):
    """What a value names: the tests' files (or a path through a runner's own folder), the tests'
    folder itself (`tests`, `spec`, `…/__tests__`), a runner (its name, variable or option), or
    the test mode's word (`test`, `testing`, `test.v`)."""

    kind: Literal["file", "folder", "runner", "word", "procfs"]
    text: str
    folder: str = ""
    """The value, where it names the tests' folder (`tests`, also the test mode's word)."""


class Read(NamedTuple):
    """What a program reads: the files on disk, or the process itself (its modules, environment,
    arguments, stack, what it can load)."""

    kind: Literal["file", "process", "objects"]
    text: str
    """`objects`: what the process holds that a runner may have put there (its streams, import
    hooks, log handlers, the collector's objects): it answers to the runner's name and the tests'
    files, not to a bare word such as "test", which such code prints as often as it asks."""


def pairs(tell: Tell, read: Read) -> bool:
    """Whether a read and a tell ask a question together: the process's own situation answers to
    every tell; the files on disk only to the tests' files (a data file under `tests/` read by a
    tool, a report named after a runner, say nothing about the run)."""
    if tell.kind == "procfs":
        return False
    if read.kind == "objects":
        return tell.kind in ("runner", "file")
    if read.kind == "process":
        return tell.kind != "folder"  # `argv[1] == "spec"` is a command, not a folder
    # The tests' folder listed or looked for: a hold-out laid there adds a file, which code that
    # counts them would see in the hold-out's run only. The bare word (`test`, also `go test`'s
    # and many a module's name) counts only where the read lists or looks for a folder.
    if tell.kind in ("file", "folder"):
        return True
    return bool(tell.folder) and bool(_LISTS.search(read.text))


def paired(tells: list[Tell], reads: list[Read]) -> tuple[Tell, Read] | None:
    """The first tell and read that ask together, the tell named for what the read makes of it
    (`tests` read from disk is the tests' folder, compared with NODE_ENV the test mode)."""
    for tell in tells:
        for read in reads:
            if pairs(tell, read):
                if read.kind == "file" and tell.folder:
                    tell = Tell("folder", f"the tests' folder ({tell.folder!r})", tell.folder)
                return tell, read
    return None


def situated(tells: list[Tell], reads: list[Read]) -> tuple[list[Tell], list[Read]]:
    """The tells and reads of one expression, with a path into `/proc` taken for what it is: the
    process itself read through the files (`/proc/self/cmdline` is argv, `/proc/self/exe` the
    executable, `/proc/<pid>/environ` the environment), whatever call reads it (`open`,
    `os.Readlink`, `fs.readFileSync`, `std::fs::read_link`). The path is a read of the process by
    itself, and every file read beside it is one too."""
    procfs = [t for t in tells if t.kind == "procfs"]
    if not procfs:
        return tells, reads
    return [t for t in tells if t.kind != "procfs"], [
        *(Read("process", r.text) for r in reads),
        *(Read("process", t.text) for t in procfs),
    ]


# Test runners and frameworks, as a word of a module name, a path, a class or a command.
# (Words that are also ordinary English or file names, nose, karma, failsafe, pest, are left out:
# a data file `nose.png` read from disk tells nothing.)
_RUNNERS = frozenset(
    {"pytest", "_pytest", "unittest", "nose2", "vitest", "jest", "mocha", "jasmine", "phpunit"}
    | {"junit", "testng", "surefire", "nextest", "libtest", "jsdom", "kotest"}
)
# A runner's own variables and options: PYTEST_CURRENT_TEST, JEST_WORKER_ID, __vitest_worker__.
_RUNNER_NAME = re.compile(
    r"^_*(?:_?pytest|vitest|jest|mocha|jasmine|phpunit|nextest|rust_test|node_test|junit|testng"
    r"|surefire|unittest|test_runner)(?:_[a-z0-9_]*)?$"
)
# The runner's mode as a whole value: NODE_ENV=test, APP_ENV=testing, `manage.py test`.
_WORDS = frozenset({"test", "tests", "testing", "__tests__"})
# Go's test flags (`test.v`, `-test.run`) and libtest's (a test binary's `.test` suffix is the
# word itself; a host `myapp.test` is not).
_FLAG = re.compile(r"^-{0,2}test\.[a-z]|^--(?:test-threads|nocapture)\b")
# A file of the tests, its name written out or as a glob (`test_*.py`, `*_test.go`).
_TEST_FILE = re.compile(
    r"^(?:test_.*\.py|.*_test\.py|conftest\.py|.*\.(?:test|spec)\.[cm]?[jt]sx?|.*_test\.go"
    r"|.*Tests?\.(?:java|php|kt)|Test.*\.java|.*IT\.java)$"
)
_TEST_FOLDER = frozenset({"test", "tests", "__tests__", "spec", "specs"})
_GIT_INSIDE = re.compile(r"(?:^|[/\\])\.git[/\\][^/\\]")
_WORD = re.compile(r"[^a-z0-9_]+")
# A runner's own functions by their qualified names: Go's testing package (`testing.tRunner` in a
# stack), libtest's (`test::run_test`). (Not cargo's `CARGO_*` variables: every build script and
# proc-macro reads them for its own reasons.)
_RUNNER_CODE = re.compile(r"^(?:testing\.[A-Za-z]\w*|test::[a-z_]\w*)$")
_ESCAPED = re.compile(r"\\([.\-_/:$^])")
# cargo builds every test binary into target/<profile>/deps/ (the program itself one level up).
_CARGO_TESTS = re.compile(r"(?:^|/)deps/|/deps$")
# procfs: a process's arguments, environment, executable and parent, as files.
_PROCFS = re.compile(r"^/proc(?:/|$)")
_SPACE = re.compile(r"\s")
# Reads that list a folder or ask whether a path is there, in every language's spelling
# (`os.listdir`, `.iterdir()`, `fs.readdirSync`, `os.ReadDir`, `filepath.WalkDir`, `read_dir`).
_LISTS = re.compile(r"(?i)list|scan|walk|readdir|read_dir|iterdir|glob|exist|isdir|is_dir|opendir")

# The globals a JS runner installs: there only under it (`typeof expect`, `globalThis.vi`).
RUNNER_GLOBALS = frozenset(
    {"describe", "it", "test", "expect", "vi", "jest", "beforeEach", "afterEach", "beforeAll"}
    | {"afterAll", "suite", "jasmine", "mocha", "Mocha", "__vitest_worker__"}
    | {"__vitest_environment__", "__vitest_index__"}
)

# JS/TS files that configure the tools, the runner among them (`vitest.config.ts` reads VITEST by
# design): their changes are the harness's finding (tools/tampering/harness.py), not this one's.
_RUNNER_CONFIG = re.compile(
    r"(?:^|/)(?:[^/]+\.(?:config|conf|setup)\.[cm]?[jt]s|setup[Tt]ests\.[cm]?[jt]sx?)$"
)


def is_runner_config(path: str) -> bool:
    return bool(_RUNNER_CONFIG.search(path))


def tell_of(value: str, edited: tuple[str, ...] | None = None) -> Tell | None:
    """What a string tells of the tests (a runner, its variable, a test file), if anything.

    Args:
        value: The string the program computes.
        edited: For test code, which always runs under its runner (naming it there tells
            nothing): the test files the change edited, the only tell that counts there (they
            run in their base form too).

    Returns:
        The tell with a short description for the finding, or None.
    """
    # A pattern names what it matches: `\.test\.js$`, `^tests::` (a regular expression's
    # escapes and anchors are no part of the name).
    plain = _ESCAPED.sub(r"\1", value or "").strip("^$") if value else ""
    if plain and plain != value:
        return tell_of(plain, edited) or _told(value, edited)
    return _told(value, edited)


def _told(value: str, edited: tuple[str, ...] | None) -> Tell | None:
    # A name, a path or a command word: a sentence that mentions pytest (a log line, a report's
    # text) names nothing the program looks up.
    value = value.strip() if value else ""
    parts = [p for p in re.split(r"[/\\]", value) if p]
    if not parts or len(value) > 300 or _SPACE.search(value):
        return None  # "/" names nothing either
    lowered = value.lower()
    if edited is not None:
        hit = next(
            (e for e in edited if fnmatch.fnmatchcase(e.rsplit("/", 1)[-1], parts[-1])), None
        )
        return Tell("file", f"the edited test file {hit}") if hit is not None else None
    if _PROCFS.match(value):
        return Tell("procfs", f"the process's own files ({value!r})")
    named = next((p for p in parts if _TEST_FILE.match(p)), None)
    if named is not None:
        return Tell("file", f"the test file {named!r}")
    if any(p.lower() in _TEST_FOLDER for p in parts[:-1]):
        return Tell("file", f"the tests' folder ({value!r})")
    if parts[-1].lower() in _TEST_FOLDER and (len(parts) > 1 or lowered not in _WORDS):
        return Tell("folder", f"the tests' folder ({value!r})", value)
    if _GIT_INSIDE.search(value):
        return Tell("file", f"the git folder ({value!r})")
    folders = value.split("/")  # a path, not a PHP class name (PHPUnit\\Framework\\TestCase)
    if len(folders) > 1 and any(p.lower() in _RUNNERS for p in folders):
        return Tell("file", f"the test runner's files ({value!r})")
    if _RUNNER_CODE.match(value):
        return Tell("runner", f"the test runner's own code ({value!r})")
    if _CARGO_TESTS.search(value):
        return Tell("runner", f"cargo's folder of test binaries ({value!r})")
    if lowered.strip("-._: ") in _WORDS or _FLAG.search(lowered) or lowered == "node:test":
        folder = value if lowered in _TEST_FOLDER else ""
        return Tell("word", f"the test mode {value!r}", folder)
    for word in _WORD.split(lowered):
        if word in _RUNNERS or _RUNNER_NAME.match(word):
            return Tell("runner", f"the test runner ({value!r})")
    return None
