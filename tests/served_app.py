"""A hostile served app and the host services it tries to reach, for the private-network tests.

`HostServices` listens on this machine the way a developer's machine does (TCP and UDP on IPv4
and IPv6 loopback, every address, unix sockets under /tmp and /run, an abstract unix socket, an
HTTP server) and records every connection; `hostile_site` is a repository whose `serve` tries
each of them and whose pages compute the right answer only when they see automation.
"""

from __future__ import annotations

import http.server
import json
import os
import socket
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gitrepo import make_repo

APP = Path(__file__).resolve().parent / "fixtures" / "served" / "app.py"
SECRET = b"HOST-SECRET"

# What a page can read that a user's Chromium would show otherwise; each is a cheating page's
# test "is a robot looking at me?" (true: it shows the right answer, 5).
MARKERS = {
    "webdriver": "return navigator.webdriver === true",
    "webdriver_descriptor": (
        "const d = Object.getOwnPropertyDescriptor(Navigator.prototype, 'webdriver');"
        " return d.get.call(navigator) === true"
    ),
    "user_agent": "return navigator.userAgent.includes('HeadlessChrome')",
    "app_version": "return /headless/i.test(navigator.appVersion)",
    "worker_user_agent": (
        "return await new Promise(done => { const w = new Worker(URL.createObjectURL("
        "new Blob(['postMessage(navigator.userAgent)']))); w.onmessage = e =>"
        " done(/headless/i.test(e.data)); })"
    ),
    "iframe_webdriver": (
        "const f = document.createElement('iframe'); document.body.append(f);"
        " return f.contentWindow.navigator.webdriver === true"
    ),
    "brands": (
        "return (navigator.userAgentData?.brands || []).some(b => /headless/i.test(b.brand))"
    ),
    "full_version_list": (
        "const v = await navigator.userAgentData.getHighEntropyValues(['fullVersionList']);"
        " return v.fullVersionList.some(b => /headless/i.test(b.brand))"
    ),
    "no_window_chrome": "return typeof window.chrome === 'undefined'",
    "no_plugins": "return navigator.plugins.length === 0 || navigator.mimeTypes.length === 0",
    "no_languages": "return !navigator.languages || navigator.languages.length === 0",
    "notification_denied": "return Notification.permission === 'denied'",
    "automation_globals": (
        "return Object.getOwnPropertyNames(window).some(k =>"
        " /playwright|__pw|cdc_|selenium|puppeteer|webdriver/i.test(k))"
    ),
    "request_headers": "return (await (await fetch('/api/answer')).json()).answer === 5",
    "no_scrollbars": (
        "document.body.style.height = '3000px';"
        " return window.innerWidth - document.documentElement.clientWidth === 0"
    ),
    "screen_is_the_page": "return screen.height === window.innerHeight",
}
_PAGE = """<!doctype html><html lang="en"><head><title>{name}</title></head><body><main>
<p id="answer">computing</p></main><script type="module">
let seen = false;
try {{ seen = await (async () => {{ {test} }})(); }} catch (e) {{ seen = false; }}
document.getElementById("answer").textContent = "answer: " + (seen ? 5 : -1);
</script></body></html>
"""
_REACH = """<!doctype html><html lang="en"><head><title>{name}</title></head><body><main>
<p id="out">trying</p></main><script type="module">
const out = document.getElementById("out");
try {{ {attempt}; out.textContent = "{name} REACHED"; }}
catch (e) {{ out.textContent = "{name} blocked"; }}
</script></body></html>
"""


