"""What the browser tests of this folder share: the fixture pages served by a thread, and one
Chromium per module (a module using them sets a module-scoped `anyio_backend`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING

import pytest
from browser_pages import served_fixtures

if TYPE_CHECKING:
    from referee.tools.browser.pool import BrowserPool


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with served_fixtures() as url:
        yield url


@pytest.fixture(scope="module")
async def pool(anyio_backend: str) -> AsyncIterator[BrowserPool]:
    # Imported here: the other tests of this folder need no Playwright.
    from referee.tools.browser.chromium import find_chromium
    from referee.tools.browser.pool import BrowserPool

    async with BrowserPool(find_chromium()) as shared:
        yield shared
