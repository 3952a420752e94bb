"""Streamable HTTP transport: loopback by default; any other bind needs a bearer token."""

from __future__ import annotations

import hmac
import ipaddress
import json
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings

_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1"}


class TokenRequired(ValueError):
    """Binding a non-loopback address without a token."""


def is_loopback(host: str) -> bool:
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def security_for(host: str) -> TransportSecuritySettings:
    """Host and Origin checks (DNS-rebinding protection): loopback names plus the bound host."""
    names = {"127.0.0.1", "localhost", "[::1]"}
    if not is_loopback(host):
        names.add(f"[{host}]" if ":" in host else host)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{n}:*" for n in sorted(names)] + sorted(names),
        allowed_origins=[f"http://{n}:*" for n in sorted(names)]
        + [f"https://{n}:*" for n in sorted(names)],
    )


class BearerToken:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>`."""

    def __init__(self, app: Any, token: str) -> None:
        self.app, self._expected = app, f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self._authorised(scope):
            await _reply(
                send,
                401,
                {"error": "unauthorized", "message": "send Authorization: Bearer <token>"},
            )
            return
        await self.app(scope, receive, send)

    def _authorised(self, scope: dict[str, Any]) -> bool:
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        return hmac.compare_digest(given, self._expected)


async def _reply(send: Any, status: int, body: dict[str, str]) -> None:
    payload = json.dumps(body).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


def http_app(server: Any, host: str, token: str | None) -> Any:
    """The ASGI app serving `/mcp`; refuses a non-loopback host without a token.

    Raises:
        TokenRequired: host is not loopback and no token was given.
    """
    if not is_loopback(host) and not token:
        raise TokenRequired(
            f"binding {host} exposes referee beyond this machine: give --token (or REFEREE_TOKEN)"
        )
    app = server.streamable_http_app(transport_security=security_for(host), host=host)
    return BearerToken(app, token) if token else app


def serve_app(app: Any, host: str, port: int) -> None:
    import uvicorn

    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()
