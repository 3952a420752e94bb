"""The first process inside a sandbox: runs the command, then reports how it ended.

It runs with referee's own interpreter (`python -I -S`, standard library only) as PID 2 of the
sandbox's PID namespace, so it can tell what the host cannot see through bubblewrap: a program
that does not exist (rather than the shell's 127), the signal that killed the command (rather than
128+N), and how many processes the command left running (all of them die with the namespace
right after). The report goes to a file only referee reads back.

While the command runs it also says, ten times a second, what the sandbox's IPC namespace holds
(SysV shared memory segments, resident or swapped, and message queues' bytes): those live in the
namespace, not in any process, and only a process inside it can read them (/proc/sysvipc reads
the reader's namespace). The figure goes down a pipe whose other end only referee's watchdog
holds; the command never gets the descriptor (closed on exec), and this process is not dumpable,
so its descriptors cannot be opened through /proc.

The command runs as the same user and could attach a tracer to this process (and rewrite what it
reports) or stop it (and hold the check until its timeout). It is made non-dumpable, which
refuses a tracer without CAP_SYS_PTRACE; a stop cannot be refused from here, so referee's
watchdog on the host kills a sandbox whose first processes are stopped or traced.
"""

import contextlib
import ctypes
import json
import os
import subprocess
import sys

_PR_SET_DUMPABLE = 4
_INTERVAL_S = 0.1
# The columns of /proc/sysvipc/* that hold memory, in bytes (a kernel before 4.x has no rss and
# swap columns: then a segment's size stands for it).
_HELD = {"shm": (("rss", "swap"), ("size",)), "msg": (("cbytes",),)}


def _refuse_tracers() -> None:
    # Reset by execve, so the command's own processes stay dumpable (core files, debuggers).
    # Without a libc to load, the watchdog still sees a tracer.
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


def ipc_kib() -> int:
    """What the SysV segments and message queues of this IPC namespace hold, in KiB."""
    total = 0
    for name, choices in _HELD.items():
        try:
            with open(f"/proc/sysvipc/{name}", encoding="ascii", errors="replace") as handle:
                header, *rows = handle.read().splitlines()
        except (OSError, ValueError):
            continue
        keys = header.split()
        columns = next((c for c in choices if all(k in keys for k in c)), ())
        for row in rows:
            values = row.split()
            with contextlib.suppress(ValueError, IndexError):
                total += sum(int(values[keys.index(k)]) for k in columns)
    return total // 1024


def _run(argv: list[str], gauge: int | None) -> int:
    """Run the command; while it runs, write what the IPC namespace holds to `gauge`."""
    child = subprocess.Popen(argv)
    while True:
        try:
            return child.wait(timeout=_INTERVAL_S if gauge is not None else None)
        except subprocess.TimeoutExpired:
            assert gauge is not None
            # A full pipe (the watchdog is not reading) drops the figure: the next one follows.
            with contextlib.suppress(OSError):
                os.write(gauge, f"{ipc_kib()}\n".encode("ascii"))


def main() -> int:
    report, gauge, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
    _refuse_tracers()
    code, error = None, None
    try:
        code = _run(argv, int(gauge) if gauge.isdigit() else None)
    except FileNotFoundError:
        error = "not_found"
    except PermissionError:
        error = "permission"
    except OSError as exc:
        error = exc.strerror or str(exc)
    # PID 1 is bubblewrap's init, PID 2 is this process: everything else was left running.
    strays = sum(1 for entry in os.scandir("/proc") if entry.name.isdigit()) - 2
    _write(report, {"exit_code": code, "error": error, "strays": max(0, strays)})
    if code is None:
        return 127
    return code if code >= 0 else 128 - code


def _write(report: str, data: dict[str, object]) -> None:
    """Write the report whatever the command did to the folder: the command runs as the same
    user and may have planted a report of its own, made it read-only or locked the folder, so
    the folder is reopened for writing and a fresh file replaces whatever is there."""
    folder = os.path.dirname(report)
    os.chmod(folder, 0o700)
    fresh = os.path.join(folder, f".report-{os.getpid()}.tmp")
    with open(fresh, "x", encoding="utf-8") as handle:
        json.dump(data, handle)
    os.replace(fresh, report)


if __name__ == "__main__":
    sys.exit(main())
