"""Views of a text in which a disguised secret reads as one of its forms (forms.py).

Everything is bytes, one byte per character of the text (a non-ASCII character is one ``?``), so a
match maps back to the text by index:

- ``folded``: ASCII letters and digits only, lower-cased: ``S.e-C r\\nE t`` reads ``secret``; and
  its decimations (every 2nd and 3rd character, from each start): ``sqeqcqrqeqt`` reads
  ``secret``;
- ``printable``: every non-blank ASCII character, case kept: base64 wrapped over lines reads whole;
- ``letters``: ASCII letters only, lower-cased (whose differences find a letter shift, forms.py);
- ``Unescaped``: ``%73``, ``\\x73``, ``\\u0073``, ``&#115;``, ``&lt;``, ``0x73`` each read as the
  one character they stand for, and so does each number of a row of character codes
  (``[115, 101, 99, …]``) and each letter of a run of Morse code (``... . -.-.``); a terminal
  colour code between two characters reads as a blank.

Before any view, a compatibility character (fullwidth ``Ｓ``, mathematical ``𝐒``, circled ``Ⓢ``,
an accented ``é``), a letter of another script drawn as a Latin one (Cyrillic ``а``, Greek ``Ο``),
and a character of a block that spells ASCII at an offset (Unicode's invisible tag characters,
Braille patterns) reads as the ASCII character it shows or stands for (`compatible`), one for one.

A view keeps no table of where each byte came from: building one is a single C call over the text,
and the place of the rare match is found again from per-chunk counts (`Dropped.span`).
"""

from __future__ import annotations

import html.entities
import re
import unicodedata
from bisect import bisect_right
from functools import lru_cache

import re2

from referee.tools.evidence.quiet import QUIET

__all__ = ["Dropped", "Span", "Unescaped", "compatible", "folded", "letters", "printable"]

_CHUNK = 512
_ALNUM = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_LETTERS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_NON_ASCII = re.compile("[^\x00-\x7f]")
_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")

Span = tuple[int, int]


class Dropped:
    """`parent` with every byte outside `keep` dropped (and `table` applied to the rest)."""

    def __init__(self, parent: bytes, keep: frozenset[int], table: bytes | None = None) -> None:
        self._parent, self._keep = parent, keep
        self._drop = bytes(b for b in range(256) if b not in keep)
        self.data = parent.translate(table, self._drop)
        self._counts: list[int] | None = None  # kept bytes before each chunk, built on first use

    def span(self, start: int, end: int) -> Span:
        """The part of the parent that the view's `[start, end)` was read from."""
        return self._origin(start), self._origin(end - 1) + 1

    def _origin(self, index: int) -> int:
        counts = self._chunk_counts()
        chunk = bisect_right(counts, index) - 1
        rank, base = index - counts[chunk], chunk * _CHUNK
        for offset, byte in enumerate(self._parent[base : base + _CHUNK]):
            if byte in self._keep:
                if rank == 0:
                    return base + offset
                rank -= 1
        raise IndexError(index)

    def _chunk_counts(self) -> list[int]:
        if self._counts is None:
            counts, total = [], 0
            for base in range(0, len(self._parent), _CHUNK):
                counts.append(total)
                total += len(self._parent[base : base + _CHUNK].translate(None, self._drop))
            self._counts = counts or [0]
        return self._counts


def folded(parent: bytes) -> Dropped:
    """Letters and digits only, lower-cased: case and separators between characters are gone."""
    return Dropped(parent, _ALNUM, _LOWER)


def printable(parent: bytes) -> Dropped:
    """Every non-blank ASCII character: encodings wrapped over lines read as one."""
    return Dropped(parent, frozenset(range(0x21, 0x7F)))


def letters(parent: bytes) -> Dropped:
    """ASCII letters only, lower-cased: a shift of letters alone leaves digits where they were."""
    return Dropped(parent, _LETTERS, _LOWER)


