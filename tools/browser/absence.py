"""Why a locator found nothing: an element that came late, or one that never came.

A step or `visible` expectation that timed out on a locator matching no element reads, bare, as
a wrong selector; but a page that renders after a slow fetch shows the element a moment later
(in the check's own screenshot). So the locator is watched a little longer (never past the
check's end): one that matches then was late, and the reason says by how much and which wait to
raise; one that still matches nothing is named with what the page showed instead.
"""

from __future__ import annotations

import time

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

from referee.tools.browser.messages import clip

LATE_S = 2.0
_SHOWN_LINES = 6
_CAPTURE_MS = 1000


async def absence(page: Page, locator: Locator, target: str, waited_s: float, left_s: float) -> str:
    """A sentence on a locator that matched nothing for ``waited_s``; "" when it matches now
    (then Playwright's own message says why it was not usable: hidden, disabled, covered).

    Args:
        page: The page the locator is on.
        locator: What the step or expectation waited for.
        target: How the reason names it.
        waited_s: How long it was waited for.
        left_s: What is left of the check's budget: the longest extra wait.
    """
    try:
        if await locator.count():
            return ""
        began = time.monotonic()
        extra_s = max(0.0, min(LATE_S, left_s))
        if extra_s > 0:
            try:
                await locator.first.wait_for(state="attached", timeout=extra_s * 1000)
            except PlaywrightError:
                pass
            else:
                late = time.monotonic() - began
                return (
                    f"no element matched {target} in the {waited_s:g} s waited; one appeared"
                    f" {late:.1f} s later: the page is slower than this wait (raise its"
                    " timeout_s), the selector is right"
                )
        return (
            f"no element matched {target} in the {waited_s:g} s waited"
            + (f", nor {extra_s:g} s later" if extra_s > 0 else "")
            + f"; {await _shown(page)}"
        )
    except PlaywrightError:
        return ""  # the page went away: Playwright's own message stands alone


async def _shown(page: Page) -> str:
    title = await page.title()
    aria = await page.locator("body").aria_snapshot(timeout=_CAPTURE_MS)
    lines = [line.strip() for line in aria.splitlines() if line.strip()]
    more = f" … ({len(lines) - _SHOWN_LINES} more lines)" if len(lines) > _SHOWN_LINES else ""
    shown = " | ".join(lines[:_SHOWN_LINES]) + more
    return clip(f"the page ({title!r} at {page.url}) showed: {shown or 'nothing'}", 600)
