"""Did a test run stop at the build? The compiler rejected the code, so no test ran on it.

A mutant of a compiled language (Go, Rust, Java, Kotlin, or TypeScript behind `tsc`) can be
refused by the compiler: `total / 0` is a constant division by zero to go and rustc, a changed
`case` label a duplicate to javac. Such a run is neither a kill (no test noticed anything) nor a
survival. It is recognised by what each toolchain prints when its build fails, anchored where it
prints it (a test's own output cannot be confused with it: go's package line, cargo's `could not
compile`, Maven's and Gradle's build-failure banners, tsc's diagnostics), and by cargo's build
errors as the runner reads them (`rust_cargo.BUILD_ERROR`). The first compiler error is kept as the
reason, its paths relative to the tree.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.tools.evidence.recorder import read_log
from referee.tools.models.evidence import TestOutcome
from referee.tools.runners.rust_cargo import BUILD_ERROR

__all__ = ["build_failure", "got_to_tests"]

_READ = 1024 * 1024  # head and tail: a compiler's errors come first, the banners last


@dataclass(frozen=True)
class _Toolchain:
    failed: re.Pattern[str]
    first_error: re.Pattern[str]


_TOOLCHAINS = (
    _Toolchain(  # go test: `FAIL <pkg> [build failed]` (inside a JSON event from go 1.24 on);
        # its errors have no column under -coverprofile (the cover tool rewrote the file)
        re.compile(r"^(?:\{.*)?FAIL(?:\t|\\t)\S+ \[(?:build|setup) failed\]", re.M),
        re.compile(r"^(\S+\.go:\d+(?::\d+)?: .+)$", re.M),
    ),
    _Toolchain(
        re.compile(r"^error: could not compile `", re.M),
        re.compile(r"^(error(?:\[E\d+\])?: .+)\n\s*--> (\S+)$", re.M),
    ),
    _Toolchain(  # Maven's compiler plugin
        re.compile(r"^\[ERROR\] COMPILATION ERROR", re.M),
        re.compile(r"^\[ERROR\] (\S+\.(?:java|kt|scala):\[\d+,\d+\] .+)$", re.M),
    ),
    _Toolchain(  # Gradle's compile tasks
        re.compile(r"^Execution failed for task '[^']*:compile\w*'\.$", re.M),
        re.compile(r"^(\S+\.(?:java|kt):\d+: error: .+|e: .+)$", re.M),
    ),
    _Toolchain(  # tsc before the tests (`tsc && vitest`), plain or pretty
        re.compile(r"^\S+\.[cm]?tsx?(?:\(\d+,\d+\)|:\d+:\d+) ?[:-] ?error TS\d+:", re.M),
        re.compile(r"^(\S+\.[cm]?tsx?(?:\(\d+,\d+\)|:\d+:\d+) ?[:-] ?error TS\d+: .+)$", re.M),
    ),
)


def build_failure(outcomes: Sequence[TestOutcome], logs: Sequence[Path], tree: Path) -> str | None:
    """`did not compile: src/lib.rs:8:24 …` when the run stopped at the build, else None.

    Args:
        outcomes: The runner's outcomes of the run (cargo's build errors are among them).
        logs: The run's raw stdout and stderr.
        tree: The evaluated tree's root, cut from the paths the compiler prints.
    """
    built = [o for o in outcomes if o.outcome == "error" and o.message.startswith(BUILD_ERROR)]
    if built:
        return _said(built[0].message.removeprefix(BUILD_ERROR), tree)
    text = "\n".join(read_log(path, _READ)[0] for path in logs)
    for toolchain in _TOOLCHAINS:
        if toolchain.failed.search(text):
            first = toolchain.first_error.search(text)
            return _said(" at ".join(g for g in first.groups() if g) if first else "", tree)
    return None


def _said(error: str, tree: Path) -> str:
    error = error.replace(f"{tree.as_posix().rstrip('/')}/", "").strip()
    return f"did not compile: {error[:300]}" if error else "did not compile"


# What each compiling runner prints once its tests start, after the build.
_STARTED = {
    "go test": re.compile(r'"Action":"(?:start|run)"|^=== RUN', re.M),
    "cargo test": re.compile(r"^\s+Running ", re.M),
    "cargo nextest": re.compile(r"^\s+Starting \d+ tests?", re.M),
    "maven": re.compile(r"T E S T S|^\[INFO\] Running ", re.M),
}


def got_to_tests(runner: str, logs: Sequence[Path]) -> bool | None:
    """Whether a compiling runner's run got past its build to its tests (None: the runner
    compiles nothing, or says nothing referee reads about it). A mutant run stopped by its
    timeout before that was slowed by the rebuild, not by anything its tests did."""
    started = _STARTED.get(runner)
    if started is None:
        return None
    return any(started.search(read_log(path, _READ)[0]) for path in logs)
