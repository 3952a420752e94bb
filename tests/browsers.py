"""Whether Chromium is here, for the browser tests' skip markers."""

from __future__ import annotations

import socket

import pytest

from referee.tools.browser.chromium import ChromiumNotFound, find_chromium


def _missing() -> str | None:
    try:
        find_chromium()
    except ChromiumNotFound as exc:
        return str(exc)
    return None


NO_BROWSER = _missing()
needs_browser = [
    pytest.mark.browser,
    pytest.mark.skipif(NO_BROWSER is not None, reason=f"no Chromium: {NO_BROWSER}"),
]


def free_port() -> int:
    """A loopback port free at this moment, for a served page under test."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
