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
from dataclasses import dataclass
from pathlib import Path

from referee.tools.models.evidence import TestOutcome
from referee.tools.static.paths import is_test_path
from referee.tools.tampering.model import Tampering

__all__ = ["CODE_DETECTS_TESTS", "Mode", "mode_finding", "production_mode"]

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
_MAX_READ = 1 << 20
_MAX_NAMED = 5


@dataclass(frozen=True)
class Mode:
    """Production's mode for a run: the variables that set it, and where the change reads it."""

    env: dict[str, str]
    path: str
    line: int
    shown: str


def production_mode(workdir: Path, changed: list[str]) -> Mode | None:
    """The mode to run the tests in once more, None when no changed source file reads it."""
    env: dict[str, str] = {}
    first: tuple[str, int] | None = None
    for path in sorted(changed):
        if is_test_path(path):
            continue
        if path.endswith(_JS):
            pattern, wanted = _JS_READS, _NODE
        elif path.endswith(".rs"):
            pattern, wanted = _RUST_READS, _RELEASE
        else:
            continue
        line = _reading_line(workdir / path, pattern)
        if line is None:
            continue
        env |= wanted
        first = first or (path, line)
    if first is None:
        return None
    shown = " ".join(f"{k}={v}" for k, v in env.items() if not k.startswith("CARGO_PROFILE_DEV"))
    return Mode(env, first[0], first[1], shown)


def _reading_line(path: Path, pattern: re.Pattern[str]) -> int | None:
    try:
        with path.open("rb") as file:
            text = file.read(_MAX_READ).decode("utf-8", "replace")
    except OSError:
        return None
    match = pattern.search(text)
    return None if match is None else text.count("\n", 0, match.start()) + 1


def mode_finding(
    mode: Mode,
    now: list[TestOutcome],
    there: list[TestOutcome],
    failed: bool,
) -> Tampering | None:
    """The finding when the tests that pass in the test mode do not in production's: `there`
    is the production run's outcomes, `failed` whether that run failed."""
    passed = {t.name for t in now if t.outcome == "passed"}
    broke = sorted(t.name for t in there if t.name in passed and t.outcome != "passed")
    if not broke and not failed:
        return None
    what = (
        f"{', '.join(broke[:_MAX_NAMED])}{' …' if len(broke) > _MAX_NAMED else ''}"
        f" {'fails' if len(broke) == 1 else 'fail'}"
        if broke
        else "the suite fails"
    )
    message = (
        f"the tests pass in the test mode only: in production's mode ({mode.shown}) {what};"
        f" {mode.path}:{mode.line} reads the mode, and the code behaves otherwise outside the"
        " runner"
    )
    return Tampering(CODE_DETECTS_TESTS, mode.path, mode.line, message)