def compatible(text: str) -> str:
    """`text` with each compatibility character as the ASCII character it is a form of.

    One character for one, so an offset in the result is one in `text`: NFKC's reading where it is
    one ASCII character (fullwidth, mathematical, circled, superscript letters and digits), else
    the base of its decomposition without its marks (``é`` as ``e``); other characters stay.
    """
    if text.isascii():
        return text
    table = {c: a for c in set(_NON_ASCII.findall(text)) if (a := _ascii_of(c)) is not None}
    if not table:
        return text
    # Only the characters that change are visited: str.translate would look up every one.
    wanted = re.compile("[" + "".join(re.escape(c) for c in table) + "]")
    return wanted.sub(lambda m: table[m.group()], text)


# Letters of other scripts drawn as Latin ones (Unicode's confusables, the common part): a secret
# spelled with a Cyrillic `а` or a Greek `Ο` reads as the Latin letters it shows.
_LOOK_ALIKES = dict(
    zip(
        "АВЕЅІЈКМНОРСТХУаеіјорсхуѕԁһӏԛԝΑΒΕΖΗΙΚΜΝΟΡΤΥΧαοριυνκ",
        "ABESIJKMHOPCTXYaeijopcxysdhlqwABEZHIKMNOPTYXaopiuvk",
        strict=True,
    )
)
# Blocks that spell ASCII at an offset: Unicode's tag characters (invisible) and the Braille
# patterns (one per byte value).
_OFFSETS = ((0xE0020, 0xE007E, 0xE0000), (0x2821, 0x287E, 0x2800))


@lru_cache(maxsize=4096)
def _ascii_of(char: str) -> str | None:
    if char in _LOOK_ALIKES:
        return _LOOK_ALIKES[char]
    point = ord(char)
    for first, last, offset in _OFFSETS:
        if first <= point <= last:
            return chr(point - offset)
    for form in ("NFKC", "NFKD"):
        read = unicodedata.normalize(form, char)
        base = "".join(c for c in read if not unicodedata.combining(c))
        if len(base) == 1 and base.isascii() and base.isprintable():
            return base
    return None


# An escape escaped again (as JSON writes one) is still one.
_ESCAPE = re2.compile(
    rb"\\{1,8}x([0-9A-Fa-f]{2})|\\{1,8}u\{?([0-9A-Fa-f]{4,6})\}?|\\{1,8}U([0-9A-Fa-f]{8})"
    rb"|\\{1,8}([0-3][0-7]{2})"
    rb"|%u([0-9A-Fa-f]{4})|%([0-9A-Fa-f]{2})|&#[xX]([0-9A-Fa-f]{1,6});?|&#([0-9]{1,7});?"
    rb"|&([A-Za-z][A-Za-z0-9]{1,31});|\b0[xX]([0-9A-Fa-f]{2})\b"
    rb"|\x1b\[[0-9;?]{0,32}[ -/]{0,4}[@-~]",  # a terminal colour or cursor code: no character
    QUIET,
)
_BASES = (16, 16, 16, 8, 16, 16, 16, 10)  # of the numeric groups above, in order
# Character codes in a row (`list(s.encode())`, `String.fromCharCode(...)`): 8 numbers or more.
# Between two codes: a comma or blanks, or a few signs and a function that makes a character of
# its code (`CHAR(115)+CHAR(101)`, `chr(115) . chr(101)`).
_CODES = re2.compile(
    rb"\b\d{1,7}(?:(?:[ \t]*,[ \t]*|[ \t]+|[^0-9A-Za-z\n]{1,6}(?:CHAR|CHR|char|chr)\()"
    rb"\d{1,7}){7,}\b",
    QUIET,
)
_NUMBER = re2.compile(rb"\d+", QUIET)
# Morse code: 8 or more letters of dots and dashes, apart by blanks (a `/` between words).
_MORSE_RUN = re2.compile(rb"(?:[.\-]{1,6}(?:[ \t]*/[ \t]*|[ \t]+)){7,}[.\-]{1,6}", QUIET)
_MORSE_CODE = re2.compile(rb"[.\-]{1,6}", QUIET)
_MORSE = dict(
    zip(
        b".- -... -.-. -.. . ..-. --. .... .. .--- -.- .-.. -- -. --- .--. --.- .-. ... - ..- ...-"
        b" .-- -..- -.-- --.. ----- .---- ..--- ...-- ....- ..... -.... --... ---.. ----.".split(),
        b"abcdefghijklmnopqrstuvwxyz0123456789",
        strict=True,
    )
)


