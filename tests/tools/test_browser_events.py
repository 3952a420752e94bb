"""PageEvents on their own: what a busy machine's event order must not change."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from referee.tools.browser.events import PageEvents
from referee.tools.browser.policy import UrlPolicy

URL = "http://127.0.0.1:9/"


@dataclass(frozen=True)
class _Request:
    url: str = URL
    method: str = "GET"
    resource_type: str = "document"
    failure: str = "net::ERR_CONNECTION_REFUSED"

    def is_navigation_request(self) -> bool:
        return True


@dataclass(frozen=True)
class _Frame:
    url: str = "chrome-error://chromewebdata/"


def _events() -> tuple[PageEvents, Any, Any, Any]:
    events = PageEvents(UrlPolicy(), track_inflight=True)
    return events, _Request(), _Frame(), events._on_request_failed


@pytest.mark.parametrize("failure_first", [True, False])
def test_a_refused_navigation_is_one_failed_request_whichever_event_comes_first(
    failure_first: bool,
) -> None:
    events, request, frame, failed = _events()
    events._on_request(request)  # type: ignore[arg-type]
    if failure_first:
        failed(request)
        events._on_navigated(frame)  # type: ignore[arg-type]
    else:
        events._on_navigated(frame)  # type: ignore[arg-type]
        failed(request)
    assert [(f.url, f.failure) for f in events.failed_requests] == [
        (URL, "net::ERR_CONNECTION_REFUSED")
    ]


def test_an_error_page_with_no_failed_request_is_still_a_failed_request() -> None:
    events, request, frame, _ = _events()
    events._on_request(request)  # type: ignore[arg-type]
    events._on_navigated(frame)  # type: ignore[arg-type]
    [entry] = events.failed_requests
    assert entry.url == URL
    assert (entry.failure or "").startswith("the navigation ended on Chromium's error page")


def test_an_unnamed_error_page_gives_way_to_the_failure_that_names_the_url() -> None:
    events, request, frame, failed = _events()
    events._on_navigated(frame)  # type: ignore[arg-type]
    failed(request)
    assert [f.url for f in events.failed_requests] == [URL]
