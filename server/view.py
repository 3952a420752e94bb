"""`referee view`'s HTTP adapter: the viewer's pages over stdlib `http.server`, nothing else.

Security decisions, each against a named attack:
- Loopback by default; any other bind needs a token, exactly as `serve --http` (server/http.py):
  the store holds hold-out criteria, evidence and judges' notes.
- The token is accepted as a bearer header, or once as `?token=` which becomes an HttpOnly,
  SameSite=Strict cookie (a browser cannot send a header from a link) and is dropped from the
  address at once, so it stays out of history and Referer.
- Without a token, the Host header must name this server (DNS rebinding: a page elsewhere
  resolving its own name to 127.0.0.1 would otherwise read the store through the user's browser);
  with one, the token is what admits a request, whatever name reached the machine.
- A POST needs the form's per-process secret and, when the browser sends one, an Origin equal to
  the Host it asked (cross-site request forgery: any page may post a form to 127.0.0.1).
- The only redirect (dropping `?token=` from the address) goes to a page of this server, never to
  a path the request names (`//elsewhere.example` would leave the site).
- Every page is sent with a Content-Security-Policy that allows no script at all: the pages need
  none, so text from the store that escaped escaping still could not run.
"""

from __future__ import annotations

import hmac
import logging
import re
import secrets
import shutil
import sys
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from http import HTTPStatus
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from referee.tools.errors import InvalidInput, NotFound
from referee.tools.store import Store
from referee.tools.view import (
    TRACE_PREFIX,
    Audience,
    Context,
    RowCache,
    VerdictForm,
    page_for,
    record_verdict,
    trace_file,
)

from .http import TokenRequired, is_loopback

logger = logging.getLogger("referee.view")
COOKIE = "referee_view"
MAX_FORM = 16 * 1024
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self';"
    " frame-ancestors 'none'; base-uri 'none'"
)
# Playwright's trace viewer is a script application (a page and a service worker, from the
# `playwright` package's own files), so its files get a policy of their own: scripts, workers and
# fetches from this server only, nothing from elsewhere. The trace it reads was recorded without
# DOM snapshots, so no page of the app under test is ever rendered on this origin.
TRACE_CSP = (
    "default-src 'self'; script-src 'self'; worker-src 'self'; connect-src 'self';"
    " style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:;"
    " frame-src 'self'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'"
)
_SCORECARD_PAGE = "scorecard-"
SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\.html$")