class Unescaped:
    """The parent with each escape read as the character it stands for (one byte per escape)."""

    def __init__(self, parent: bytes, escapes: list[tuple[int, int, int]]) -> None:
        pieces, at, self._starts, self._ends = [], 0, [], []
        for start, end, byte in escapes:
            pieces.append(parent[at:start])
            self._starts.append(start)
            self._ends.append(end)
            pieces.append(bytes((byte,)))
            at = end
        pieces.append(parent[at:])
        self.data = b"".join(pieces)
        # Where each escape's byte sits in the view: its parent offset less what earlier ones saved.
        saved, self._views = 0, []
        for start, end in zip(self._starts, self._ends, strict=True):
            self._views.append(start - saved)
            saved += end - start - 1

    @classmethod
    def of(cls, parent: bytes) -> Unescaped | None:
        """The unescaped view of `parent`, or None when it holds no escape."""
        escapes = [(m.start(), m.end(), _decoded(m)) for m in _ESCAPE.finditer(parent)]
        escapes += [code for run in _CODES.finditer(parent) for code in _codes(run)]
        escapes += [code for run in _MORSE_RUN.finditer(parent) for code in _morse(run)]
        if not escapes:
            return None
        escapes.sort()
        kept, end = [], 0
        for escape in escapes:  # a number inside an escape (&#115;) is that escape's
            if escape[0] >= end:
                kept.append(escape)
                end = escape[1]
        return cls(parent, kept)

    def span(self, start: int, end: int) -> Span:
        """The part of the parent that the view's `[start, end)` was read from."""
        return self._origin(start)[0], self._origin(end - 1)[1]

    def _origin(self, index: int) -> Span:
        k = bisect_right(self._views, index) - 1
        if k < 0:
            return index, index + 1
        if self._views[k] == index:
            return self._starts[k], self._ends[k]
        parent = self._ends[k] + index - self._views[k] - 1
        return parent, parent + 1


def _decoded(match: re2._Match[bytes]) -> int:
    if match.group().startswith(b"\x1b"):
        return 0x20  # a blank, which the folded and printable views drop
    groups = match.groups()
    if groups[8] is not None:  # a named entity
        char = html.entities.html5.get(groups[8].decode("ascii") + ";", "?")
        return _byte(ord(char[0]))
    index = next(i for i, group in enumerate(groups) if group is not None)
    number = int(groups[index], _BASES[index] if index < 8 else 16)
    return _byte(number)


def _codes(run: re2._Match[bytes]) -> list[tuple[int, int, int]]:
    base = run.start()
    numbers = list(_NUMBER.finditer(run.group()))
    # Octal codes (`163 145 143`): every digit below 8, and some code no ASCII character has in
    # decimal.
    octal = all(not m.group().translate(None, b"01234567") for m in numbers) and any(
        int(m.group()) > 0x7F for m in numbers
    )
    radix = 8 if octal else 10
    # Each code takes the separator before it along (`)+CHAR(`): the view reads the characters
    # back to back, with no letters of a function's name between them.
    starts = [numbers[0].start(), *(m.end() for m in numbers[:-1])]
    return [
        (base + start, base + m.end(), _byte(int(m.group(), radix)))
        for start, m in zip(starts, numbers, strict=True)
    ]


def _morse(run: re2._Match[bytes]) -> list[tuple[int, int, int]]:
    base = run.start()
    return [
        (base + m.start(), base + m.end(), _MORSE.get(m.group(), ord("?")))
        for m in _MORSE_CODE.finditer(run.group())
    ]


def _byte(code: int) -> int:
    return code if code < 0x80 else ord("?")
