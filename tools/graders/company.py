"""Which runs of an evaluation shared the machine, and running one alone.

The generator's commands run one at a time (evaluate/run.py), but referee's own work (the static
pipeline, the tamper and claims readers) runs beside them. A test written for an idle machine (a
time budget, a race it usually wins) can fail there and pass alone; its failure says the machine
was busy, not that the change broke it. So a failing run that had company is run again alone
(graders/tests.py), and only what fails then counts.

A test may also sense the company on purpose (the machine's load) and pass only alone: so every
run a run decided alone is compared with (the base runs, the base's tests, repeats) is made alone
as well, and the comparison holds runs made under the same conditions.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field

import anyio

__all__ = ["Company", "Occupancy"]

_POLL_S = 0.05


@dataclass(eq=False)
class Company:
    """One run's mark: whether anything else of the evaluation ran at any moment beside it."""

    seen: bool = False


@dataclass(eq=False)
class Occupancy:
    """What of one evaluation is running now (commands, the static pipeline)."""

    _running: list[Company] = field(default_factory=list)
    _alone: anyio.Lock = field(default_factory=anyio.Lock)

    @contextmanager
    def joined(self, mark: Company) -> Iterator[None]:
        """Count `mark` as running for the block: it and everything running beside it have
        company."""
        for other in self._running:
            other.seen = mark.seen = True
        self._running.append(mark)
        try:
            yield
        finally:
            self._running.remove(mark)  # by identity (eq=False)

    async def quiet(self) -> None:
        """Wait until nothing else runs (the static pipeline is not bounded by the limiter)."""
        while self._running:
            await anyio.sleep(_POLL_S)

    @asynccontextmanager
    async def alone(self, limiter: anyio.CapacityLimiter) -> AsyncIterator[None]:
        """Hold every slot of `limiter` but one, for one run that takes the last: no other
        command of the evaluation starts until the block ends. One such block at a time, so two
        cannot each hold half of the slots."""
        async with self._alone:
            held: list[object] = []
            try:
                for _ in range(max(int(limiter.total_tokens) - 1, 0)):
                    borrower = object()
                    await limiter.acquire_on_behalf_of(borrower)
                    held.append(borrower)
                yield
            finally:
                for borrower in held:
                    limiter.release_on_behalf_of(borrower)
