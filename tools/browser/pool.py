"""One Chromium per server process, launched on first use and shared by every browser check.

Each check gets a fresh ``BrowserContext`` (its own cookies, storage and routes) that is closed
afterwards. At most ``max_pages`` contexts are open at once: on 2 cores, more pages in parallel
gained nothing. A browser that crashed or was closed underneath
the pool is relaunched once, transparently, when the next context is asked for.

An evaluation whose app is served in a private network (sandbox/network.py) gets a pool of its
own, ``joined(network)``: its Chromium is launched inside that network (through a wrapper
executable) and closed with the evaluation, while Playwright's driver stays shared.

The page sees a user's browser, not an automaton: a served app could otherwise behave correctly
only when it is being checked. Chromium is launched without the `AutomationControlled` Blink
feature (``navigator.webdriver`` is false, as in a user's Chromium), with scrollbars, and every
context gets the browser's own user agent without "HeadlessChrome" (in scripts, workers and
request headers).
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import uuid
from collections.abc import AsyncIterator, Collection, Mapping
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import anyio
from playwright.async_api import Browser, BrowserContext, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from referee.tools.browser.chromium import ChromiumInfo, find_chromium
from referee.tools.errors import RefereeError
from referee.tools.models.checks import Viewport
from referee.tools.process import Network

NO_DNS = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"
NOT_AUTOMATED = "--disable-blink-features=AutomationControlled"
# Playwright hides scrollbars in headless mode; a desktop Chromium on Linux shows 15 px ones, and
# a page could tell the two apart by `innerWidth - clientWidth`.
SCROLLBARS_HIDDEN = "--hide-scrollbars"
# In the private network the network-quality estimator never gets a sample and reports a round
# trip of 0 ms, which no user's connection shows: it is told to report a common connection's.
USERS_CONNECTION = "--force-effective-connection-type=4G"
# A user's screen is larger than the page: Playwright's emulation otherwise makes it the
# viewport's size exactly.
_SCREEN = (1920, 1080)
_BROWSER_FRAME = 120  # px of toolbars and tabs above a desktop browser's page
DEFAULT_MAX_PAGES = 2
_COOKIE = "REFEREE_BROWSER_ID"
_CLOSE_TIMEOUT_S = 10.0
_DISCONNECT_GRACE_S = 2.0


class BrowserUnavailable(RefereeError):
    """Chromium could not be launched (missing, broken, or the driver failed)."""


def resolver_rules(allow_hosts: Collection[str] = ()) -> str:
    """The ``--host-resolver-rules`` flag: resolve nothing but loopback and the allowed hosts.

    This backs up the per-context route guard, which does not see redirects: a redirect to
    any other host, IP literals included, fails with ``net::ERR_NAME_NOT_RESOLVED``.
    """
    # ::1 is added to the guide's flag so that http://[::1]/ works; a `127.*` pattern would also
    # exempt names such as 127.example.com, so other 127/8 addresses need --allow-host.
    extra = ["::1", *sorted({h.lower() for h in allow_hosts})]
    return NO_DNS + "".join(f", EXCLUDE {host}" for host in extra)


@dataclass
class _Launched:
    browser: Browser
    user_agent: str | None = None
    gone: anyio.Event = field(default_factory=anyio.Event)


class BrowserPool:
    """A lazily launched, shared Chromium; use as ``async with BrowserPool() as pool:``."""

    def __init__(
        self,
        chromium: ChromiumInfo | None = None,
        *,
        env: Mapping[str, str] = os.environ,
        allow_hosts: Collection[str] = (),
        max_pages: int = DEFAULT_MAX_PAGES,
        launch_timeout_s: float = 30.0,
        network: Network | None = None,
    ) -> None:
        """Configure the pool; nothing is started until the first context is asked for.

        Args:
            chromium: The browser to launch; found with ``find_chromium(env)`` when omitted.
            env: Environment for the lookup and for the browser process.
            allow_hosts: Non-loopback hosts the browser may resolve (the server's ``--allow-host``).
            max_pages: Contexts open at the same time; further callers wait for a slot.
            launch_timeout_s: Bound on starting the driver and launching Chromium.
            network: The private network to launch Chromium in; the host's when omitted.
        """
        self._chromium = chromium
        self._env = dict(env)
        self._allow_hosts = tuple(allow_hosts)
        self._launch_timeout_s = launch_timeout_s
        self._limiter = anyio.CapacityLimiter(max_pages)
        self._lock = anyio.Lock()
        self._id = uuid.uuid4().hex
        self._playwright: Playwright | None = None
        self._current: _Launched | None = None
        self._network = network
        self._parent: BrowserPool | None = None
        self._folder: Path | None = None
        self.launches = 0

    def joined(self, network: Network) -> BrowserPool:
        """A pool whose Chromium runs in `network`, sharing this pool's Playwright driver.

        Closing it closes its own browser only.
        """
        pool = BrowserPool(
            self._chromium,
            env=self._env,
            allow_hosts=self._allow_hosts,
            max_pages=self.max_pages,
            launch_timeout_s=self._launch_timeout_s,
            network=network,
        )
        pool._parent = self
        return pool

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    @property
    def max_pages(self) -> int:
        """How many contexts may be open at once."""
        return int(self._limiter.total_tokens)

    async def browser(self) -> Browser:
        """The running browser, launched (or relaunched after a crash) when needed.

        Raises:
            ChromiumNotFound: no Chromium to launch.
            BrowserUnavailable: it failed to start.
        """
        async with self._lock:
            if self._current is None or self._current.gone.is_set():
                await self._replace(self._current)
            assert self._current is not None
            return self._current.browser

    @asynccontextmanager
    async def context(
        self, viewport: Viewport | None = None, **options: Any
    ) -> AsyncIterator[BrowserContext]:
        """A fresh browser context for one check, closed on exit.

        Args:
            viewport: Page size; 1280 by 800 when omitted.
            **options: Further ``Browser.new_context`` options.

        Raises:
            ChromiumNotFound: no Chromium to launch.
            BrowserUnavailable: it failed to (re)start.
        """
        size = viewport or Viewport()
        screen = {
            "width": max(_SCREEN[0], size.width),
            "height": max(_SCREEN[1], size.height + _BROWSER_FRAME),
        }
        options = {
            "viewport": {"width": size.width, "height": size.height},
            "screen": screen,
            **options,
        }
        async with self._limiter:
            ctx = await self._new_context(options)
            try:
                yield ctx
            finally:
                await _close_quietly(ctx)

    async def aclose(self) -> None:
        """Close the browser and the driver; kill any browser process left behind."""
        with anyio.CancelScope(shield=True):
            async with self._lock:
                current, self._current = self._current, None
                if current is not None:
                    await _close_quietly(current.browser)
                if self._playwright is not None and self._parent is None:
                    with anyio.move_on_after(_CLOSE_TIMEOUT_S), suppress(PlaywrightError):
                        await self._playwright.stop()
                self._playwright = None
                _kill(self.pids())
                if self._folder is not None:
                    shutil.rmtree(self._folder, ignore_errors=True)

    def pids(self) -> list[int]:
        """PIDs of this pool's browser processes (the browser, zygotes, renderers, GPU…).

        The browser carries an environment cookie; its children rewrite their environ block for
        their process titles, so they are found as its descendants. Used for memory figures and
        to make sure nothing is left running after ``aclose``.
        """
        needle = f"{_COOKIE}={self._id}".encode()
        parents = _parent_map()
        found = {pid for pid in parents if _has_cookie(pid, needle)}
        frontier = set(found)
        while frontier:
            frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - found
            found |= frontier
        return sorted(found)

    async def _new_context(self, options: dict[str, Any]) -> BrowserContext:
        browser = await self.browser()
        try:
            return await browser.new_context(**self._as_a_user(options))
        except PlaywrightError:
            if not await self._lost(browser):
                raise
        browser = await self._relaunch_if_current(browser)
        try:
            return await browser.new_context(**self._as_a_user(options))
        except PlaywrightError as exc:
            raise BrowserUnavailable(
                f"Chromium failed again after a relaunch: {_first_line(exc)}"
            ) from exc

    def _as_a_user(self, options: dict[str, Any]) -> dict[str, Any]:
        current = self._current
        if current is None or current.user_agent is None or "user_agent" in options:
            return options
        return {**options, "user_agent": current.user_agent}

    async def _lost(self, browser: Browser) -> bool:
        """Whether ``browser`` disconnected; the event can trail the failed call by a moment."""
        current = self._current
        if current is None or current.browser is not browser:
            return True
        with anyio.move_on_after(_DISCONNECT_GRACE_S):
            await current.gone.wait()
        return current.gone.is_set() or not browser.is_connected()

    async def _relaunch_if_current(self, browser: Browser) -> Browser:
        async with self._lock:
            # Another check may have relaunched already; never close a browser someone else uses.
            if self._current is None or self._current.browser is browser:
                await self._replace(self._current)
            assert self._current is not None
            return self._current.browser

    async def _replace(self, old: _Launched | None) -> None:
        """Launch a new browser in place of ``old`` (closing it); call with the lock held."""
        if old is not None:
            self._current = None
            await _close_quietly(old.browser)
        try:
            with anyio.fail_after(self._launch_timeout_s):
                self._current = await self._launch()
        except TimeoutError as exc:
            raise BrowserUnavailable(
                f"Chromium did not start within {self._launch_timeout_s:g} s"
            ) from exc
        self.launches += 1

    async def _driver(self) -> Playwright:
        """Playwright's driver: this pool's own, or (a joined pool) its parent's."""
        if self._parent is not None:
            async with self._parent._lock:
                return await self._parent._driver()
        if self._playwright is None:
            try:
                self._playwright = await async_playwright().start()
            except (PlaywrightError, OSError) as exc:
                raise BrowserUnavailable(
                    f"Playwright's driver failed to start: {_first_line(exc)}"
                ) from exc
        return self._playwright

    async def _launch(self) -> _Launched:
        if self._chromium is None:
            self._chromium = await anyio.to_thread.run_sync(find_chromium, self._env)
        info = self._chromium
        self._playwright = await self._driver()
        try:
            browser = await self._playwright.chromium.launch(
                executable_path=self._executable(info),
                args=[resolver_rules(self._allow_hosts), NOT_AUTOMATED, USERS_CONNECTION],
                ignore_default_args=[SCROLLBARS_HIDDEN],
                env={**self._env, _COOKIE: self._id},
            )
        except PlaywrightError as exc:
            raise BrowserUnavailable(
                f"Chromium {info.executable} failed to launch: {_first_line(exc)}"
            ) from exc
        launched = _Launched(browser, await _user_agent(browser))
        browser.on("disconnected", lambda _: launched.gone.set())
        return launched

    def _executable(self, info: ChromiumInfo) -> str | None:
        if self._network is None:
            return None if info.source == "playwright" else info.executable
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="referee-browser-"))
        return str(self._network.wrapper(info.executable, self._folder))


async def _close_quietly(target: Browser | BrowserContext) -> None:
    # Runs during cancellation too (a check that timed out): shield it, but bound it.
    with (
        anyio.CancelScope(shield=True),
        anyio.move_on_after(_CLOSE_TIMEOUT_S),
        suppress(PlaywrightError),
    ):
        await target.close()


async def _user_agent(browser: Browser) -> str | None:
    """The browser's user agent as a user's Chromium of the same version sends it."""
    try:
        session = await browser.new_browser_cdp_session()
        version = await session.send("Browser.getVersion")
        await session.detach()
    except PlaywrightError:
        return None  # the page then sees Chromium's own; nothing else depends on it
    agent = str(version.get("userAgent") or "")
    return agent.replace("HeadlessChrome/", "Chrome/") or None


def _parent_map() -> dict[int, int]:
    """pid -> parent pid, for every process visible in /proc."""
    parents = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as f:
                # The command name may contain spaces and
                # parentheses; fields resume after the last ')'.
                parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return parents


def _has_cookie(pid: int, needle: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return needle in f.read().split(b"\0")
    except OSError:
        return False


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
