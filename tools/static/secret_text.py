"""What the secret scan reads of a file: every file, whatever its encoding, size or content.

A key ships with the change wherever it sits in it, so no file is spared the scan for looking
binary, being large or being written in another encoding:

- UTF-16 and UTF-32 (told by their byte-order mark, or without one by the zero bytes of ASCII
  text) are decoded; any other file is read as UTF-8, and a file with NUL bytes (taken as binary
  by the other checks) is read as `strings` reads it: its control bytes blanked, its printable
  runs kept, line numbers unchanged;
- a large file is scanned in chunks of whole lines, up to `SCAN_LIMIT` bytes; what lies beyond is
  reported (`beyond_limit`), never silently left out;
- the encoded literals of the text (hex, base32, base32hex, base64, base64url, base85, ascii85
  between `<~ ~>`, rot13, UTF-16 inside any of them, and a gzip, zlib, bzip2 or xz stream inside
  one, inflated to a bound) are decoded, twice over at most, and their printable runs scanned
  too, each finding on the line of the literal it came from;
- a string literal is read as the language would read it: its escapes (`\\x41`, `\\u0041`,
  `\\u{41}`, octal), percent-encoding, HTML character references and quoted-printable undone,
  its pieces joined when it is split over `+` or adjacent literals, and written backwards;
- a list of twelve numbers or more that are all bytes (`bytes([65, 75, …])`,
  `String.fromCharCode(…)`, `[0x41, …]`) is read as the bytes it spells.

Encodings are a class, not a list of the forms seen so far: any reversible encoding in the
standard library that a few characters of code undo belongs here. What a key of the code's own
choosing hides (XOR, encryption) is not a cheap form: the scan cannot read it, and the safety
section of the README says so.
"""

from __future__ import annotations

import base64
import binascii
import bz2
import codecs
import contextlib
import html
import lzma
import re
import string
import zlib
from bisect import bisect_right
from collections.abc import Iterator
from typing import NamedTuple, Protocol

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
_BASE32HEX = b"0123456789ABCDEFGHIJKLMNOPQRSTUV"
_URLSAFE = bytes.maketrans(b"-_", b"+/")
_DEPTH = 2
_LINE_BREAK = re.compile(rb"\n")


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
    breaks = [match.start() for match in _LINE_BREAK.finditer(raw)]
    for start, runs in _literal_runs(raw, _DEPTH, rot13=None):
        if runs:
            lines.setdefault(bisect_right(breaks, start) + 1, []).extend(runs)
    for start, value in _string_values(raw):
        # A value as the program sees it (escapes undone, pieces joined) and backwards: read as
        # it is, and decoded as any literal is.
        found = [value.decode("utf-8", "replace")]
        found += _decoded_runs(value, _DEPTH) if _LITERAL.fullmatch(value) else []
        lines.setdefault(bisect_right(breaks, start) + 1, []).extend(found)
    for match in _NUMBER_LIST.finditer(raw):
        spelled = _spelled_bytes(match.group())
        if spelled is not None:
            lines.setdefault(bisect_right(breaks, match.start()) + 1, []).extend(
                _runs_of(spelled, _DEPTH)
            )
    return {line: " ".join(runs) for line, runs in lines.items()}


# A quoted literal on one line (escapes kept as written); what may stand between two pieces of
# one value.
_QUOTED = re.compile(rb"([\"'`])((?:[^\"'`\\\n]|\\[^\n]){1,4096})\1")
_JOINER = re.compile(rb"[\s+()]*")
_MAX_PIECES = 64
# What a language or a format undoes inside a string: backslash escapes (hex, 4- and 8-digit and
# braced Unicode, octal, any other character kept), percent-encoding, quoted-printable.
_ESCAPE = re.compile(
    rb"\\(?:x([0-9a-fA-F]{2})|u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})"
    rb"|([0-7]{1,3})|(.))|[%=]([0-9a-fA-F]{2})",
    re.DOTALL,
)
_BACKSLASH_LETTERS = {b"n": b"\n", b"t": b"\t", b"r": b"\r"}
_NO_SPACE = re.compile(rb"\S{16,}")


def _string_values(raw: bytes) -> Iterator[tuple[int, bytes]]:
    """What the text's string literals hold, each with the offset of its first piece: a literal
    whose escapes change it, as the program reads it; quoted pieces joined by `+`, parentheses
    or white space, whole; any value of 16 characters or more without spaces, reversed."""
    for start, pieces in _literal_groups(raw):
        values = [_unescaped(piece) for piece in pieces]
        value = b"".join(values)
        if len(value) < _SHORTEST_RUN:
            continue
        if len(pieces) > 1 or values[0] != pieces[0]:
            yield start, value
        if _NO_SPACE.fullmatch(value):
            yield start, value[::-1]


