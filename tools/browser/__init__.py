"""Browser checks: a shared Chromium (``BrowserPool``), one check (``run_browser_check``), its
result.

Exports load lazily: ``referee doctor`` and the CLI's non-browser commands should not pay for
importing Playwright.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.tools.browser.baselines import Baseline
    from referee.tools.browser.check import run_browser_check
    from referee.tools.browser.chromium import (
        ChromiumInfo,
        ChromiumNotFound,
        find_chromium,
        playwright_version,
    )
    from referee.tools.browser.outcome import BrowserOutcome
    from referee.tools.browser.policy import UrlPolicy, UrlRefused, is_loopback_host
    from referee.tools.browser.pool import NO_DNS, BrowserPool, BrowserUnavailable

_EXPORTS = {
    "Baseline": ".baselines",
    "run_browser_check": ".check",
    "ChromiumInfo": ".chromium",
    "ChromiumNotFound": ".chromium",
    "find_chromium": ".chromium",
    "playwright_version": ".chromium",
    "BrowserOutcome": ".outcome",
    "UrlPolicy": ".policy",
    "UrlRefused": ".policy",
    "is_loopback_host": ".policy",
    "NO_DNS": ".pool",
    "BrowserPool": ".pool",
    "BrowserUnavailable": ".pool",
}
__all__ = [
    "NO_DNS",
    "Baseline",
    "BrowserOutcome",
    "BrowserPool",
    "BrowserUnavailable",
    "ChromiumInfo",
    "ChromiumNotFound",
    "UrlPolicy",
    "UrlRefused",
    "find_chromium",
    "is_loopback_host",
    "playwright_version",
    "run_browser_check",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name], __name__), name)
