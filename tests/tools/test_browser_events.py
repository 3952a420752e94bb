"""PageEvents on their own: what a busy machine's event order must not change."""

from __future__ import annotations

from dataclasses import dataclass

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


def _refused(*, tracked: bool, failure_first: bool) -> PageEvents:
    """A navigation to a closed port: its failure and the error page, in the order given."""
    events = PageEvents(UrlPolicy(), track_inflight=tracked)
    request, frame = _Request(), _Frame()
    if tracked:
        events._on_request(request)  # type: ignore[arg-type]
    steps = [
        lambda: events._on_request_failed(request),  # type: ignore[arg-type]
        lambda: events._on_navigated(frame),  # type: ignore[arg-type]
    ]
    for step in steps if failure_first else steps[::-1]:
        step()
    return events


@pytest.mark.parametrize("failure_first", [True, False])
def test_a_refused_navigation_is_one_failed_request_whichever_event_comes_first(
    failure_first: bool,
) -> None:
    events = _refused(tracked=True, failure_first=failure_first)
    assert [(f.url, f.failure) for f in events.failed_requests] == [
        (URL, "net::ERR_CONNECTION_REFUSED")
    ]


@pytest.mark.parametrize("failure_first", [True, False])
def test_untracked_a_refused_navigation_is_still_one_failed_request(failure_first: bool) -> None:
    """Requests not followed (no settling wait, no trace): the error page's URL is all it knows."""
    events = _refused(tracked=False, failure_first=failure_first)
    assert [f.url for f in events.failed_requests] == [URL]


def test_an_error_page_with_no_failed_request_is_still_a_failed_request() -> None:
    events = PageEvents(UrlPolicy(), track_inflight=True)
    events._on_request(_Request())  # type: ignore[arg-type]
    events._on_navigated(_Frame())  # type: ignore[arg-type]
    [entry] = events.failed_requests
    assert entry.url == URL
    assert (entry.failure or "").startswith("the navigation ended on Chromium's error page")
