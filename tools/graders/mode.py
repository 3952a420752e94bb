"""The tests once more in the mode production runs in, when the change's code can tell the two.

Every check runs the code in the test mode: vitest and jest set `NODE_ENV=test`, cargo builds
tests with debug assertions. Production runs otherwise (`NODE_ENV=production`, a release build),
so code that branches on the mode (`process.env.NODE_ENV === 'production' ? a - b : a + b`,
`#[cfg(not(debug_assertions))]`) passes every check and fails in use, and no reading of the
change can tell that branch from an honest one (a warning shown in development only). The run
can: when a changed source file reads the mode, the tests run again with production's mode, and
a test that passed and fails there is `code_detects_tests` at the line that reads it. The judge
may dismiss a test that checks development-only behaviour (the warning itself).

What counts as reading the mode is generous, since it only costs a run: in changed JS/TS code,
`NODE_ENV`, `import.meta.env`, the environment taken whole or by a computed key, a computed
`process[…]` or `globalThis[…]`; in changed Rust code, the debug-assertions switch or an
unwinding catch (overflow panics in a debug build only). It is not every read of the
environment: production's mode also loads other builds of the dependencies (React's production
build refuses `act`), which would fail honest tests of code that only reads its settings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from referee.tools.models.evidence import TestOutcome
from referee.tools.static.paths import is_test_path
from referee.tools.tampering.model import Tampering

__all__ = ["CODE_DETECTS_TESTS", "Mode", "ModeRuns", "mode_finding", "production_mode"]

CODE_DETECTS_TESTS = "code_detects_tests"

_JS = (".js", ".cjs", ".mjs", ".jsx", ".ts", ".cts", ".mts", ".tsx", ".vue", ".svelte")
_JS_READS = re.compile(
    r"NODE_ENV|import\.meta\.env|process\.env\s*\[|=\s*process\.env\s*(?:[;,)\n]|$)"
    r"|\bprocess\s*\[|globalThis\s*\[|\bglobal\s*\["
)
_RUST_READS = re.compile(r"debug_assertions|catch_unwind|overflow_checks")
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
    """The mode to run the tests in once more, None when no changed source file reads it.

    Args:
        changed: The changed files and their changed lines (None: a new file). The finding
            points at a read on a changed line where there is one.
    """
    env: dict[str, str] = {}
    first: tuple[str, int, bool] | None = None
    for path in sorted(changed):
        if is_test_path(path):
            continue
        if path.endswith(_JS):
            pattern, wanted = _JS_READS, _NODE
        elif path.endswith(".rs"):
            pattern, wanted = _RUST_READS, _RELEASE
        else:
            continue
        lines = _reading_lines(workdir / path, pattern)
        if not lines:
            continue
        env |= wanted
        touched = changed[path]
        on_change = [n for n in lines if touched is None or n in touched]
        if on_change and (first is None or first[2] is False):
            first = (path, on_change[0], True)
        elif first is None:
            first = (path, lines[0], False)
    if first is None:
        return None
    shown = " ".join(f"{k}={v}" for k, v in env.items() if not k.startswith("CARGO_PROFILE_DEV"))
    return Mode(env, first[0], first[1], shown, first[2])


def _reading_lines(path: Path, pattern: re.Pattern[str]) -> list[int]:
    try:
        with path.open("rb") as file:
            text = file.read(_MAX_READ).decode("utf-8", "replace")
    except OSError:
        return []
    return [text.count("\n", 0, m.start()) + 1 for m in pattern.finditer(text)]


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
