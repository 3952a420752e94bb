"""The cheap forms a secret can take in output, each cut into the fragments that give it away.

A hostile test that knows its output is redacted can print a secret disguised: reversed, rot13,
upper-cased, with a dot between characters, hex, UTF-16 hex, base64, base32, base85, one half per
line. Each form is searched in the view of the text it survives in (views.py):

- ``folded`` (ASCII letters and digits only, lower-cased): the value's own letters and digits,
  plain and rot13, so that case and any separator between characters are moot; hex of its UTF-8,
  UTF-16LE and UTF-16BE bytes; its bits as 0s and 1s; base32 at its five byte alignments;
- ``printable`` (every non-blank ASCII character, case kept): base64 and base64url at three byte
  alignments, base85 and ascii85 at four;
- ``literal`` (the text itself): the value as it is, for values that are mostly punctuation.

Every form is searched backwards too. Escaped, character-coded and encoded-then-compressed text
is read as what it stands for before it is searched (views.py, blobs.py).

A fragment is what 8 consecutive characters of the value become in the form: 8 characters of a
plain form, 16 hex digits, 10 base64 characters (always fully inside an 8-byte fragment, however
it is aligned), 12 base32 characters, two base85 groups (8 aligned bytes, any 11 bytes). The
matcher finds fragments by shorter seeds (`windows`) and grows each to its full length.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from typing import Literal, NamedTuple

__all__ = ["FRAGMENT", "Form", "ViewName", "secret_forms", "windows"]

ViewName = Literal["folded", "printable", "literal"]

FRAGMENT = 8  # characters of a secret that are worth hiding on their own
_SEEDS = 2  # a fragment holds 3 seeds, one of them where seeds start (see `windows`)
_SHORTEST_SEED = 5  # a shorter seed would be found everywhere, each find a wasted check
_MIN_WHOLE = 6  # a whole value shorter than this is ordinary text ("dev", "true")
_ALNUM = bytes(range(48, 58)) + bytes(range(65, 91)) + bytes(range(97, 123))
_NOT_ALNUM = bytes(set(range(256)) - set(_ALNUM))
_LOWER = bytes.maketrans(bytes(range(65, 91)), bytes(range(97, 123)))
_ROT13 = bytes.maketrans(b"abcdefghijklmnopqrstuvwxyz", b"nopqrstuvwxyzabcdefghijklm")


class Form(NamedTuple):
    """One spelling of a secret and the window length of its fragments."""

    view: ViewName
    text: bytes
    window: int
    step: int  # windows start every `step` characters (hex digits come in pairs)
    distinct: int = 4  # a window with fewer characters ("00000000") matches ordinary output


def secret_forms(value: str) -> list[Form]:
    """Every form of `value` worth searching for (none for a value too short to be a secret)."""
    raw = value.encode("utf-8")
    forms = [*_folded(value), *_printable(raw), *_literal(value)]
    # Every form also backwards: reversing is as cheap after encoding as before.
    forms += [form._replace(text=form.text[::-1]) for form in forms]
    unique = {(form.view, form.text): form for form in forms if form.window <= len(form.text)}
    return list(unique.values())


def windows(form: Form) -> Iterator[tuple[int, bytes]]:
    """The seeds of a form's fragments (offset, bytes), and the whole form, even a dull one.

    A fragment of `window` characters starting at a multiple of `step` holds 3 windows of
    `window - 2 * step` characters starting `step` apart, and one of them starts at a multiple of
    `3 * step`: those shorter seeds, a third as many, are what the automaton holds (it is built
    and warmed up faster), and a seed found is kept only if it grows to a whole fragment.
    """
    text, extra = form.text, _SEEDS * form.step
    size = form.window - extra if form.window - extra >= _SHORTEST_SEED else form.window
    stride = form.step * (_SEEDS + 1) if size < form.window else form.step
    yield 0, text
    for start in range(0, len(text) - size + 1, stride):
        window = text[start : start + size]
        if len(set(window)) >= form.distinct and len(window) < len(text):
            yield start, window


def _folded(value: str) -> Iterator[Form]:
    letters = value.encode("ascii", "ignore").translate(_LOWER, _NOT_ALNUM)
    if len(letters) >= _MIN_WHOLE:
        window = min(FRAGMENT, len(letters))
        yield Form("folded", letters, window, 1)
        yield Form("folded", letters.translate(_ROT13), window, 1)
    if len(value) < _MIN_WHOLE:
        return
    for codec, width in (("utf-8", 1), ("utf-16-le", 2), ("utf-16-be", 2)):
        data = value.encode(codec, "replace")
        window = 2 * width * min(FRAGMENT, len(data) // width)
        yield Form("folded", data.hex().encode("ascii"), window, 2 * width)
    data = value.encode("utf-8")
    bits = "".join(f"{byte:08b}" for byte in data).encode("ascii")
    yield Form("folded", bits, 8 * min(FRAGMENT, len(data)), 8, distinct=2)
    for core in _cores(value.encode("utf-8"), 5, base64.b32encode):
        yield Form("folded", core.translate(_LOWER), _core_window(12, len(core)), 1)


def _printable(raw: bytes) -> Iterator[Form]:
    if len(raw) < _MIN_WHOLE:
        return
    for core in _cores(raw, 6, base64.b64encode):
        window = _core_window(10, len(core))
        yield Form("printable", core, window, 1)
        url = core.translate(bytes.maketrans(b"+/", b"-_"))
        if url != core:
            yield Form("printable", url, window, 1)
    for encode in (base64.b85encode, base64.a85encode):
        for core in _groups(raw, encode):
            yield Form("printable", core, min(10, len(core)), 5)


def _literal(value: str) -> Iterator[Form]:
    if len(value) < _MIN_WHOLE:
        return
    text = value.encode("ascii", "replace")  # as the text is searched: one byte per character
    yield Form("literal", text, min(FRAGMENT, len(text)), 1)


def _core_window(size: int, core: int) -> int:
    # A short value's whole core counts if it is at least 8 characters: shorter ones match chance.
    return size if core >= size else (core if core >= FRAGMENT else size)


def _cores(raw: bytes, bits: int, encode: Callable[[bytes], bytes]) -> Iterator[bytes]:
    """The characters of `encode` fed by `raw` alone, at each byte alignment of a larger text.

    A character carries `bits` bits; those fed partly by the bytes before or after the value
    differ from one occurrence to the next, so only the middle is stable.
    """
    alignments = {6: 3, 5: 5}[bits]
    for offset in range(alignments):
        encoded = encode(b"\0" * offset + raw)
        start = -(-offset * 8 // bits)
        end = (offset + len(raw)) * 8 // bits
        yield encoded[start:end]


def _groups(raw: bytes, encode: Callable[[bytes], bytes]) -> Iterator[bytes]:
    """The base85 groups (4 bytes, 5 characters) wholly inside `raw`, at each of 4 alignments."""
    for offset in range(4):
        padded = b"\0" * offset + raw
        first, last = -(-offset // 4), len(padded) // 4
        yield b"".join(encode(padded[4 * g : 4 * g + 4]) for g in range(first, last))
