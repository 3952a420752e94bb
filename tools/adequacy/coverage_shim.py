"""Run a Python test command under coverage.py, writing the data where referee reads it.

Usage: python SCRIPT RCFILE FALLBACK -m MODULE ARGS… | python SCRIPT RCFILE FALLBACK PATH ARGS…

referee copies this file into the check's report folder and the project's own interpreter runs it
in the criterion's own run. The project's coverage.py is used when it has one; otherwise FALLBACK,
a folder holding only referee's `coverage` package, is put at the end of sys.path just long enough
to import it, so no other package of referee's can change what the tests import.
"""

from __future__ import annotations

import os
import sys


def _import_coverage(fallback: str) -> None:
    try:
        import coverage
    except ImportError:
        sys.path.append(fallback)
        try:
            # Everything `coverage run` needs later, imported while the folder is on the path.
            import coverage.cmdline
            import coverage.control
            import coverage.sqldata  # noqa: F401
        finally:
            sys.path.remove(fallback)


def main() -> int | str | None:
    rcfile, fallback, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    if sys.version_info >= (3, 12):
        # sys.monitoring stops reporting a line once it has been seen: diff coverage only asks
        # whether each line ran, so this costs a fraction of line tracing.
        os.environ.setdefault("COVERAGE_CORE", "sysmon")
    try:
        _import_coverage(fallback)
    except Exception as exc:  # referee's coverage.py on an interpreter it does not support
        # The tests still run, as the check wrote them, and referee reads why nothing was measured:
        # an unmeasured run must not become a crashed one.
        _unavailable(rcfile, exc)
        os.execv(sys.executable, [sys.executable, *rest])
    from coverage.cmdline import main as coverage_main

    # coverage run sets sys.argv and sys.path[0] as `python -m MODULE` / `python PATH` would, and
    # returns the program's own exit status.
    status: int | str | None = coverage_main(["run", f"--rcfile={rcfile}", *rest])
    return status


def _unavailable(rcfile: str, exc: BaseException) -> None:
    version = ".".join(map(str, sys.version_info[:3]))
    reason = f"Python {version} cannot run coverage.py: {type(exc).__name__}: {exc}"
    with open(os.path.join(os.path.dirname(rcfile), UNAVAILABLE), "w", encoding="utf-8") as out:
        out.write(reason[:2000])


UNAVAILABLE = "coverage.unavailable"  # the file next to the rcfile saying why (read by referee)


if __name__ == "__main__":
    sys.exit(main())
