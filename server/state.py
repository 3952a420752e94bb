"""Long-lived objects of one server process (the MCP lifespan context)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from referee.tools.rubrics import RubricSet, load_rubrics
from referee.tools.settings import Settings
from referee.tools.store import Store


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class State:
    settings: Settings
    store: Store
    now: Callable[[], datetime] = utc_now
    extras: dict[str, Any] = field(default_factory=dict)
    exit_stack: AsyncExitStack = field(default_factory=AsyncExitStack)

    def rubrics(self, repo: Path | None = None) -> RubricSet:
        return load_rubrics(repo or self.settings.repo)

    async def browser_pool(self) -> Any:
        """One Chromium per server process: the pool is created on first use and closed with the server."""
        if "browser_pool" not in self.extras:
            from referee.tools.browser import BrowserPool

            pool = BrowserPool(env=self.settings.env, allow_hosts=self.settings.allow_hosts)
            self.extras["browser_pool"] = await self.exit_stack.enter_async_context(pool)
        return self.extras["browser_pool"]


@asynccontextmanager
async def open_state(settings: Settings) -> AsyncIterator[State]:
    """Open the store (and, lazily, the browser) for the server's lifetime; close them after."""
    store = Store(settings.home)
    state = State(settings=settings, store=store)
    try:
        async with state.exit_stack:
            yield state
    finally:
        store.close()
