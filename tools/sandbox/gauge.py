"""The pipe on which a sandbox's first process says what its IPC namespace holds (inner.py).

SysV segments and message queues belong to the sandbox's IPC namespace, and /proc/sysvipc shows
the reader's namespace: the host cannot read them, the first process inside can. It writes one
figure a line (KiB); the watchdog reads the last whole line at each sample.
"""

from __future__ import annotations

import fcntl
import os
from types import TracebackType
from typing import Self

__all__ = ["Gauge"]


class Gauge:
    """A pipe whose write end goes into the sandbox (`fd`); `kib()` is the latest figure."""

    def __init__(self) -> None:
        self._read, self.fd = os.pipe()
        for end in (self._read, self.fd):
            # Neither end may block: a watchdog that stops reading must never hold the sandbox,
            # and an empty pipe must never hold the watchdog.
            fcntl.fcntl(end, fcntl.F_SETFL, fcntl.fcntl(end, fcntl.F_GETFL) | os.O_NONBLOCK)
        self._pending, self._last = b"", 0

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        # Both ends are close-on-exec: only the sandbox it is passed to (pass_fds) gets a copy.
        for end in (self.fd, self._read):
            if end >= 0:
                os.close(end)
        self.fd = self._read = -1

    def kib(self) -> int:
        """The last figure the sandbox wrote (0 before the first)."""
        while self._read >= 0:
            try:
                chunk = os.read(self._read, 65536)
            except BlockingIOError:
                break
            except OSError:
                return self._last
            if not chunk:
                break
            self._pending += chunk
        *lines, self._pending = self._pending.split(b"\n")
        for line in reversed(lines):
            if line.isdigit():
                self._last = int(line)
                break
        return self._last
