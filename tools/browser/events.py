"""What a page says while a check drives it: console, uncaught errors, network, blocked requests.

Counting rules (what ``no_console_errors`` and ``no_failed_requests`` judge):

* ``console_errors`` are console messages of type ``error`` or ``assert``, except Chromium's own
  ``Failed to load resource: …`` lines. Those describe network failures, which are judged by
  ``no_failed_requests`` (or listed as blocked); counting them again would also fail every page
  without a favicon, whose 404 Chromium logs while no ``response`` event reports it.
* ``failed_requests`` are ``requestfailed`` events and responses with status >= 400, except
  requests the URL policy blocked (listed in ``blocked_requests``, which are referee's doing, not
  the page's) and ``net::ERR_ABORTED`` (the browser cancelled the request itself, e.g. when the
  page navigated away while it was in flight).
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit

import anyio
from playwright.async_api import (
    BrowserContext,
    ConsoleMessage,
    Frame,
    Page,
    Request,
    Response,
    Route,
    WebError,
)
from playwright.async_api import Error as PlaywrightError

from referee.tools.browser.outcome import BlockedRequest, FailedRequest, PageError
from referee.tools.browser.policy import UrlPolicy

T = TypeVar("T")
MAX_EVENTS = 200
MAX_TEXT = 500
MAX_PENDING = 5
_ERROR_TYPES = frozenset({"error", "assert"})
_NETWORK_LINE = "Failed to load resource"
_ABORTED = "net::ERR_ABORTED"
_BLOCKED_BY_US = "ERR_BLOCKED_BY_CLIENT"
_ERROR_PAGE = "chrome-error://"
_ON_ERROR_PAGE = "the navigation ended on Chromium's error page"
_MAX_STACK = 2000
# The first frame of a V8 stack that names a script: "at f (http://host/src/a.js?t=1:12:5)".
_FRAME = re.compile(r"(?:https?|file)://[^\s()]+?:\d+:\d+")
# Everything but plain loopback http(s) goes to the Python guard; loopback traffic, the bulk of
# a check, is continued by the driver without a round trip. The guard re-checks the full policy,
# so this pattern only has to be conservative, never exact.
_NOT_PLAIN_LOOPBACK = re.compile(
    r"^(?!https?://(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?(?:[/?#]|$))"
)


def trim(text: str, limit: int = MAX_TEXT) -> str:
    """Collapse whitespace and cut ``text`` to ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class PageEvents:
    """Collects a context's events and guards its requests with the URL policy."""

    policy: UrlPolicy
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[PageError] = field(default_factory=list)
    failed_requests: list[FailedRequest] = field(default_factory=list)
    blocked_requests: list[BlockedRequest] = field(default_factory=list)
    dropped: int = 0
    track_inflight: bool = False
    # Each request in flight, with when it was sent: what a page that never loads is waiting for.
    _inflight: dict[Request, float] = field(default_factory=dict)
    _navigation: str = ""

    async def attach(self, ctx: BrowserContext) -> None:
        """Install the route guard and the event listeners on ``ctx`` (before any page opens)."""
        await ctx.route(_NOT_PLAIN_LOOPBACK, self._guard)
        ctx.on("console", self._on_console)
        ctx.on("weberror", self._on_web_error)
        ctx.on("requestfailed", self._on_request_failed)
        ctx.on("response", self._on_response)
        if self.track_inflight:
            # Two more events per request cross to Python; only settle() needs them.
            ctx.on("request", self._on_request)
            ctx.on("requestfinished", self._on_request_finished)

    async def settle(self, page: Page, timeout_s: float) -> None:
        """Wait (at most ``timeout_s``) until no request is in flight, so late failures are seen.

        Needs ``track_inflight``; without it only the round trip below happens.

        A fetch started before ``load`` can be reported after it: a round trip through the page
        first makes sure the driver has passed on every request the page had started by then.
        """
        with anyio.move_on_after(timeout_s):
            await _round_trip(page)
            while self._inflight:
                await anyio.sleep(0.02)
            await _round_trip(page)

    def _keep(self, bucket: list[T], item: T) -> None:
        if len(bucket) < MAX_EVENTS:
            bucket.append(item)
        else:
            self.dropped += 1

    async def _guard(self, route: Route) -> None:
        request = route.request
        why = self.policy.refusal(request.url)
        try:
            if why is None:
                await route.continue_()
                return
            self._keep(self.blocked_requests, _blocked(request, why))
            await route.abort("blockedbyclient")
        except PlaywrightError:
            pass  # the page or context went away meanwhile; nothing left to guard

    def pending(self, most: int = MAX_PENDING) -> list[str]:
        """The requests still in flight, oldest first (needs ``track_inflight``): ``GET url
        (stylesheet, sent 3.0 s ago)``."""
        now = time.monotonic()
        oldest = sorted(self._inflight.items(), key=lambda item: item[1])[:most]
        return [
            f"{r.method} {trim(r.url)} ({r.resource_type}, sent {now - sent:.1f} s ago)"
            for r, sent in oldest
        ]

    def _on_request(self, request: Request) -> None:
        self._inflight[request] = time.monotonic()
        if request.is_navigation_request():
            self._navigation = request.url

    def watch_page(self, page: Page) -> None:
        """Watch where ``page``'s frames navigate (an error page is a failed request)."""
        page.on("framenavigated", self._on_navigated)

    def _on_navigated(self, frame: Frame) -> None:
        if not frame.url.startswith(_ERROR_PAGE):
            return
        # The error page replaced what the browser tried to open; name that URL when known.
        url = self._navigation or frame.url
        if any(f.url == trim(url) and f.resource_type == "document" for f in self.failed_requests):
            return
        # Untracked, the URL is unknown: a document's failure just before is the one that led
        # here, already named.
        last = self.failed_requests[-1:]
        if not self._navigation and last and last[0].resource_type == "document":
            return
        failure = f"{_ON_ERROR_PAGE} ({frame.url})"
        self._keep(
            self.failed_requests,
            FailedRequest(url=trim(url), resource_type="document", failure=failure),
        )

    def _on_request_finished(self, request: Request) -> None:
        self._inflight.pop(request, None)

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type in _ERROR_TYPES and not message.text.startswith(_NETWORK_LINE):
            where = _place(message.location)
            text = f"{message.text} (at {where})" if where else message.text
            self._keep(self.console_errors, trim(text))

    def _on_web_error(self, web_error: WebError) -> None:
        error = web_error.error
        stack = error.stack or ""
        frame = _FRAME.search(stack)
        self._keep(
            self.page_errors,
            PageError(
                name=error.name or "",
                message=trim(error.message),
                stack=stack[:_MAX_STACK],
                location=_short(frame.group(0)) if frame else "",
            ),
        )

    def _on_request_failed(self, request: Request) -> None:
        self._inflight.pop(request, None)
        failure = request.failure or "failed"
        if _BLOCKED_BY_US in failure or _ABORTED in failure:
            return
        if (why := self.policy.refusal(request.url)) is not None:
            # A redirect off loopback: routes do not see it; the browser's resolver rules stop it.
            self._keep(self.blocked_requests, _blocked(request, f"{why}; {failure}"))
            return
        failed = _failed(request, failure=failure)
        # The error page may be seen before the request's own failure (a busy machine orders the
        # two either way): the failure, which says why, takes the error page's place.
        self.failed_requests[:] = [f for f in self.failed_requests if not _stands_for(f, failed)]
        self._keep(self.failed_requests, failed)

    def _on_response(self, response: Response) -> None:
        if response.status >= 400:
            self._keep(self.failed_requests, _failed(response.request, status=response.status))


