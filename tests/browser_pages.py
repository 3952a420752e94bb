"""The static pages of tests/fixtures/browser served by a thread, and a browser check built from
plain dicts as a contract spells it: what the browser tests share."""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from referee.tools.browser.check import run_browser_check
from referee.tools.browser.outcome import BrowserOutcome
from referee.tools.browser.pool import BrowserPool
from referee.tools.models.checks import BrowserCheck

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "browser"


class _FixtureHandler(http.server.SimpleHTTPRequestHandler):
    # /flaky?key=K: broken the first time K is asked for, right every time after (state an app
    # keeps on its server, which a second run of a check meets changed).
    flaky_seen: ClassVar[set[str]] = set()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _html(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path.startswith("/flaky?key="):
            first = self.path not in self.flaky_seen
            self.flaky_seen.add(self.path)
            self._html(b"<title>Flaky</title><p>" + (b"broken" if first else b"ready") + b"</p>")
            return
        if self.path.startswith("/late?ms="):
            # A page that answers late, as a dev server compiling its first request does.
            time.sleep(int(self.path.split("=", 1)[1].split("&")[0]) / 1000)
            self._html(b"<title>Late</title><p>arrived</p><button>go</button>")
            return
        if self.path.startswith("/stall/"):
            # A resource that answers only after ms (longer than any check waits): what holds
            # a page's load event up.
            time.sleep(int(self.path.split("ms=", 1)[1]) / 1000)
            with contextlib.suppress(OSError):  # the browser has long gone
                self.send_response(200)
                self.send_header("Content-Type", "text/css")
                self.send_header("Content-Length", "0")
                self.end_headers()
            return
        if self.path == "/redirect-out":
            self.send_response(302)
            self.send_header("Location", "http://203.0.113.9/pixel.gif")
            self.end_headers()
            return
        super().do_GET()


@contextmanager
def served_fixtures() -> Iterator[str]:
    """The fixture pages at a loopback URL (ending in /) until the block ends."""
    handler = functools.partial(_FixtureHandler, directory=str(FIXTURES))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def browser_check(
    url: str,
    steps: list[dict[str, Any]] | None = None,
    expect: list[dict[str, Any]] | None = None,
    timeout_s: float = 20,
) -> BrowserCheck:
    return BrowserCheck.model_validate(
        {
            "kind": "browser",
            "url": url,
            "steps": steps or [],
            "expect": expect or [],
            "timeout_s": timeout_s,
        }
    )


async def run(
    pool: BrowserPool, check: BrowserCheck, out: Path, base: str | None, **kw: Any
) -> BrowserOutcome:
    return await run_browser_check(
        pool, check, base_url=base, artifacts_dir=out, name=kw.pop("name", "E1"), **kw
    )
