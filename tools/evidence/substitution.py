"""A secret under a one-for-one substitution: each of its characters replaced by another symbol,
the same one wherever the character recurs. Xor with a constant, each code plus one, a cipher
alphabet, each byte mapped and printed as two hex digits, each character written as a word (NATO
words, its code, its Unicode name) between separators: a hostile test can invent such a map
without end, and no list of forms (forms.py) can hold them all.

What every such map keeps is the value's pattern of repeats: for each character, how far back
the same character last occurred (0: not before). A window of symbols is the value under some
map exactly when the window's own pattern, with every distance that reaches outside the window
read as 0, is the value's (parameterised matching). So one pattern per value is searched, for
every map at once, in the text read as rows of symbols: its characters, pairs of hex digits,
words between blanks or another separator, lines.

The characters are most of the text, and a step of Python per character would cost more than
every other view together. They are searched in two passes: which of the 16 characters before each
one are the same character is worked out for the whole text at once by big-integer arithmetic (a
few passes in C), an RE2 automaton finds the windows whose near repeats are the value's, and only
those few windows have their whole pattern read. The other rows are short and are read whole.

A pattern says little when the value has few repeats and the row's symbols seldom repeat either
(words of prose), so a value is searched only where chance would hardly give its pattern
(`_ODDS`): among characters, almost any value of 20 characters or more; among words, only one
with many repeats. Only whole values are searched: a half of a value under a map is not found.
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import NamedTuple, cast

import re2

from referee.tools.evidence.quiet import QUIET

__all__ = ["Substitutions", "near_repeats", "pattern"]

_CAP = 255  # distances are one byte; a farther repeat reads as none, in the value and the text
_SHORTEST = 20  # characters of a value worth searching under a map
# How rare a value's pattern must be, as log10 of the chance that a window of random symbols
# shows it, and the alphabet that chance is reckoned with: random identifiers for characters (64
# symbols), a prose vocabulary for words (whose repeats are rare, so a pattern of no repeats is
# no evidence there).
_ODDS = {"symbols": (64, -7.0), "words": (500, -10.0)}
_NEAR_BYTES = 2  # the first pass over characters reads repeats up to 16 back, one bit each
# A byte that is 0 (two equal characters) made the bit of its distance, every other byte 0.
_SAME = tuple(bytes([0x80 >> bit] + [0] * 255) for bit in range(8))
_LINE = re.compile(rb"[^\n]+")
_HEX = re.compile(rb"[0-9A-Fa-f]{%d,}" % (2 * _SHORTEST))
# Words between blanks or one separator, in each line that holds enough of the separator.
_SEPARATORS = tuple(
    (
        re2.compile(rb"[^\n]*(?:%s[^\n]*){%d,}" % (re.escape(separator), _SHORTEST - 1), QUIET),
        re.compile(word),
    )
    for separator, word in (
        (b" ", rb"\S+"),
        (b";", rb"[^;]+"),
        (b",", rb"[^,]+"),
        (b"|", rb"[^|]+"),
        (b"-", rb"[^-\s]+"),
        (b":", rb"[^:]+"),
    )
)


class _Row(NamedTuple):
    """Symbols read from the text: each from `width` characters from `start` on, one after
    another; or (words) each a match of `word` in the text from `start` on, blanks stripped, the
    empty ones left out."""

    kind: str  # "symbols" or "words"
    symbols: Sequence[Hashable]
    start: int = 0
    width: int = 1
    text: bytes = b""
    word: re.Pattern[bytes] | None = None

    def span(self, first: int, last: int) -> tuple[int, int]:
        """The characters that symbols `first` to `last` were read from. Where words were read
        from is found again only here: a row seldom holds a secret."""
        if self.word is None:
            return self.start + first * self.width, self.start + (last + 1) * self.width
        found = [m for m in self.word.finditer(self.text) if m.group().strip()]
        return self.start + found[first].start(), self.start + found[last].end()


def pattern(symbols: Sequence[Hashable]) -> bytes:
    """How far back each symbol last occurred, one byte each (0: not within `_CAP`)."""
    last: dict[Hashable, int] = {}
    out = bytearray(len(symbols))
    for i, symbol in enumerate(symbols):
        before = last.get(symbol)
        if before is not None and i - before <= _CAP:
            out[i] = i - before
        last[symbol] = i
    return bytes(out)


def _log_odds(shape: bytes, alphabet: int) -> float:
    """log10 of the chance that `len(shape)` random symbols of `alphabet` show the pattern."""
    repeats = sum(1 for d in shape if d)
    distinct = len(shape) - repeats
    if distinct > alphabet:
        return -math.inf
    odds = repeats * math.log10(1 / alphabet)
    odds += sum(math.log10(1 - j / alphabet) for j in range(distinct))
    return odds


def _regex(shape: bytes) -> bytes:
    """The pattern as RE2 over distance bytes: a repeat at exactly its distance; a first
    occurrence (within the window) no repeat at all, or one from before the window."""
    parts = []
    for k, distance in enumerate(shape):
        if distance:
            parts.append(b"\\x%02x" % distance)
        elif k < _CAP:
            parts.append(b"[\\x00\\x%02x-\\xff]" % (k + 1))
        else:
            parts.append(b"\\x00")
    return b"".join(parts)


def _options() -> re2.Options:
    options = re2.Options()
    # One byte per distance, up to 255 (google-re2-stubs do not know the enum).
    options.encoding = re2.Options.Encoding.LATIN1  # type: ignore[attr-defined]
    options.never_capture = True
    # Room for the automaton of every pattern at once; with less, RE2 falls back to a slower
    # engine and says so on stderr.
    options.max_mem = 256 << 20
    options.log_errors = False
    return options


class _Search:
    """Some patterns searched as one: an automaton finds where any of them starts, and a set
    anchored there says which."""

    def __init__(self, unit: int = 1) -> None:
        self.unit = unit  # bytes searched per symbol
        self.wanted: list[tuple[bytes, str]] = []  # each pattern, and its value's label
        self._regexes: list[bytes] = []
        self._any: re2._Regexp[bytes] | None = None
        self._which: re2.Set | None = None
        self._widest = 0

    def add(self, shape: bytes, regex: bytes, label: str) -> None:
        self.wanted.append((shape, label))
        self._regexes.append(regex)

    def compile(self) -> None:
        options = _options()
        self._any = re2.compile(b"|".join(b"(?:%s)" % r for r in self._regexes), options)
        self._which = re2.Set.MatchSet(options)
        for regex in self._regexes:
            self._which.Add(regex)
        self._which.Compile()
        self._widest = self.unit * max(len(shape) for shape, _ in self.wanted)

    def starts(self, data: bytes) -> Iterator[tuple[int, bytes, str]]:
        """Each place a pattern starts at, with the pattern and its label. Places may overlap:
        one that is no value must not hide one that is."""
        assert self._any is not None and self._which is not None
        widest, at = self._widest, 0
        while (found := self._any.search(data, at)) is not None:
            start = found.start()
            if start % self.unit == 0:
                # (the stubs type Match as a bool; it gives the indices of the patterns matched)
                matched = cast("list[int] | None", self._which.Match(data[start : start + widest]))
                for index in matched or ():
                    yield start // self.unit, *self.wanted[index]
            at = start + 1


class Substitutions:
    """The patterns of some secrets, searched for in the rows of symbols of a text."""

    def __init__(self, secrets: Mapping[str, str]) -> None:
        """Args:
        secrets: Secret values and the label each is redacted with.
        """
        self._searches: dict[str, _Search] = {}
        for value, label in sorted(secrets.items()):
            if len(value) < _SHORTEST:
                continue
            for kind, (alphabet, rarest) in _ODDS.items():
                # Backwards too: the map of the reversed value is no other class of form.
                for shape in {pattern(value[:_CAP]), pattern(value[::-1][:_CAP])}:
                    if _log_odds(shape, alphabet) <= rarest:
                        self._search(kind).add(shape, _regex(shape), label)
                        if kind == "symbols":
                            self._search("characters").add(shape, _near_regex(shape), label)
        for search in self._searches.values():
            search.compile()

    def _search(self, kind: str) -> _Search:
        unit = _NEAR_BYTES if kind == "characters" else 1
        return self._searches.setdefault(kind, _Search(unit))

    def __bool__(self) -> bool:
        return bool(self._searches)

    def find(self, data: bytes, words: bool = True) -> Iterator[tuple[int, int, str]]:
        """Every span of `data` (one byte per character) that shows a secret under a map, with
        its label; `words` False reads characters and hex pairs only."""
        characters = self._searches.get("characters")
        if characters is not None and len(data) >= _SHORTEST:
            for start, shape, label in characters.starts(near_repeats(data)):
                if pattern(data[start : start + len(shape)]) == shape:
                    yield start, start + len(shape), label
        for row in _rows(data, words):
            search = self._searches.get(row.kind)
            if search is not None and len(row.symbols) >= _SHORTEST:
                for start, shape, label in search.starts(pattern(row.symbols)):
                    yield (*row.span(start, start + len(shape) - 1), label)


def near_repeats(data: bytes) -> bytes:
    """For each byte of `data`, which of the 16 bytes before it are the same byte, in
    `_NEAR_BYTES` bytes, nearest first and highest bit first: bit 7 - (d - 1) % 8 of byte
    (d - 1) // 8 is set when byte i is byte i - d.
    Whole-text integer arithmetic: the text as one integer, xor-ed with itself shifted by d
    bytes, is 0 exactly in the bytes where the two agree."""
    size, whole = len(data), int.from_bytes(data, "little")
    out = bytearray(size * _NEAR_BYTES)
    for part in range(_NEAR_BYTES):
        found = 0
        for bit in range(8):
            distance = 8 * part + bit + 1
            differs = (whole ^ (whole << (8 * distance))).to_bytes(size + distance, "little")
            found |= int.from_bytes(differs.translate(_SAME[bit]), "little")
        # The bytes past `size` compared the text's end with nothing: dropped.
        out[part::_NEAR_BYTES] = found.to_bytes(size + 8 * _NEAR_BYTES, "little")[:size]
    return bytes(out)


def _near_regex(shape: bytes) -> bytes:
    """The pattern's near repeats as RE2 over `near_repeats`: at each place, the bits of the
    distances inside the window must be the pattern's (every earlier place of the same
    character within 16, not only the nearest); a distance reaching before the window may be
    anything."""
    parts = []
    for k in range(len(shape)):
        same = _earlier(shape, k)
        for part in range(_NEAR_BYTES):
            low = 8 * part + 1  # the distance of the byte's highest bit
            inside = max(0, min(k - low + 1, 8))  # how many of its distances lie in the window
            want = sum(0x80 >> (d - low) for d in same if low <= d < low + 8)
            # The bits inside are the byte's highest: the bytes allowed are one range.
            parts.append(b"[\\x%02x-\\x%02x]" % (want, want + (1 << (8 - inside)) - 1))
    return b"".join(parts)


def _earlier(shape: bytes, k: int) -> list[int]:
    """How far back each earlier place of the same character as place `k` lies."""
    found, at = [], k
    while shape[at]:
        at -= shape[at]
        found.append(k - at)
    return found


def _rows(data: bytes, words: bool) -> Iterator[_Row]:
    """The rows of symbols other than characters a map of a secret's can be printed as."""
    for run in _HEX.finditer(data):
        for align in (0, 1):
            digits = run.group()[align:]
            pairs = [digits[i : i + 2] for i in range(0, len(digits) - 1, 2)]
            yield _Row("symbols", pairs, run.start() + align, 2)
    if not words:
        return
    for lines, word in _SEPARATORS:
        for line in lines.finditer(data):
            yield _words(line.group(), line.start(), word)
    yield _words(data, 0, _LINE)


def _words(text: bytes, start: int, word: re.Pattern[bytes]) -> _Row:
    symbols = [w for w in (found.strip() for found in word.findall(text)) if w]
    return _Row("words", symbols, start, text=text, word=word)
