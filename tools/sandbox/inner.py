"""The first process inside a sandbox: runs the command, then reports how it ended.

It runs with referee's own interpreter (`python -I -S`, standard library only) as PID 2 of the
sandbox's PID namespace, so it can tell what the host cannot see through bubblewrap: a program
that does not exist (rather than the shell's 127), the signal that killed the command (rather than
128+N), and how many processes the command left running (all of them die with the namespace
right after). The report goes to a file only referee reads back.
"""

import json
import os
import subprocess
import sys


def main() -> int:
    report, argv = sys.argv[1], sys.argv[2:]
    code, error = None, None
    try:
        code = subprocess.call(argv)
    except FileNotFoundError:
        error = "not_found"
    except PermissionError:
        error = "permission"
    except OSError as exc:
        error = exc.strerror or str(exc)
    # PID 1 is bubblewrap's init, PID 2 is this process: everything else was left running.
    strays = sum(1 for entry in os.scandir("/proc") if entry.name.isdigit()) - 2
    with open(report, "w", encoding="utf-8") as handle:
        json.dump({"exit_code": code, "error": error, "strays": max(0, strays)}, handle)
    if code is None:
        return 127
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
