"""What the secret scan reads of a file: every file, whatever its encoding, size or content.

A key ships with the change wherever it sits in it, so no file is spared the scan for looking
binary, being large or being written in another encoding:

- UTF-16 and UTF-32 (told by their byte-order mark, or without one by the zero bytes of ASCII
  text) are decoded; any other file is read as UTF-8, and a file with NUL bytes (taken as binary
  by the other checks) is read as `strings` reads it: its control bytes blanked, its printable
  runs kept, line numbers unchanged;
- a large file is scanned in chunks of whole lines, up to `SCAN_LIMIT` bytes; what lies beyond is
  reported (`beyond_limit`), never silently left out;
- the encoded literals of the text (hex, base32, base64, base64url, base85, ascii85 between
  `<~ ~>`, rot13, and a gzip or zlib stream inside one, inflated to a bound) are decoded, twice
  over at most, and their printable runs scanned too, each finding on the line of the literal it
  came from. Encodings are a class, not a list of the forms seen so far: any reversible encoding
  in the standard library that a few characters of code undo belongs here.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import contextlib
import re
import string
import zlib
from bisect import bisect_right
from collections.abc import Iterator
from typing import NamedTuple

__all__ = [
    "CHUNK_BYTES",
    "SCAN_LIMIT",
    "Chunk",
    "beyond_limit",
    "chunks",
    "decoded_lines",
    "file_text",
]

SCAN_LIMIT = 32 << 20
"""Bytes of one file the secret scan reads (a key past them is reported as not scanned)."""
CHUNK_BYTES = 1 << 20
"""Text handed to the engine at once: its memory and a blob's inflation stay bounded per chunk."""

_SNIFF = 4096
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_CONTROL = "".join(chr(c) for c in range(32) if chr(c) not in "\t\n\r") + "\x7f"
_BLANKED = str.maketrans(_CONTROL, " " * len(_CONTROL))
_TEXTLIKE = bytes(range(0x20, 0x7F)) + b"\t"
# Every byte a printable run cannot hold becomes a line break: each run is a line of its own,
# found again in the decoded bytes at the same offset.
_RUNS = bytes(b if b in _TEXTLIKE else 0x0A for b in range(256))
_SHORTEST_RUN = 16
INFLATE_LIMIT = 1 << 20
"""Bytes one compressed literal may inflate to."""
# A literal worth decoding: a run of the base64url/base64 alphabet (base32 and hex are subsets)
# long enough to hold a 12-byte secret.
_LITERAL = re.compile(rb"[A-Za-z0-9+/_-]{16,}={0,2}")
# base85 (RFC 1924, git's and Python's b85) uses punctuation the literal above lacks; ascii85 is
# read between its `<~ ~>` delimiters only (its alphabet holds quotes and commas, so undelimited
# it would take in whole lines of code).
_BASE85 = re.compile(rb"[0-9A-Za-z!#$%&()*+;<=>?@^_`{|}~-]{20,8192}")
# In a file's own text, only a whole string literal: code (`f(a)+g(b);`) is made of those
# characters too, and decoding every run of it would double the cost of the scan.
_BASE85_STRING = re.compile(rb"(?<=[\"'])[0-9A-Za-z!#$%&()*+;<=>?@^_`{|}~-]{20,8192}(?=[\"'])")
_ASCII85 = re.compile(rb"<~([!-uz\s]{20,8192}?)~>")
_QUOTES = (b'"', b"'", b"`")
_BASE64ISH = re.compile(rb"[A-Za-z0-9+/_=-]*")
_ROT13 = bytes.maketrans(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    b"NOPQRSTUVWXYZABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm",
)
_BASE32 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_URLSAFE = bytes.maketrans(b"-_", b"+/")
_DEPTH = 2


class Chunk(NamedTuple):
    """Whole lines of a file's text, and how many lines come before them."""

    before: int
    text: str


def file_text(data: bytes) -> str:
    """The text a file holds, as the scan reads it (see the module docstring)."""
    encoding, skip = _encoding(data)
    text = data[skip:].decode(encoding, "replace")
    return text.translate(_BLANKED) if "\0" in text else text


def chunks(text: str, size: int = CHUNK_BYTES) -> Iterator[Chunk]:
    """The text in pieces of about `size` characters, cut after a line break."""
    start, before = 0, 0
    while start < len(text):
        end = text.find("\n", start + size)
        end = len(text) if end < 0 else end + 1
        piece = text[start:end]
        yield Chunk(before, piece)
        before += piece.count("\n")
        start = end


def decoded_lines(text: str) -> dict[int, str]:
    """The printable runs that the text's encoded literals decode to, by the 1-based line of the
    literal (a literal inside a decoded one is decoded too, once)."""
    raw = text.encode("utf-8", "replace")
    lines: dict[int, list[str]] = {}
    breaks = [i for i, byte in enumerate(raw) if byte == 0x0A] if b"\n" in raw else []
    for start, runs in _literal_runs(raw, _DEPTH, rot13=None):
        if runs:
            lines.setdefault(bisect_right(breaks, start) + 1, []).extend(runs)
    for start, joined in _joined_literals(raw):
        # A value split into pieces (`"AKIA…" + "…"`, adjacent literals over lines) is whole
        # again here: read as it is, and decoded as any literal is.
        found = [joined.decode("ascii", "replace")]
        found += _decoded_runs(joined, _DEPTH) if _LITERAL.fullmatch(joined) else []
        lines.setdefault(bisect_right(breaks, start) + 1, []).extend(found)
    return {line: " ".join(runs) for line, runs in lines.items()}


