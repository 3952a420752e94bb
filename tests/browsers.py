"""Whether Chromium is here, for the browser tests' skip markers."""

from __future__ import annotations

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
