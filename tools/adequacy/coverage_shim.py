"""Run a Python test command measuring its changed lines, writing the data where referee reads it.

Usage: python SCRIPT RCFILE FALLBACK -m MODULE ARGS… | python SCRIPT RCFILE FALLBACK PATH ARGS…

referee copies this file into the check's report folder and the project's own interpreter runs it
in the criterion's own run. From Python 3.12 the run goes under coverage.py on `sys.monitoring`:
the project's coverage.py when it has one; otherwise FALLBACK, a folder holding only referee's
`coverage` package, is put at the end of sys.path just long enough to import it, so no other
package of referee's can change what the tests import. Before 3.12 coverage.py could only trace
every line, so referee's line probes (`referee_probes.py`, next to this file) record the changed
statements alone.

Python 3.6 syntax: on an interpreter the probes or coverage.py cannot run on, this script still
runs the tests and says why nothing was measured.
"""

import os
import sys
from typing import Any, NoReturn

PROBES = "referee_probes.py"  # coverage_probes.py, copied next to this file
CONFIG = "probes.json"  # what the probes watch, next to the rcfile (written by referee)
UNAVAILABLE = "coverage.unavailable"  # the file next to the rcfile saying why (read by referee)


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


def _load_probes() -> Any:
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), PROBES)
    spec = importlib.util.spec_from_file_location("referee_probes", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> "int | str | None":
    rcfile, fallback, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    if sys.version_info < (3, 12):
        try:
            probes = _load_probes()
            probes.install(os.path.join(os.path.dirname(rcfile), CONFIG))
        except Exception as exc:  # an interpreter the probes cannot run on
            _run_unmeasured(rcfile, "referee's line probes", exc, rest)
        probes.run(rest)
        return None
    # sys.monitoring stops reporting a line once it has been seen: diff coverage only asks
    # whether each line ran, so this costs a fraction of line tracing.
    os.environ.setdefault("COVERAGE_CORE", "sysmon")
    try:
        _import_coverage(fallback)
    except Exception as exc:  # referee's coverage.py on an interpreter it does not support
        _run_unmeasured(rcfile, "coverage.py", exc, rest)
    from coverage.cmdline import main as coverage_main

    # coverage run sets sys.argv and sys.path[0] as `python -m MODULE` / `python PATH` would, and
    # returns the program's own exit status.
    return coverage_main(["run", f"--rcfile={rcfile}", *rest])


def _run_unmeasured(rcfile: str, tool: str, exc: BaseException, rest: "list[str]") -> NoReturn:
    """The tests still run, as the check wrote them, and referee reads why nothing was measured:
    an unmeasured run must not become a crashed one."""
    version = ".".join(map(str, sys.version_info[:3]))
    reason = f"Python {version} cannot run {tool}: {type(exc).__name__}: {exc}"
    with open(os.path.join(os.path.dirname(rcfile), UNAVAILABLE), "w", encoding="utf-8") as out:
        out.write(reason[:2000])
    os.execv(sys.executable, [sys.executable, *rest])


if __name__ == "__main__":
    sys.exit(main())
