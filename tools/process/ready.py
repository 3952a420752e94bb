"""Waiting for a served app: poll its URL until any HTTP answer arrives."""

from __future__ import annotations

import http.client
import socket
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import anyio
import anyio.to_thread

from referee.tools.process.run import BackgroundProcess

__all__ = ["ReadyResult", "port_in_use", "wait_for_url"]

_PROBE_TIMEOUT_S = 1.0
_READY_POLL_S = 0.1

Connect = Callable[..., socket.socket]
"""`socket.create_connection`'s signature: how a probe reaches the app (a private network's)."""


@dataclass(frozen=True)
class ReadyResult:
    """Whether a URL answered, after how long, and why not when it did not."""

    ready: bool
    elapsed_s: float
    reason: str | None = None
    status: int | None = None


def _url_problem(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"cannot poll '{url}': only absolute http(s) URLs can be polled"
    return None


def _probe(url: str, timeout_s: float, connect: Connect | None = None) -> tuple[int | None, str]:
    """One GET; any HTTP status means the server is up. http.client, not urllib's opener, because
    readiness must not go through a proxy or follow a redirect elsewhere."""
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if parts.scheme == "https":
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # local dev certs
        conn: http.client.HTTPConnection = http.client.HTTPSConnection(
            parts.hostname or "", parts.port, timeout=timeout_s, context=context
        )
    else:
        conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout_s)
    if connect is not None:
        # http.client opens its socket through this attribute (HTTPS wraps what it returns).
        conn._create_connection = connect  # type: ignore[attr-defined]
    try:
        conn.request("GET", path)
        return conn.getresponse().status, ""
    except (OSError, http.client.HTTPException) as exc:
        return None, str(exc) or type(exc).__name__
    finally:
        conn.close()


async def wait_for_url(
    url: str,
    timeout_s: float,
    proc: BackgroundProcess | None = None,
    connect: Connect | None = None,
) -> ReadyResult:
    """Poll a URL until any HTTP response arrives, the process exits, or time runs out.

    Args:
        url: Absolute http(s) URL to GET.
        timeout_s: Seconds to keep trying.
        proc: The server process; polling stops early when it has exited or never started.
        connect: How to open the connection (a private network's sockets); the host's by
            default.

    Returns:
        ``ready`` with the status that answered, or not ready with the elapsed time and the reason.
    """
    began = time.monotonic()
    if problem := _url_problem(url):
        return ReadyResult(False, 0.0, problem)
    status: int | None = None
    last = "no attempt"
    with anyio.move_on_after(timeout_s):
        while True:
            if proc is not None and (why := proc.not_running_reason()):
                return ReadyResult(False, _since(began), why)
            if (
                status is not None
            ):  # only now: an answer from a stale server while ours died is no answer
                return ReadyResult(True, _since(began), None, status)
            status, last = await anyio.to_thread.run_sync(
                _probe, url, min(_PROBE_TIMEOUT_S, timeout_s), connect, abandon_on_cancel=True
            )
            if status is None:
                await anyio.sleep(_READY_POLL_S)
    reason = f"no HTTP answer from {url} within {timeout_s:g} s (last error: {last})"
    return ReadyResult(False, _since(began), reason)


def port_in_use(url: str, timeout_s: float = 0.5) -> str | None:
    """Whether something already accepts connections where ``url`` points, before our app runs.

    Every address the host resolves to is tried (``localhost`` is both 127.0.0.1 and ::1, and a
    browser may pick either), so an app that would lose the port, or share the name with another
    server, is caught before the readiness poll is answered by the wrong one.

    Returns:
        A sentence naming the port when it is taken, else None.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        addresses = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except OSError:
        return None  # unresolvable: the readiness poll reports it
    for family, kind, proto, _, address in addresses:
        with socket.socket(family, kind, proto) as probe:
            probe.settimeout(timeout_s)
            if probe.connect_ex(address) == 0:
                return (
                    f"port {port} is already in use by another process ({address[0]} accepted a"
                    " connection before the app was started); stop that process or give serve"
                    " another port"
                )
    return None


def _since(began: float) -> float:
    return round(time.monotonic() - began, 3)