def _stands_for(entry: FailedRequest, failed: FailedRequest) -> bool:
    """Whether ``entry`` is the error page's stand-in for the request ``failed``."""
    # Unnamed (no navigation was tracked), the stand-in carries the error page's own URL.
    return (
        (entry.url == failed.url or entry.url.startswith(_ERROR_PAGE))
        and entry.resource_type == failed.resource_type == "document"
        and (entry.failure or "").startswith(_ON_ERROR_PAGE)
    )


def _place(location: Mapping[str, Any]) -> str:
    url, line, column = (location.get(k) for k in ("url", "lineNumber", "columnNumber"))
    if not url:
        return ""
    return _short(f"{url}:{line}:{column}" if line else str(url))


def _short(where: str) -> str:
    """A script location without scheme, host and cache-busting query: ``/src/App.vue:12:5``."""
    parts = urlsplit(where)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return where
    path, _, rest = (parts.path + ("?" + parts.query if parts.query else "")).partition("?")
    position = re.search(r":\d+(?::\d+)?$", rest)
    return path + (position.group(0) if position else "")


async def _round_trip(page: Page) -> None:
    with suppress(PlaywrightError):
        await page.evaluate("0")


def _blocked(request: Request, reason: str) -> BlockedRequest:
    return BlockedRequest(
        url=trim(request.url), resource_type=request.resource_type, reason=trim(reason)
    )


def _failed(
    request: Request, *, status: int | None = None, failure: str | None = None
) -> FailedRequest:
    return FailedRequest(
        url=trim(request.url),
        method=request.method,
        resource_type=request.resource_type,
        status=status,
        failure=failure,
    )
