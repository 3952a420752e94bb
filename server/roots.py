"""Allowed roots: the client's MCP roots when it offers them, else --root, else the working
directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any
from urllib.parse import unquote, urlparse

import mcp_types as types
from mcp.server.mcpserver import Context, ListRoots, Resolve

from referee.tools.settings import Settings


def client_roots(ctx: Context[Any, Any]) -> ListRoots | types.ListRootsResult:
    """Ask the client for its roots, but only a client that declared the capability."""
    caps = ctx.client_capabilities
    return ListRoots() if caps and caps.roots else types.ListRootsResult(roots=[])


ClientRoots = Annotated[types.ListRootsResult, Resolve(client_roots)]


def root_paths(result: types.ListRootsResult) -> tuple[Path, ...]:
    """Local folders among the client's roots (file:// URIs only)."""
    paths = []
    for root in result.roots:
        parsed = urlparse(str(root.uri))
        if parsed.scheme == "file":
            paths.append(Path(unquote(parsed.path)).resolve())
    return tuple(paths)


def effective_settings(settings: Settings, result: types.ListRootsResult | None) -> Settings:
    """The server's settings with the client's roots taking the place of --root when it offers
    any."""
    from dataclasses import replace

    offered = root_paths(result) if result is not None else ()
    return replace(settings, roots=offered) if offered else settings
