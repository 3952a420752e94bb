"""Objects of a repository rewritten under their own names, as a generator owning `.git` can.

git reads a loose or a packed object without checking that its content hashes to its name; each
helper here writes such an object, and the checks below look for referee's refusal.
"""

from __future__ import annotations

import hashlib
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Any

from edits import Edit, agent_for, calc_contract
from mcp.types import CallToolResult

_PACK_TYPES = {"commit": 1, "tree": 2, "blob": 3}


def forge_object(store: Path, name: str, kind: str, data: bytes) -> None:
    """Write `data` as the loose `kind` object called `name` in an object folder."""
    target = store / name[:2] / name[2:]
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        target.chmod(0o644)
    target.write_bytes(zlib.compress(b"%s %d\0" % (kind.encode(), len(data)) + data))


def forge_blob(store: Path, name: str, data: bytes) -> None:
    forge_object(store, name, "blob", data)


def forge_pack(store: Path, objects: dict[str, tuple[str, bytes]]) -> None:
    """A pack (and its index, version 2) holding each `name: (kind, data)`, names as given."""
    body = b"PACK" + struct.pack(">II", 2, len(objects))
    offsets: dict[str, tuple[int, int]] = {}
    for name, (kind, data) in objects.items():
        entry = _pack_header(_PACK_TYPES[kind], len(data)) + zlib.compress(data)
        offsets[name] = (len(body), zlib.crc32(entry))
        body += entry
    body += hashlib.sha1(body).digest()
    names = sorted(objects)
    fanout = [sum(1 for n in names if int(n[:2], 16) <= i) for i in range(256)]
    index = b"\377tOc" + struct.pack(">I", 2) + struct.pack(">256I", *fanout)
    index += b"".join(bytes.fromhex(n) for n in names)
    index += b"".join(struct.pack(">I", offsets[n][1]) for n in names)
    index += b"".join(struct.pack(">I", offsets[n][0]) for n in names)
    index += body[-20:]
    index += hashlib.sha1(index).digest()
    stem = store / "pack" / f"pack-{body[-20:].hex()}"
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".pack").write_bytes(body)
    stem.with_suffix(".idx").write_bytes(index)


def _pack_header(kind: int, size: int) -> bytes:
    first = (kind << 4) | (size & 0x0F)
    size >>= 4
    out = bytearray()
    while size:
        out.append(first | 0x80)
        first, size = size & 0x7F, size >> 7
    out.append(first)
    return bytes(out)


def raw_object(repo: Path, name: str) -> bytes:
    """An object's content as git stores it."""
    kind = subprocess.run(
        ["git", "cat-file", "-t", name], cwd=repo, capture_output=True, check=True, text=True
    ).stdout.strip()
    return subprocess.run(
        ["git", "cat-file", kind, name], cwd=repo, capture_output=True, check=True
    ).stdout


def loose(repo: Path, name: str) -> Path:
    return repo / ".git" / "objects" / name[:2] / name[2:]


def tree_bytes(entries: list[tuple[str, str, str]]) -> bytes:
    """A tree object's content: (mode, name, sha) entries, in the order given."""
    return b"".join(
        mode.encode() + b" " + name.encode() + b"\0" + bytes.fromhex(sha)
        for mode, name, sha in entries
    )


def refused_as_rewritten(done: CallToolResult) -> dict[str, Any]:
    """The tool refused, naming a rewritten object (`bad_object`); returns the problem."""
    text = " ".join(getattr(c, "text", "") for c in done.content)
    assert done.is_error, done.structured_content
    assert "Error executing tool" not in text, text  # a crash, not a refusal
    assert '"bad_object"' in text, text
    return {"text": text}


async def refused_loop(repo: Path, change: Edit, check: dict[str, Any]) -> None:
    """Contract, the change, evaluate: refused as rewritten, or judged on the objects as referee
    verified them before the rewrite (it keeps what it verified, by name, for the process: the
    base's tree read when the contract was made is the honest one); nothing to deliver after."""
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, check)
        change(repo)
        done = await agent.call_tool("evaluate", {"contract_id": cid})
        if done.is_error:
            refused_as_rewritten(done)
        else:
            criterion = (done.structured_content or {})["criteria"][0]
            assert criterion["status"] == "fail", criterion
            assert criterion["reason_code"] == "base_test_failed", criterion
        decided = await agent.call_tool("aggregate", {"contract_id": cid})
    assert decided.is_error or (decided.structured_content or {}).get("decision") != "DELIVER"
