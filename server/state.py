"""Long-lived objects of one server process (the MCP lifespan context)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from referee.tools.create_contract import contract_rubrics
from referee.tools.evaluate import PhaseGate
from referee.tools.models import Contract
from referee.tools.rubrics import RubricSet, load_rubrics
from referee.tools.settings import Settings
from referee.tools.store import Store

if TYPE_CHECKING:
    from referee.tools.browser import BrowserPool


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class State:
    """The settings, the store, (once a browser check needs it) the shared Chromium, and the gate
    that runs each evaluation's hold-out phase alone among the server's evaluations."""

    settings: Settings
    store: Store
    now: Callable[[], datetime] = utc_now
    exit_stack: AsyncExitStack = field(default_factory=AsyncExitStack)
    phases: PhaseGate = field(default_factory=PhaseGate)
    _browser: BrowserPool | None = None

    def rubrics(self, repo: Path | None = None) -> RubricSet:
        """The rubrics of a repository now: only for writing a contract (the orchestrator's
        moment), never for judging one."""
        return load_rubrics(repo or self.settings.repo)

    def rubrics_for(self, contract: Contract) -> RubricSet:
        """The rubrics a contract is judged with (stored with it at creation)."""
        return contract_rubrics(self.store, contract)

    async def browser_pool(self) -> BrowserPool:
        """One Chromium per server process: created on first use, closed with the server."""
        if self._browser is None:
            from referee.tools.browser import BrowserPool  # Playwright only once it is needed

            pool = BrowserPool(env=self.settings.env, allow_hosts=self.settings.allow_hosts)
            self._browser = await self.exit_stack.enter_async_context(pool)
        return self._browser


@asynccontextmanager
async def open_state(settings: Settings) -> AsyncIterator[State]:
    """Open the store (and, lazily, the browser) for the server's lifetime; close them after."""
    store = Store(
        settings.home,
        key=settings.key_source.load(),
        vault=settings.vault_root,
        url=settings.store_url,
    )
    state = State(settings=settings, store=store)
    try:
        async with state.exit_stack:
            yield state
    finally:
        store.close()
