"""Encoded blobs in output, decoded (and decompressed) so that a secret inside one can be found.

A secret gzipped and then base64-encoded shows none of its forms: only decoding the blob finds it.
Candidates are runs of an encoding's alphabet long enough to hide a fragment: base64 and base64url
(the lines of a wrapped blob joined), hex (with or without separators), base32, base85, ascii85.
base64 and hex decode at C speed, so every candidate is decoded; base32 and base85 decode in pure
Python, so a candidate is decoded whole only when its first bytes are compressed data or text.

Ordinary output holds many runs that an alphabet allows (identifiers, paths); the ones no encoder
writes are skipped: a run in one letter case (encoded random bytes mix both in all but a vanishing
share of blobs long enough to hold a compressed secret), and for base85 a run of letters, digits,
``_`` and ``-`` only.

Decompression (gzip, zlib, bzip2, xz) is bounded per blob and per scan. A blob that inflates past
the bound cannot be inspected, so it is reported `sealed` and redacted whole: a decompression bomb
may hide a secret behind its first megabyte, and compressed blobs are rare in honest test output.
"""

from __future__ import annotations

import base64
import binascii
import bz2
import lzma
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

import re2

__all__ = ["Blob", "Budget", "blobs"]

BLOB_INFLATE = 1 << 20  # bytes one blob may inflate to
SCAN_INFLATE = 16 << 20  # bytes all blobs of one scan may inflate to

_UPPER = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = b"abcdefghijklmnopqrstuvwxyz"
_IDENTIFIER = _UPPER + _LOWER + b"0123456789_-"
_BASE32 = _UPPER + b"234567="
_BLANKS = b" \t\r\n"
# How the headers of gzip, bzip2, xz and zlib (each compression level) start in base64.
_HEADERS64 = (b"H4sI", b"Qlpo", b"/Td6", b"eA", b"eF", b"eJ", b"eN")
_B85_ALPHABET = _IDENTIFIER + b"!#$%&()*+;<=>?@^`{|}~"
_A85_ALPHABET = bytes(range(0x21, 0x76)) + b"z"
_TEXTLIKE = frozenset(range(0x20, 0x7F)) | frozenset(b"\t\r\n")
_HEX = re2.compile(rb"[0-9A-Fa-f]{2}(?:(?:[ \t:-]|\r?\n)?[0-9A-Fa-f]{2}){7,}")
_ADOBE85 = re2.compile(rb"<~[!-uz \t\r\n]{10,}?~>")
_LAST_LINE = re2.compile(rb"[ \t]*\r?\n[ \t]*[A-Za-z0-9+/_-]{1,15}={0,2}")


class Blob(NamedTuple):
    start: int
    end: int
    texts: list[bytes]  # what it decodes (and inflates) to
    sealed: bool  # inflates past the bound: cannot be inspected


@dataclass
class Budget:
    """What the blobs of one scan may still inflate to."""

    left: int = SCAN_INFLATE


class _Alphabet:
    """Runs of an encoding's characters, found with C-speed byte operations (no regex per run)."""

    def __init__(self, characters: bytes, shortest: int) -> None:
        inside = frozenset(characters)
        self._spaced = bytes(b if b in inside else 0x20 for b in range(256))
        self._shortest = shortest

    def runs(self, data: bytes) -> Iterator[tuple[int, bytes]]:
        """(start, run) of each run long enough, in order."""
        spaced, at, shortest = data.translate(self._spaced), 0, self._shortest
        for run in spaced.split():
            if len(run) >= shortest:
                at = spaced.find(run, at)  # runs are apart: the first one found is this one
                yield at, run
                at += len(run)


_BASE64 = _Alphabet(_IDENTIFIER + b"+/=", 16)  # base32 (A-Z, 2-7) is a subset
_BASE85 = _Alphabet(bytes(range(0x21, 0x7F)), 20)  # base85 and ascii85 together


def blobs(data: bytes, budget: Budget) -> Iterator[Blob]:
    """Every encoded blob in `data` with what it decodes to (blobs decoding to nothing left out)."""
    for start, end, token, decode in _candidates(data):
        decoded = [d for d in decode(token) if d]
        if decoded:
            yield _inflated(start, end, decoded, budget)


_Candidate = tuple[int, int, bytes, Callable[[bytes], list[bytes]]]


def _candidates(data: bytes) -> Iterator[_Candidate]:
    yield from _wrapped(data, _base64_runs(data))
    for match in _HEX.finditer(data):
        yield match.start(), match.end(), match.group(), _hex
    for start, run in _BASE85.runs(data):
        if _mixed_case(run) and run.translate(None, _IDENTIFIER):
            yield start, start + len(run), run, _base85
    for match in _ADOBE85.finditer(data):
        yield match.start(), match.end(), match.group(), _slow(_ascii85, 5)


def _base64_runs(data: bytes) -> Iterator[_Candidate]:
    for start, run in _BASE64.runs(data):
        if _mixed_case(run):
            yield start, start + len(run), run, _base64
        elif not run.translate(None, _BASE32):
            yield start, start + len(run), run, _slow(_base32, 8)