class ViewServer(ThreadingHTTPServer):
    """One viewer: a store, an audience, the token (if any) and the form secret."""

    daemon_threads = True

    def __init__(
        self,
        store: Store,
        host: str,
        port: int,
        *,
        audience: Audience = "evaluator",
        token: str | None = None,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        if not is_loopback(host) and not token:
            raise TokenRequired(
                f"binding {host} exposes referee's store beyond this machine: give --token (or"
                " REFEREE_TOKEN)"
            )
        self.store, self.audience, self.token, self.now = store, audience, token, now
        self.csrf = secrets.token_urlsafe(24)
        self.rows = RowCache(store)
        self.bound_host = host
        super().__init__((host, port), _Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else str(host)
        name = f"[{host}]" if ":" in host else host
        return f"http://{name}:{port}/"

    def allowed_host(self, header: str) -> bool:
        """Whether a Host (or Origin's host) names this server: loopback names or the bound
        host."""
        name = header.rsplit(":", 1)[0] if header.count(":") == 1 else header
        name = name.split("]")[0].lstrip("[") if name.startswith("[") else name
        return is_loopback(name) or name == self.bound_host

    def warm(self) -> None:
        """Gather the contracts list in the background, before the first browser asks for it."""
        threading.Thread(
            target=self.rows.rows, args=(self.audience,), name="referee-view-warm", daemon=True
        ).start()

    def close(self) -> None:
        """Stop serving (when started with `start`) and wait for any gathering of the list, so
        the store can be closed after."""
        self.shutdown()
        self.rows.wait()
        self.server_close()

    def start(self) -> threading.Thread:
        """Serve in a background thread (tests; the CLI serves in its own)."""
        thread = threading.Thread(target=self.serve_forever, name="referee-view", daemon=True)
        thread.start()
        return thread


class _Handler(BaseHTTPRequestHandler):
    server: ViewServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # stdout is not ours to write
        sys.stderr.write("referee view: " + (format % args) + "\n")

    def do_GET(self) -> None:
        if not self._admitted():
            return
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if "token" in query:  # the cookie now carries it; keep it out of the address bar
            name = _name(url.path)
            self._redirect("/" + name if SAFE_NAME.match(name) else "/", cookie=True)
            return
        name = _name(url.path)
        if name.startswith(TRACE_PREFIX):
            self._trace(name)
            return
        self._page(name, query)

    def _trace(self, name: str) -> None:
        try:
            found = trace_file(self.server.store, name, self.server.audience)
        except NotFound as exc:
            self._send(HTTPStatus.NOT_FOUND, str(exc))
            return
        except Exception:  # the adapter's boundary, as for a page
            logger.exception("referee view: %s", name)
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, "internal error: see the viewer's log")
            return
        with found.path.open("rb") as source:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", found.content_type)
            self.send_header("Content-Length", str(found.path.stat().st_size))
            self.send_header("Content-Security-Policy", TRACE_CSP)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            shutil.copyfileobj(source, self.wfile)

    def do_POST(self) -> None:
        if not self._admitted():
            return
        name = _name(urlsplit(self.path).path)
        form = self._form()
        if form is None or not self._same_site(form):
            self._send(HTTPStatus.FORBIDDEN, "refused: this form did not come from this viewer")
            return
        ident = name.removeprefix(_SCORECARD_PAGE).removesuffix(".html")
        if self.server.audience != "evaluator" or not name.startswith(_SCORECARD_PAGE):
            self._send(HTTPStatus.NOT_FOUND, "nothing to post here")
            return
        verdict = VerdictForm(form.get("choice", ""), form.get("verdict", ""), form.get("note", ""))
        try:
            said = record_verdict(self.server.store, int(ident), verdict, self.server.now)
        except (InvalidInput, NotFound, ValueError) as exc:
            self._page(name, {}, message=f"Not recorded: {exc}", status=HTTPStatus.BAD_REQUEST)
            return
        self._page(name, {}, message=said)

    def _admitted(self) -> bool:
        if self.server.token is not None:
            if self._has_token():
                return True
            self._send(HTTPStatus.UNAUTHORIZED, "open the address with ?token=TOKEN once")
            return False
        if not self.server.allowed_host(self.headers.get("Host", "")):
            self._send(HTTPStatus.MISDIRECTED_REQUEST, "refused: unknown Host")
            return False
        return True

    def _has_token(self) -> bool:
        expected = self.server.token or ""
        given = [self.headers.get("Authorization", "").removeprefix("Bearer ")]
        cookie = SimpleCookie(self.headers.get("Cookie", ""))
        given += [cookie[COOKIE].value] if COOKIE in cookie else []
        given += parse_qs(urlsplit(self.path).query).get("token", [])[:1]
        return any(hmac.compare_digest(g.encode(), expected.encode()) for g in given)

    def _same_site(self, form: dict[str, str]) -> bool:
        origin = self.headers.get("Origin")
        if origin and origin != "null" and urlsplit(origin).netloc != self.headers.get("Host"):
            return False
        return hmac.compare_digest(form.get("csrf", "").encode(), self.server.csrf.encode())

    def _form(self) -> dict[str, str] | None:
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            return None
        if not 0 < length <= MAX_FORM:
            return None
        raw = self.rfile.read(length).decode("utf-8", "replace")
        return {k: v[0] for k, v in parse_qs(raw, keep_blank_values=True).items()}

    def _page(
        self,
        name: str,
        query: dict[str, str],
        message: str = "",
        status: HTTPStatus = HTTPStatus.OK,
    ) -> None:
        ctx = Context(live=True, csrf=self.server.csrf, message=message)
        try:
            found = page_for(
                self.server.store, name, self.server.audience, ctx, query, self.server.rows
            )
        except Exception:  # the adapter's boundary: no request brings the viewer down
            logger.exception("referee view: %s", name)
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, "internal error: see the viewer's log")
            return
        self._send(HTTPStatus(found.status) if found.status != 200 else status, found.body)

    def _redirect(self, location: str, *, cookie: bool) -> None:
        self.send_response(HTTPStatus.SEE_OTHER)
        self.send_header("Location", location)
        if cookie and self.server.token:
            self.send_header(
                "Set-Cookie", f"{COOKIE}={self.server.token}; HttpOnly; SameSite=Strict; Path=/"
            )
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _send(self, status: HTTPStatus, body: str) -> None:
        payload = body.encode("utf-8")
        self.send_response(status)
        kind = "text/html" if body.startswith("<!DOCTYPE") else "text/plain"
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(payload)


def _name(path: str) -> str:
    name = path.lstrip("/")
    return name or "index.html"
