"""Where a browser check may go: loopback, files inside the repository, and allowed hosts."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import SplitResult, unquote, urljoin, urlsplit

from referee.tools.errors import RefereeError

_NETWORK_SCHEMES = frozenset({"http", "https", "ws", "wss"})
# In-page resources that never reach the network (and that routes do not see anyway).
_LOCAL_SCHEMES = frozenset({"data", "blob", "about"})
_CHECK_SCHEMES = frozenset({"http", "https", "file"})


class UrlRefused(RefereeError):
    """A check URL that cannot be opened: relative without a base, or outside the policy."""

    def __init__(self, url: str, reason: str) -> None:
        self.url, self.reason = url, reason
        super().__init__(reason)


def is_loopback_host(host: str | None) -> bool:
    """``localhost``, 127.0.0.0/8 and ::1 (IPv4-mapped forms included)."""
    if not host:
        return False
    host = host.lower().rstrip(".")
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return bool(address.is_loopback or (mapped is not None and mapped.is_loopback))


@dataclass(frozen=True)
class UrlPolicy:
    """Decides which URLs a page may load.

    Attributes:
        repo_root: ``file://`` URLs are allowed only inside this directory; none when unset.
        allow_hosts: Extra host names (or ``host:port``) the server was started with.
    """

    repo_root: Path | None = None
    allow_hosts: frozenset[str] = frozenset()

    @classmethod
    def build(cls, repo_root: Path | None, allow_hosts: Collection[str]) -> UrlPolicy:
        """A policy with the root resolved (symlinks followed) and host names lower-cased."""
        root = Path(os.path.realpath(repo_root)) if repo_root is not None else None
        return cls(root, frozenset(h.strip().lower() for h in allow_hosts if h.strip()))

    def refusal(self, url: str) -> str | None:
        """Why ``url`` may not be loaded, or None when it may."""
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme in _LOCAL_SCHEMES:
            return None
        if scheme in _NETWORK_SCHEMES:
            return (
                None
                if self._host_allowed(parts)
                else f"host {parts.hostname!r} is not loopback or allowed"
            )
        if scheme == "file":
            return self._file_refusal(parts)
        return f"scheme {scheme!r} is not allowed"

    def _host_allowed(self, parts: SplitResult) -> bool:
        host = (parts.hostname or "").rstrip(".")
        if is_loopback_host(host):
            return True
        return host in self.allow_hosts or parts.netloc.lower() in self.allow_hosts

    def _file_refusal(self, parts: SplitResult) -> str | None:
        if self.repo_root is None:
            return "file:// URLs need the repository root"
        if parts.netloc not in ("", "localhost"):
            return f"file:// URL on host {parts.netloc!r}"
        path = Path(os.path.realpath(unquote(parts.path)))
        if not path.is_relative_to(self.repo_root):
            return f"file {str(path)!r} is outside the repository"
        return None


def resolve_url(url: str, base_url: str | None) -> str:
    """An absolute URL as is, or a relative one joined to ``base_url`` (standard URL joining).

    Raises:
        UrlRefused: ``url`` is relative and there is no ``base_url``, or its scheme is not
            http, https or file.
    """
    scheme = urlsplit(url).scheme.lower()
    if scheme in _CHECK_SCHEMES:
        return url
    if scheme:
        return _refuse(
            url, f"scheme {scheme!r} is not allowed; use http(s):// on loopback, or a path"
        )
    if not base_url:
        return _refuse(url, f"relative URL {url!r} needs a base: declare the contract's serve.url")
    return urljoin(base_url, url)


def url_pattern(url: str, base_url: str | None) -> str:
    """What a page's URL is compared with: a path joined to ``base_url`` (Playwright's baseURL);
    an absolute URL or a glob (`**/done`) as it is."""
    if url.startswith("/") and not url.startswith("//") and base_url:
        return urljoin(base_url, url)
    return url


def checked_url(url: str, base_url: str | None, policy: UrlPolicy) -> str:
    """Resolve ``url`` and make sure the policy allows it.

    Raises:
        UrlRefused: it cannot be resolved, or the policy refuses it.
    """
    resolved = resolve_url(url, base_url)
    if (why := policy.refusal(resolved)) is not None:
        _refuse(
            resolved, f"refused {resolved}: {why} (start the server with --allow-host to permit it)"
        )
    return resolved


def _refuse(url: str, reason: str) -> str:
    raise UrlRefused(url, reason)