def _mixed_case(run: bytes) -> bool:
    return len(run.translate(None, _UPPER)) < len(run) > len(run.translate(None, _LOWER))


def _wrapped(data: bytes, candidates: Iterator[_Candidate]) -> Iterator[_Candidate]:
    """The candidates, with the lines of a blob wrapped over several (MIME's 76 columns) joined
    into one."""
    current: _Candidate | None = None
    for candidate in candidates:
        if current and candidate[3] is current[3] and _line_break(data[current[1] : candidate[0]]):
            current = (current[0], candidate[1], current[2] + candidate[2], current[3])
            continue
        if current:
            yield _with_last_line(data, current)
        current = candidate
    if current:
        yield _with_last_line(data, current)


def _with_last_line(data: bytes, candidate: _Candidate) -> _Candidate:
    """A wrapped blob with its last, shorter line (too short to be a candidate of its own)."""
    start, end, run, decode = candidate
    if end - start == len(run):  # one line: not wrapped
        return candidate
    tail = _LAST_LINE.match(data, end)
    if tail is None:
        return candidate
    return start, tail.end(), run + tail.group().strip(), decode


def _line_break(between: bytes) -> bool:
    return between.count(b"\n") == 1 and not between.translate(None, _BLANKS)


def _inflated(start: int, end: int, decoded: list[bytes], budget: Budget) -> Blob:
    texts, sealed = list(decoded), False
    for data in decoded:
        inflated = _inflate(data, min(BLOB_INFLATE, budget.left))
        if inflated is not None:
            output, whole = inflated
            budget.left -= len(output)
            texts.append(output)
            sealed = sealed or not whole
    return Blob(start, end, texts, sealed)


def _base64(token: bytes) -> list[bytes]:
    text = token.translate(bytes.maketrans(b"-_", b"+/"), b"=")
    # Compressed data must be read from its first byte: a blob shifted by a character or two
    # (a prefix glued to it) is also read from where a compression header shows.
    return [_b64(text)] + [_b64(text[k:]) for k in (1, 2, 3) if text.startswith(_HEADERS64, k)]


def _b64(text: bytes) -> bytes:
    return base64.b64decode(text[: len(text) // 4 * 4])


def _hex(token: bytes) -> list[bytes]:
    digits = token.translate(None, _BLANKS + b":-")
    return [binascii.unhexlify(digits[: len(digits) // 2 * 2])]


def _slow(decode: Callable[[bytes], bytes], unit: int) -> Callable[[bytes], list[bytes]]:
    """A pure-Python decoder, used on a whole candidate only if its head is compressed or text."""

    def decoded(token: bytes) -> list[bytes]:
        text = token.translate(None, _BLANKS)
        try:
            head = decode(text[: 2 * unit])
            if _inflater(head) is None and not set(head) <= _TEXTLIKE:
                return []
            return [decode(text)]
        except ValueError:  # not valid in this encoding after all
            return []

    return decoded


def _base32(text: bytes) -> bytes:
    letters = text.upper().rstrip(b"=")
    return base64.b32decode(letters[: len(letters) // 8 * 8])


def _ascii85(text: bytes) -> bytes:
    return base64.a85decode(text, adobe=text.startswith(b"<~"))


def _base85(token: bytes) -> list[bytes]:
    """A run of printable characters read as base85, or as ascii85, where its characters allow."""
    if not token.translate(None, _B85_ALPHABET):
        return _slow(base64.b85decode, 5)(token)
    if not token.translate(None, _A85_ALPHABET):
        return _slow(_ascii85, 5)(token)
    return []


def _inflate(data: bytes, limit: int) -> tuple[bytes, bool] | None:
    """(output, whether it is all of it) for compressed data, None for anything else."""
    inflate = _inflater(data)
    if inflate is None:
        return None
    try:
        output = inflate(data, limit + 1)
    except (zlib.error, OSError, EOFError, lzma.LZMAError):
        return None
    return output[:limit], len(output) <= limit


def _inflater(data: bytes) -> Callable[[bytes, int], bytes] | None:
    """The decompressor whose header `data` starts with."""
    if data[:2] == b"\x1f\x8b":
        return _gunzip
    if data[:1] == b"\x78" and len(data) > 1 and (0x78 << 8 | data[1]) % 31 == 0:
        return _unzlib
    if data[:3] == b"BZh":
        return _bunzip2
    if data[:6] == b"\xfd7zXZ\x00":
        return _unxz
    return None


def _gunzip(data: bytes, most: int) -> bytes:
    return zlib.decompressobj(wbits=31).decompress(data, most)


def _unzlib(data: bytes, most: int) -> bytes:
    return zlib.decompressobj(wbits=15).decompress(data, most)


def _bunzip2(data: bytes, most: int) -> bytes:
    return bz2.BZ2Decompressor().decompress(data, max_length=most)


def _unxz(data: bytes, most: int) -> bytes:
    return lzma.LZMADecompressor().decompress(data, max_length=most)
