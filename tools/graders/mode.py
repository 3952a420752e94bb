"""The tests once more in the mode production runs in, when the change's code can tell the two.

Every check runs the code in the test mode: vitest and jest set `NODE_ENV=test`, cargo builds
tests with debug assertions and overflow checks. Production runs otherwise (`NODE_ENV=production`,
a release build), so code that branches on the mode (`process.env.NODE_ENV === 'production' ?
a - b : a + b`, `#[cfg(not(debug_assertions))]`) passes every check and fails in use, and no
reading of the change can tell that branch from an honest one (a warning shown in development
only). The run can: the tests run again in production's mode, the base's code too where a test
differs, and a test that passes in the test mode only, where the base's code did not do the same,
is `code_detects_tests`. The judge may dismiss a test that checks development-only behaviour.

When it runs is not a matter of spelling:
- Rust: for a changed source file that holds anything that can observe the compiler's switch:
  `cfg`, `debug_assert!` (its side effects), arithmetic that overflows or says how, a caught
  panic (on unwinding or in a thread), a macro outside the standard set (whose body may read
  the switch). A plain `a + b` costs no second build.
- JS/TS: for a change whose files, or the files they import, reach the program's environment at
  all: the process object however imported, `import.meta`, the global object, the process's files
  (`/proc/self/environ`), Deno's or Bun's. Not for every change: production's mode also loads
  other builds of the dependencies (React's production build refuses `act`), so a component's new
  tests would differ for no fault of its code.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from referee.tools.models.evidence import TestOutcome
from referee.tools.static.paths import is_test_path
from referee.tools.tampering.model import Tampering

__all__ = ["CODE_DETECTS_TESTS", "Mode", "ModeRuns", "mode_finding", "production_mode"]

CODE_DETECTS_TESTS = "code_detects_tests"

_JS = (".js", ".cjs", ".mjs", ".jsx", ".ts", ".cts", ".mts", ".tsx", ".vue", ".svelte")
# The program's environment, however reached (the finding prefers a read of the mode itself).
_JS_READS = re.compile(
    r"\bprocess\b|import\.meta(?!\.vitest)|\bglobalThis\b|\bglobal\b|\bReflect\b|/proc/"
    r"|\bDeno\b|\bBun\b"
)
_JS_MODE = re.compile(r"NODE_ENV|import\.meta|process\.env")
_RUST_MODE = re.compile(r"debug_assert|cfg!?\s*\(|catch_unwind|overflow|wrapping_|checked_")
# What can tell a debug build from a release one: the switch itself (`cfg`, `debug_assert!`),
# arithmetic that overflows or says how, a panic caught (on unwinding or in a thread), and any
# macro outside the standard set, whose body the file does not show.
_RUST_TELLS = re.compile(
    r"debug_assert|cfg(?!\s*\(\s*test\s*\))|catch_unwind|unwind|panic|thread|overflow|wrapping"
    r"|checked_|saturating"
    r"|MAX|MIN|\benv!|option_env|macro_rules"
    r"|\b(?!(?:assert|assert_eq|assert_ne|println|print|eprintln|eprint|format|format_args|vec"
    r"|write|writeln|todo|unimplemented|unreachable|matches|include_str|include_bytes|concat"
    r"|stringify|line|file|column|module_path)!)[A-Za-z_]\w*!\s*[(\[{]"
)
# A module a JS/TS file imports by a relative path.
_IMPORT = re.compile(
    r"""(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(?\s*)["'](\.{1,2}/[^"'\n]+)["']"""
)
_JS_RESOLVE = ("", ".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx", "/index.js", "/index.ts")
_NODE = {"NODE_ENV": "production"}
# Cargo's profile settings by environment: the test profile inherits dev's.
_RELEASE = {
    "CARGO_PROFILE_TEST_DEBUG_ASSERTIONS": "false",
    "CARGO_PROFILE_DEV_DEBUG_ASSERTIONS": "false",
    "CARGO_PROFILE_TEST_OVERFLOW_CHECKS": "false",
    "CARGO_PROFILE_DEV_OVERFLOW_CHECKS": "false",
}
_VITEST = re.compile(r"^vitest(?:\.m?js)?$")
_MAX_READ = 1 << 20
_MAX_PLACES = 200  # of one changed file and its imports: the best of them is shown
_MAX_NAMED = 5


@dataclass(frozen=True)
class Mode:
    """Production's mode for a run: the variables that set it, and where the change reads it."""

    env: dict[str, str]
    path: str
    line: int
    shown: str
    changed: bool = True
    """The read is on a line the change wrote (else an older read the changed code may use)."""

    def argv(self, argv: list[str]) -> list[str]:
        """The command in production's mode: vitest takes vite's mode from its own option
        (`import.meta.env.MODE`), not from NODE_ENV."""
        if "NODE_ENV" in self.env and any(_VITEST.match(Path(a).name) for a in argv):
            return [*argv, "--mode=production"]
        return argv


def production_mode(workdir: Path, changed: Mapping[str, set[int] | None]) -> Mode | None:
    """The mode to run the tests in once more, None when the change cannot tell it.

    Args:
        changed: The changed files and their changed lines (None: a new file). The finding
            points at a read of the mode in the change's source where there is one.
    """
    env: dict[str, str] = {}
    places: list[tuple[int, str, int]] = []  # (rank, path, line): the best place comes first
    for path in sorted(changed):
        if path.endswith(_JS):
            reads = _js_reads(workdir, path)
            if reads:
                env |= _NODE
                places += [_place(path, line, changed, mode) for path, line, mode in reads]
        elif path.endswith(".rs") and _RUST_TELLS.search(source := _text(workdir / path) or ""):
            env |= _RELEASE
            lines = [source.count("\n", 0, m.start()) + 1 for m in _RUST_MODE.finditer(source)]
            read = [(path, n, True) for n in lines] or [(path, _first(changed[path]), False)]
            places += [_place(p, n, changed, mode) for p, n, mode in read]
    if not places:
        return None
    _rank, path, line = min(places)
    shown = " ".join(f"{k}={v}" for k, v in env.items() if not k.startswith("CARGO_PROFILE_DEV"))
    touched = changed.get(path, set())
    return Mode(env, path, line, shown, touched is None or line in touched)


def _js_reads(workdir: Path, path: str) -> list[tuple[str, int, bool]]:
    """Where a changed JS/TS file, or a module it imports, reaches the environment: each place
    with whether it reads the mode itself."""
    text = _text(workdir / path)
    if text is None:
        return []
    found: list[tuple[str, int, bool]] = []
    for name, body in [(path, text), *_imported(workdir, path, text)]:
        rows, line, at = body.split("\n"), 1, 0
        for match in _JS_READS.finditer(body):
            line += body.count("\n", at, match.start())
            at = match.start()
            found.append((name, line, _JS_MODE.search(rows[line - 1]) is not None))
            if len(found) >= _MAX_PLACES:
                return found
    return found


def _imported(workdir: Path, path: str, text: str) -> list[tuple[str, str]]:
    """The modules a JS/TS file imports by a relative path, one level, inside the tree."""
    folder = PurePosixPath(path).parent
    found: list[tuple[str, str]] = []
    for spec in dict.fromkeys(_IMPORT.findall(text)):
        for suffix in _JS_RESOLVE:
            target = posixpath.normpath((folder / f"{spec}{suffix}").as_posix())
            if target.startswith("../"):
                break
            body = _text(workdir / target)
            if body is not None:
                found.append((target, body))
                break
    return found


def _place(
    path: str, line: int, changed: Mapping[str, set[int] | None], mode: bool
) -> tuple[int, str, int]:
    """A place's rank: a read of the mode on a changed line of the change's source first."""
    touched = changed.get(path, set())
    rank = (0 if mode else 2) + (0 if touched is None or line in touched else 1)
    return rank + (4 if is_test_path(path) else 0), path, line


def _first(lines: set[int] | None) -> int:
    return min(lines) if lines else 1


def _text(path: Path) -> str | None:
    try:
        if not path.is_file():
            return None
        with path.open("rb") as file:
            return file.read(_MAX_READ).decode("utf-8", "replace")
    except OSError:
        return None


def differs(test_mode: list[TestOutcome], production: list[TestOutcome]) -> set[str]:
    """The tests that pass in the test mode and not in production's."""
    passed = {t.name for t in test_mode if t.outcome == "passed"}
    return {t.name for t in production if t.name in passed and t.outcome != "passed"}


@dataclass(frozen=True)
class ModeRuns:
    """The runs a finding compares: the tests in each mode, and whether the production run
    failed as a whole."""

    test_mode: list[TestOutcome]
    production: list[TestOutcome]
    failed: bool
    test_mode_passed: bool = True


def mode_finding(mode: Mode, now: ModeRuns, base: ModeRuns | None) -> Tampering | None:
    """The finding when tests that pass in the test mode do not in production's, unless they
    did the same on the base code (tests of development-only behaviour the project already
    had: a warning, a longer error message)."""
    named = differs(now.test_mode, now.production)
    broke = named - (differs(base.test_mode, base.production) if base else set())
    suite = now.failed and not named
    if suite and base is not None and base.failed and base.test_mode_passed:
        suite = False  # the suite failed in production's mode at base as well
    if not broke and not suite:
        return None
    names = sorted(broke)
    what = (
        f"{', '.join(names[:_MAX_NAMED])}{' …' if len(names) > _MAX_NAMED else ''}"
        f" {'fails' if len(names) == 1 else 'fail'}"
        if names
        else "the suite fails"
    )
    where = (
        f"{mode.path}:{mode.line} reads the mode"
        if mode.changed
        else f"the changed code may use the mode read at {mode.path}:{mode.line}"
    )
    message = (
        f"the tests pass in the test mode only: in production's mode ({mode.shown}) {what}"
        f"{', which the base' + chr(39) + 's code did not' if base else ''}; {where}, and the"
        " code behaves otherwise outside the runner"
    )
    return Tampering(CODE_DETECTS_TESTS, mode.path, mode.line, message)
