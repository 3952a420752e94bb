"""Encoded blobs in output, decoded (and decompressed) so that a secret inside one can be found.

A secret gzipped and then base64-encoded shows none of its forms: only decoding the blob finds it.
Candidates are runs of an encoding's alphabet long enough to hide a fragment: base64 and base64url
(the lines of a wrapped blob joined), hex (with or without separators), base32, base85, ascii85;
and lines of uuencode and xxencode, each of which says in its first character how many bytes it
holds (a line whose length disagrees is no such line).
base64 and hex decode at C speed, so every candidate is decoded, base64 from each of its first four
characters and hex from each of its first two (something glued in front puts a blob out of step);
base32 and base85 decode in pure Python, so a candidate is decoded whole only when its first bytes
are compressed data or text. A compressed stream is inflated wherever in a blob it starts.

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
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain

import re2

from referee.tools.evidence.quiet import QUIET

__all__ = ["Budget", "Decoded", "decode_blobs"]

BLOB_INFLATE = 1 << 20  # bytes one blob may inflate to
SCAN_INFLATE = 16 << 20  # bytes all blobs of one scan may inflate to

_UPPER = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = b"abcdefghijklmnopqrstuvwxyz"
_IDENTIFIER = _UPPER + _LOWER + b"0123456789_-"
_BASE32 = _UPPER + b"234567="
_BLANKS = b" \t\r\n"
_URLSAFE = bytes.maketrans(b"-_", b"+/")
Span = tuple[int, int]
# The first bytes of a gzip (deflate), bzip2, xz and zlib (each compression level) stream.
_STREAM_HEADERS = (
    b"\x1f\x8b\x08",
    b"BZh",
    b"\xfd7zXZ\x00",
    b"\x78\x01",
    b"\x78\x5e",
    b"\x78\x9c",
    b"\x78\xda",
)
_B85_ALPHABET = _IDENTIFIER + b"!#$%&()*+;<=>?@^`{|}~"
_A85_ALPHABET = bytes(range(0x21, 0x76)) + b"z"
_TEXTLIKE = frozenset(range(0x20, 0x7F)) | frozenset(b"\t\r\n")
_TEXT_BYTES = bytes(sorted(_TEXTLIKE))
_RAW_MOST = 1 << 16  # larger blobs are files (an image, an archive), not a disguised line
_HEX = re2.compile(rb"[0-9A-Fa-f]{2}(?:(?:[ \t:-]|\r?\n)?[0-9A-Fa-f]{2}){7,}", QUIET)
_ADOBE85 = re2.compile(rb"<~[!-uz \t\r\n]{10,}?~>", QUIET)
_LAST_LINE = re2.compile(rb"[ \t]*\r?\n[ \t]*[A-Za-z0-9+/_-]{1,15}={0,2}", QUIET)
# A line of uuencode (characters 0x20-0x60) or of xxencode (its own 64 characters) ends a line of
# output (after whatever was printed in front of it); its first character is the count of bytes it
# holds, which fixes how many characters follow (a terminal may have dropped trailing blanks): one
# alternative per count, so that a single linear pass finds only lines whose length agrees.
_XX_ALPHABET = b"+-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_FEWEST = 8  # bytes a line must hold to be read: a shorter one would match most line endings


def _line_pattern(counts: bytes, body: bytes) -> re2._Regexp[bytes]:
    lines = [
        b"\\x%02x%s{%d,%d}" % (counts[n], body, -(-n // 3) * 4 - 3, -(-n // 3) * 4)
        for n in range(_FEWEST, 46)
    ]
    return re2.compile(b"(?m)(?:" + b"|".join(lines) + b")\r?$", QUIET)


_UU_LINE = _line_pattern(bytes(range(0x20, 0x60)), rb"[\x20-\x60]")
_XX_LINE = _line_pattern(_XX_ALPHABET, rb"[+\-0-9A-Za-z]")
_XX_AS_UU = bytes.maketrans(_XX_ALPHABET, bytes([0x60, *range(0x21, 0x60)]))


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
        for run in [run for run in spaced.split() if len(run) >= shortest]:
            at = spaced.find(run, at)  # runs are apart: the first one found is this one
            yield at, run
            at += len(run)


_BASE64 = _Alphabet(_IDENTIFIER + b"+/=", 16)  # base32 (A-Z, 2-7) is a subset
_BASE85 = _Alphabet(bytes(range(0x21, 0x7F)), 20)  # base85 and ascii85 together


class Decoded:
    """What the blobs of a text decode (and inflate) to, back to back, and where each came from."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []
        self._size = 0
        self._starts: list[int] = []  # where each blob's bytes begin in `data`
        self._spans: list[Span] = []  # the blob (start, end in the text) each came from
        self.sealed: list[Span] = []  # blobs that inflate past the bound

    @property
    def data(self) -> bytes:
        return b"".join(self._parts)

    def add(self, data: bytes, span: Span) -> None:
        self.add_batch(data, [0], [span])

    def add_batch(self, data: bytes, offsets: Sequence[int], spans: Sequence[Span]) -> None:
        """Bytes decoded from several blobs at once, the one at `offsets[i]` from `spans[i]`."""
        self._starts += [self._size + offset for offset in offsets]
        self._spans += spans
        self._parts.append(data)
        self._size += len(data)

    def owners(self, first: int, last: int) -> list[Span]:
        """The blobs whose bytes lie between offsets `first` and `last` of `data` (both in)."""
        low, high = bisect_right(self._starts, first) - 1, bisect_right(self._starts, last)
        return self._spans[max(low, 0) : high]


