"""A FIFO's writer for tests: whoever opens a FIFO for reading waits until a writer comes, so a
test plays the writer whenever a reader is there, and counts the readers that came."""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path


class Writer:
    """Writes `data` to each reader of the FIFO while running, and counts them."""

    def __init__(self, fifo: Path, data: bytes = b"") -> None:
        self.fifo, self.data, self.readers = fifo, data, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self._stop.wait(0.01):
            try:
                fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                assert exc.errno in (errno.ENXIO, errno.ENOENT), exc
                continue
            self.readers += 1
            with suppress(OSError):
                os.write(fd, self.data)
            os.close(fd)

    @contextmanager
    def running(self) -> Iterator[Writer]:
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join()


@contextmanager
def served(path: Path) -> Iterator[Writer | None]:
    """A running writer when `path` is a FIFO; None for any other entry (only a FIFO makes its
    reader wait)."""
    if not stat.S_ISFIFO(path.lstat().st_mode):
        yield None
        return
    with Writer(path).running() as writer:
        yield writer