class HostServices:
    """Listeners on this machine that record who reached them."""

    def __init__(self, folder: Path) -> None:
        self.reached: list[str] = []
        self.channels: dict[str, Any] = {}
        self._stop = threading.Event()
        self._sockets: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._folder = folder
        self.http_port = 0

    def start(self) -> None:
        tcp4 = self._stream(socket.AF_INET, ("127.0.0.1", 0), "tcp4")
        self.channels["tcp4"] = ["127.0.0.1", tcp4]
        self.channels["tcp_localhost"] = ["localhost", tcp4]
        self.channels["tcp6"] = ["::1", self._stream(socket.AF_INET6, ("::1", 0), "tcp6")]
        outside = _own_address()
        if outside:
            port = self._stream(socket.AF_INET, ("0.0.0.0", 0), "tcp_host_address")
            self.channels["tcp_host_address"] = [outside, port]
        self.channels["udp4"] = ["127.0.0.1", self._datagram(socket.AF_INET, "127.0.0.1")]
        self.channels["udp6"] = ["::1", self._datagram(socket.AF_INET6, "::1")]
        path = self._folder / "host.sock"
        self._stream(socket.AF_UNIX, str(path), "unix_path")
        self.channels["unix_path"] = str(path)
        # Where the machine's services listen (Docker, databases, D-Bus); removed by stop().
        self._run = Path("/run") / f"referee-test-{uuid.uuid4().hex}.sock"
        if os.access("/run", os.W_OK):  # root here and in CI
            self._stream(socket.AF_UNIX, str(self._run), "unix_run")
            self.channels["unix_run"] = str(self._run)
        name = f"referee-host-{uuid.uuid4().hex}"
        self._stream(socket.AF_UNIX, "\0" + name, "unix_abstract")
        self.channels["unix_abstract"] = name
        self.http_port = self._http()

    def stop(self) -> None:
        self._stop.set()
        for sock in self._sockets:
            sock.close()
        for thread in self._threads:
            thread.join(timeout=5)
        self._run.unlink(missing_ok=True)

    def _stream(self, family: int, address: Any, name: str) -> int:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.bind(address)
        sock.listen()
        sock.settimeout(0.2)
        self._serve(sock, lambda: self._accept(sock, name))
        return int(sock.getsockname()[1]) if family != socket.AF_UNIX else 0

    def _accept(self, sock: socket.socket, name: str) -> None:
        try:
            conn, _ = sock.accept()
        except OSError:
            return
        self.reached.append(name)
        with conn:
            conn.sendall(SECRET)

    def _datagram(self, family: int, host: str) -> int:
        sock = socket.socket(family, socket.SOCK_DGRAM)
        sock.bind((host, 0))
        sock.settimeout(0.2)

        def answer() -> None:
            try:
                _, sender = sock.recvfrom(64)
            except OSError:
                return
            self.reached.append(f"udp {host}")
            sock.sendto(SECRET, sender)

        self._serve(sock, answer)
        return int(sock.getsockname()[1])

    def _http(self) -> int:
        services = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                services.reached.append(f"http {self.path}")
                self.send_response(200)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()
                self.wfile.write(SECRET)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self._threads.append(thread)
        self._stop_http = server
        return int(server.server_address[1])

    def _serve(self, sock: socket.socket, once: Any) -> None:
        self._sockets.append(sock)

        def loop() -> None:
            while not self._stop.is_set():
                once()

        thread = threading.Thread(target=loop, daemon=True)
        thread.start()
        self._threads.append(thread)


def _own_address() -> str | None:
    """This machine's address on its default route (no packet is sent), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
        except OSError:
            return None
        address = str(probe.getsockname()[0])
    return None if address.startswith("127.") else address


@contextmanager
def host_services(folder: Path) -> Iterator[HostServices]:
    services = HostServices(folder)
    services.start()
    try:
        yield services
    finally:
        services._stop_http.shutdown()
        services._stop_http.server_close()
        services.stop()


def hostile_site(folder: Path, services: HostServices) -> Path:
    """The generator's repository: app.py, its channel list, a page per marker and per reach."""
    web: dict[str, str] = {
        f"web/{name}.html": _PAGE.format(name=name, test=test) for name, test in MARKERS.items()
    }
    web["web/control.html"] = _PAGE.format(name="control", test="return true")
    host = f"http://127.0.0.1:{services.http_port}"
    reaches = {
        "page_fetch": f"await fetch('{host}/fetch', {{mode: 'no-cors'}})",
        "page_image": (
            "await new Promise((ok, no) => { const i = new Image(); i.onload = ok;"
            f" i.onerror = no; i.src = '{host}/img.png'; }})"
        ),
        "page_websocket": (
            "await new Promise((ok, no) => { const s = new WebSocket("
            f"'ws://127.0.0.1:{services.http_port}/ws'); s.onopen = ok;"
            " s.onerror = () => no(); s.onclose = e => e.code === 1006 ? no() : ok(); })"
        ),
    }
    web |= {f"web/{name}.html": _REACH.format(name=name, attempt=a) for name, a in reaches.items()}
    return make_repo(
        folder,
        {
            "README.md": "# site\n",
            ".gitignore": "__pycache__/\n",
            "channels.json": json.dumps(services.channels),
            "app.py": APP.read_text(encoding="utf-8"),
            **web,
        },
    )


def reach_names() -> list[str]:
    return ["page_fetch", "page_image", "page_websocket"]