def _literal_groups(raw: bytes) -> Iterator[tuple[int, list[bytes]]]:
    """Runs of quoted literals joined by `+`, parentheses or white space only (one literal is a
    run of its own), each with the offset of its first piece."""
    group: list[bytes] = []
    start = end = 0
    for match in _QUOTED.finditer(raw):
        if group and len(group) < _MAX_PIECES and _JOINER.fullmatch(raw, end, match.start()):
            group.append(match.group(2))
        else:
            if group:
                yield start, group
            group, start = [match.group(2)], match.start()
        end = match.end()
    if group:
        yield start, group


def _unescaped(piece: bytes) -> bytes:
    """A literal's text with its escapes undone (see `_ESCAPE`), HTML references too."""
    if b"\\" in piece or b"%" in piece or b"=" in piece:
        piece = _ESCAPE.sub(_escaped_char, piece)
    if b"&#" in piece:
        piece = html.unescape(piece.decode("utf-8", "replace")).encode("utf-8", "replace")
    return piece


def _escaped_char(match: re.Match[bytes]) -> bytes:
    hex_byte, braced, four, eight, octal, other, percent = match.groups()
    if hex_byte or percent:
        return bytes([int(hex_byte or percent, 16)])
    if octal:
        return bytes([int(octal, 8) & 0xFF])
    if other is not None:
        return _BACKSLASH_LETTERS.get(other, other)
    point = int(braced or four or eight, 16)
    return chr(point).encode("utf-8", "replace") if point <= 0x10FFFF else b""


# Twelve or more numbers separated by commas, each a byte in decimal or hex (`_spelled_bytes`
# tells; a pattern that says it exactly costs four times as much: it is tried at every digit).
_NUMBER_LIST = re.compile(
    rb"[0-9](?:[0-9a-fA-FxX]{0,3}[ \t\r\n]*,[ \t\r\n]*[0-9]){11,}[0-9a-fA-FxX]{0,3}\b"
)
_BYTE = re.compile(rb"\s*(?:0[xX][0-9a-fA-F]{1,2}|[0-9]{1,3})\s*")


def _spelled_bytes(numbers: bytes) -> bytes | None:
    """The bytes a list of numbers spells, or None when one of them is not a byte."""
    items = numbers.split(b",")
    if not all(_BYTE.fullmatch(item) for item in items):
        return None
    values = [int(item, 16) if b"x" in item or b"X" in item else int(item) for item in items]
    return bytes(values) if max(values) <= 0xFF else None


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
    """The printable runs of decoded bytes (inflated first, and read as UTF-16 or UTF-32 when
    they are), and of the literals inside them."""
    text = _inflated(decoded)
    if text.count(0) * 3 > len(text):
        text = file_text(text).encode("utf-8", "replace")
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
    if not bare.translate(None, _BASE32HEX):
        with contextlib.suppress(binascii.Error, ValueError):
            yield base64.b32hexdecode(bare + b"=" * (-len(bare) % 8))
    if bare.lower() != bare and bare.upper() != bare:  # encoded bytes mix both cases
        with contextlib.suppress(binascii.Error, ValueError):
            yield base64.b64decode(bare.translate(_URLSAFE) + b"=" * (-len(bare) % 4))


def _inflated(data: bytes) -> bytes:
    """A gzip, zlib, bzip2 or xz stream inflated (at most INFLATE_LIMIT bytes), anything else as
    it is."""
    inflater: _Inflater
    if data.startswith((b"\x1f\x8b", b"\x78")):
        inflater = zlib.decompressobj(wbits=47)  # gzip or zlib, told by the header
    elif data.startswith(b"BZh"):
        inflater = bz2.BZ2Decompressor()
    elif data.startswith((b"\xfd7zXZ\x00", b"\x5d\x00\x00")):
        inflater = lzma.LZMADecompressor()
    else:
        return data
    try:
        return inflater.decompress(data, INFLATE_LIMIT)
    except (zlib.error, OSError, EOFError, lzma.LZMAError):
        return data


class _Inflater(Protocol):
    def decompress(self, data: bytes, max_length: int = ..., /) -> bytes: ...


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
