"""What of referee's own work is running, so that no command of the generator's runs beside it.

The generator's commands run one at a time (evaluate/run.py), and none of them beside referee's
own work either (the static pipeline, the tamper and claims readers, the recording of a run): a
test can sense a busy machine (`/proc/stat`, `/proc/pressure`, its own speed) and pass only
beside that work, which runs beside the first command and never beside the base run after it.
A test written for an idle machine (a time budget, a race it usually wins) would fail there for
no fault of the change, too. So every command waits until the evaluation is quiet.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import anyio

__all__ = ["Occupancy"]

_POLL_S = 0.05


@dataclass(eq=False)
class Occupancy:
    """How much of referee's own work of one evaluation is running now."""

    _running: int = 0

    @contextmanager
    def joined(self) -> Iterator[None]:
        """Count the block as referee's work running."""
        self._running += 1
        try:
            yield
        finally:
            self._running -= 1

    async def quiet(self) -> None:
        """Wait until none of referee's own work runs (it is not bounded by the limiter)."""
        while self._running:
            await anyio.sleep(_POLL_S)