# A quoted literal without escapes or line breaks; what may stand between two pieces of one value.
_QUOTED = re.compile(rb"([\"'`])([^\"'`\\\n]{1,4096})\1")
_JOINER = re.compile(rb"[\s+()]*")
_MAX_PIECES = 64


def _joined_literals(raw: bytes) -> Iterator[tuple[int, bytes]]:
    """Runs of two or more quoted literals joined by `+`, parentheses or white space only, each
    with the offset of its first piece, when the whole holds 16 characters or more."""
    group: list[bytes] = []
    start = end = 0
    for match in _QUOTED.finditer(raw):
        if group and len(group) < _MAX_PIECES and _JOINER.fullmatch(raw, end, match.start()):
            group.append(match.group(2))
        else:
            if len(group) > 1 and sum(map(len, group)) >= _SHORTEST_RUN:
                yield start, b"".join(group)
            group, start = [match.group(2)], match.start()
        end = match.end()
    if len(group) > 1 and sum(map(len, group)) >= _SHORTEST_RUN:
        yield start, b"".join(group)


def _literal_runs(
    raw: bytes, depth: int, rot13: bool | None = True
) -> Iterator[tuple[int, list[str]]]:
    """Each literal's offset and what it decodes to, by encoding family.

    `rot13`: None in the file's own text, where only a literal that opens a string is read
    shifted (every long identifier would be otherwise, at thrice the cost of the scan); in
    decoded bytes, whether rot13 may still be undone."""
    for match in _LITERAL.finditer(raw):
        start = match.start()
        shifted = raw[start - 1 : start] in _QUOTES if rot13 is None else rot13
        yield start, _decoded_runs(match.group(), depth, shifted)
    for match in (_BASE85_STRING if rot13 is None else _BASE85).finditer(raw):
        token = match.group()
        if not _BASE64ISH.fullmatch(token):  # base85's own characters; else a literal above
            with contextlib.suppress(ValueError):
                yield match.start(), _runs_of(base64.b85decode(token), depth)
    for match in _ASCII85.finditer(raw):
        with contextlib.suppress(ValueError):
            yield match.start(), _runs_of(base64.a85decode(match.group(1)), depth)


def _decoded_runs(token: bytes, depth: int, rot13: bool = True) -> list[str]:
    runs: list[str] = []
    if rot13 and token.upper() != token.lower():
        # Letters shifted back: read as plain text, and searched for literals of the other
        # encodings (never rot13 again, which would only give the token back).
        runs += _runs_of(token.translate(_ROT13), depth, rot13=False)
    for decoded in _decodings(token):
        runs += _runs_of(decoded, depth)
    return runs


def _runs_of(decoded: bytes, depth: int, rot13: bool = True) -> list[str]:
    """The printable runs of decoded bytes (inflated first), and of the literals inside them."""
    text = _inflated(decoded)
    found = [r for r in text.translate(_RUNS).split(b"\n") if len(r) >= _SHORTEST_RUN]
    if not found:
        return []
    runs = [r.decode("ascii") for r in found]
    if depth > 1:
        for _, inner in _literal_runs(text, depth - 1, rot13):
            runs += inner
    return runs


def _decodings(token: bytes) -> Iterator[bytes]:
    """What a literal may encode: hex, base32, base64 or base64url (each that decodes)."""
    bare = token.rstrip(b"=")
    if len(bare) % 2 == 0 and not bare.translate(None, string.hexdigits.encode()):
        yield bytes.fromhex(bare.decode("ascii"))
        return
    if not bare.translate(None, _BASE32):
        with contextlib.suppress(binascii.Error, ValueError):
            yield base64.b32decode(bare + b"=" * (-len(bare) % 8))
    if bare.lower() != bare and bare.upper() != bare:  # encoded bytes mix both cases
        with contextlib.suppress(binascii.Error, ValueError):
            yield base64.b64decode(bare.translate(_URLSAFE) + b"=" * (-len(bare) % 4))


def _inflated(data: bytes) -> bytes:
    """A gzip or zlib stream inflated (at most INFLATE_LIMIT bytes), anything else as it is."""
    if not data.startswith((b"\x1f\x8b", b"\x78")):
        return data
    inflater = zlib.decompressobj(wbits=47)  # gzip or zlib, told by the header
    try:
        return inflater.decompress(data, INFLATE_LIMIT)
    except zlib.error:
        return data


def beyond_limit(size: int) -> str | None:
    """The note for a file larger than the scan reads, or None."""
    if size <= SCAN_LIMIT:
        return None
    return f"secrets scanned in the first {SCAN_LIMIT} bytes only (the file holds {size})"


def _encoding(data: bytes) -> tuple[str, int]:
    """The file's encoding and the length of its byte-order mark."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name, len(bom)
    head = data[:_SNIFF]
    if len(head) >= 8 and b"\0" in head:
        return _by_zero_bytes(head), 0
    return "utf-8", 0


def _by_zero_bytes(head: bytes) -> str:
    """ASCII text in UTF-16 has a zero in every other byte, in UTF-32 three in every four."""
    quarters = [head[i::4].count(0) / max(len(head[i::4]), 1) for i in range(4)]
    if min(quarters[1:]) > 0.9 and quarters[0] < 0.5:
        return "utf-32-le"
    if min(quarters[:3]) > 0.9 and quarters[3] < 0.5:
        return "utf-32-be"
    odd = (quarters[1] + quarters[3]) / 2
    even = (quarters[0] + quarters[2]) / 2
    if odd > 0.9 and even < 0.5:
        return "utf-16-le"
    if even > 0.9 and odd < 0.5:
        return "utf-16-be"
    return "utf-8"