def decode_blobs(data: bytes, budget: Budget, lines: bool = True) -> Decoded:
    """Every encoded blob in `data`, decoded, and inflated where it holds compressed data; with
    `lines`, uu and xx lines too (read in the text as printed only: they are lines of output)."""
    found, base64_runs, base32_runs = Decoded(), [], []
    for start, run in _BASE64.runs(data):
        if _mixed_case(run):
            base64_runs.append((start, run))
        elif not run.translate(None, _BASE32):  # upper-case base32 (A-Z, 2-7, =)
            base32_runs.append((start, start + len(run), run, _slow(_base32, 8)))
    _base64_blobs(data, iter(base64_runs), found, budget)
    for start, end, token, decode in chain(base32_runs, _candidates(data, lines)):
        for piece in decode(token):
            found.add(piece, (start, end))
            _inflate_streams(piece, [0, len(piece)], [(start, end)], found, budget)
    return found


def _base64_blobs(
    data: bytes, runs: Iterator[tuple[int, bytes]], found: Decoded, budget: Budget
) -> None:
    """The base64 candidates, decoded four times in one call each (C speed).

    Each is cut to whole 4-character groups, so the decoding of them all is their decodings back
    to back. It is read from its first, second, third and fourth character: a blob glued behind
    other characters (on its line or the line before) is read in step at one of them.
    """
    texts, spans = [], []
    for start, end, run in _wrapped(data, runs):
        texts.append(run.translate(_URLSAFE, b"="))
        spans.append((start, end))
    for shift in range(4):
        cut = [text[shift : shift + (len(text) - shift) // 4 * 4] for text in texts]
        decoded = base64.b64decode(b"".join(cut))
        offsets = list(accumulate((len(text) // 4 * 3 for text in cut), initial=0))
        found.add_batch(decoded, offsets[:-1], spans)
        _inflate_streams(decoded, offsets, spans, found, budget)
    for text, span in zip(texts, spans, strict=True):
        if _FEWEST <= len(text) * 3 // 4 <= _RAW_MOST:
            _inflated_raw(base64.b64decode(_padded(text)), span, found, budget)


def _inflate_streams(
    decoded: bytes, offsets: Sequence[int], spans: Sequence[Span], found: Decoded, budget: Budget
) -> None:
    """Inflate every compressed stream that starts anywhere in the decoded blobs (blob `i` is
    `decoded[offsets[i]:offsets[i + 1]]`): junk glued in front hides no stream."""
    for position in _stream_starts(decoded):
        blob = bisect_right(offsets, position) - 1
        if blob < len(spans):
            _inflated(decoded[position : offsets[blob + 1]], spans[blob], found, budget)


def _stream_starts(data: bytes) -> Iterator[int]:
    for header in _STREAM_HEADERS:
        at = data.find(header)
        while at >= 0:
            yield at
            at = data.find(header, at + 1)


_Candidate = tuple[int, int, bytes, Callable[[bytes], list[bytes]]]


def _candidates(data: bytes, lines: bool = True) -> Iterator[_Candidate]:
    """The candidates of hex, base85 and ascii85 (and with `lines`, of uu and xx lines)."""
    for match in _HEX.finditer(data):
        yield match.start(), match.end(), match.group(), _hex
    for start, run in _BASE85.runs(data):
        if _mixed_case(run) and run.translate(None, _IDENTIFIER):
            yield start, start + len(run), run, _base85
    for match in _ADOBE85.finditer(data):
        yield match.start(), match.end(), match.group(), _slow(_ascii85, 5)
    for pattern, decode in ((_UU_LINE, _uu), (_XX_LINE, _xx)) if lines else ():
        yield from _lines(data, pattern, decode)


def _mixed_case(run: bytes) -> bool:
    return not (run.isupper() or run.islower())  # also true without any letter: decoded anyway


def _wrapped(data: bytes, runs: Iterator[tuple[int, bytes]]) -> Iterator[tuple[int, int, bytes]]:
    """(start, end, run) of the runs, the lines of a blob wrapped over several (MIME's 76
    columns) joined into one, with its last, shorter line."""
    start, end, lines = -1, -1, list[bytes]()
    for at, run in runs:
        if lines and _line_break(data[end:at]):
            lines.append(run)
            end = at + len(run)
            continue
        if lines:
            yield _with_last_line(data, start, end, lines)
        start, end, lines = at, at + len(run), [run]
    if lines:
        yield _with_last_line(data, start, end, lines)


def _with_last_line(
    data: bytes, start: int, end: int, lines: list[bytes]
) -> tuple[int, int, bytes]:
    tail = _LAST_LINE.match(data, end) if len(lines) > 1 else None
    if tail is None:
        return start, end, b"".join(lines)
    return start, tail.end(), b"".join(lines) + tail.group().strip()


def _line_break(between: bytes) -> bool:
    return between.count(b"\n") == 1 and not between.translate(None, _BLANKS)


def _padded(text: bytes) -> bytes:
    """Base64 without its padding, padded again (a lone last character is no byte)."""
    extra = len(text) % 4
    return text[:-1] if extra == 1 else text + b"=" * ((4 - extra) % 4)


def _inflated_raw(data: bytes, span: Span, found: Decoded, budget: Budget) -> None:
    """Add what `data` inflates to as a raw deflate stream (no header names it: zlib's output
    with its header cut off), when it is one that ends inside it and inflates to text (most
    bytes open a deflate block, so nothing less is taken for one). It is tried at the blob's
    start only: a try costs a decoder, and one at every byte cost the engine twice its time."""
    if not _FEWEST <= len(data) <= _RAW_MOST or budget.left <= 0:
        return
    inflater = zlib.decompressobj(wbits=-15)
    try:
        output = inflater.decompress(data, min(BLOB_INFLATE, budget.left))
    except zlib.error:
        return
    if inflater.eof and len(output) >= _FEWEST and not output.translate(None, _TEXT_BYTES):
        budget.left -= len(output)
        found.add(output, span)


def _inflated(data: bytes, span: Span, found: Decoded, budget: Budget) -> None:
    """Add what compressed `data` inflates to (a blob past the bound is sealed)."""
    inflated = _inflate(data, min(BLOB_INFLATE, budget.left))
    if inflated is not None:
        output, whole = inflated
        budget.left -= len(output)
        found.add(output, span)
        if not whole:
            found.sealed.append(span)


def _hex(token: bytes) -> list[bytes]:
    """The digits read in pairs from the first and from the second (a digit glued in front)."""
    digits = token.translate(None, _BLANKS + b":-")
    return [binascii.unhexlify(digits[k : k + (len(digits) - k) // 2 * 2]) for k in (0, 1)]


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


def _lines(
    data: bytes, pattern: re2._Regexp[bytes], decode: Callable[[bytes], list[bytes]]
) -> Iterator[_Candidate]:
    """The uu or xx lines `pattern` finds, overlapping ones too: a character in front of the
    real line may itself read as a count that agrees (searched again from the next one)."""
    at = 0
    while (match := pattern.search(data, at)) is not None:
        yield match.start(), match.end(), match.group().rstrip(b"\r"), decode
        at = match.start() + 1


def _uu(line: bytes) -> list[bytes]:
    """One uuencoded line, if its length character agrees with its length."""
    count = (line[0] - 0x20) & 0x3F
    need, body = -(-count // 3) * 4, len(line) - 1
    if not 0 < count <= 45 or not need - 3 <= body <= need:
        return []
    try:
        return [binascii.a2b_uu(line + b"`" * (need - body))]
    except binascii.Error:
        return []


def _xx(line: bytes) -> list[bytes]:
    """One xxencoded line: uuencode with another alphabet."""
    return _uu(line.translate(_XX_AS_UU))


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
