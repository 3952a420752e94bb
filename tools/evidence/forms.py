"""The cheap forms a secret can take in output, each cut into the fragments that give it away.

A hostile test that knows its output is redacted can print a secret disguised: reversed, rot13,
upper-cased, with a dot between characters, hex, UTF-16 hex, base64, base32, base85, one half per
line. Each form is searched in the view of the text it survives in (views.py):

- ``folded`` (ASCII letters and digits only, lower-cased): the value's own letters and digits,
  plain and rot13, so that case and any separator between characters are moot; hex of its UTF-8,
  UTF-16LE and UTF-16BE bytes; its bits as 0s and 1s; base32 (and base32hex) at its five byte
  alignments;
- ``printable`` (every non-blank ASCII character, case kept): base64 and base64url at three byte
  alignments (and any letter shift of the base64, by its letters' differences), base85 and
  ascii85 at four;
- ``literal`` (the text itself): the value as it is, for values that are mostly punctuation.

Classes of forms rather than forms:

- shifts: ``shift94`` holds the differences of consecutive characters of the printable view (mod
  94), ``shift26`` those of its letters alone (lower-cased, mod 26). A shift of every character
  by the same amount (a Caesar shift by any k, rot47, rot-N on letters alone, in any case)
  leaves the differences as they were: one form in each catches them all;
- decimations: every 2nd to 5th character of the value, from each start (a secret printed
  as its odd and even characters), in the folded view; the text's own decimations are searched
  too (views.py), which catches a filler character between each of the value's;
- encodings that are one number (the value's bytes as a decimal integer, base36, base58): only
  the whole value, since no part of the value is a part of them;
- adjacent swaps: the value with each pair of neighbours swapped, from either start;
- compatibility forms (fullwidth, mathematical, circled letters) and uuencoded or xxencoded blobs
  are read back by the views (views.py, blobs.py) before anything is searched.

Every form is searched backwards too. Escaped, character-coded and encoded-then-compressed text
is read as what it stands for before it is searched (views.py, blobs.py).

A fragment is what 8 consecutive characters of the value become in the form: 8 characters of a
plain form, 16 hex digits, 10 base64 characters (always fully inside an 8-byte fragment, however
it is aligned), 12 base32 characters, two base85 groups (8 aligned bytes, any 11 bytes), 7
differences (9 of letters alone: a shorter run of letters is a shift of some English word). The
matcher finds fragments by shorter seeds (`windows`) and grows each to its full length. A caller
that hides longer stretches (a hold-out's lines) asks for longer fragments (`fragment`).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from typing import Literal, NamedTuple

__all__ = ["FRAGMENT", "SHIFTS", "Form", "ViewName", "differences", "secret_forms", "windows"]

ViewName = Literal["folded", "printable", "literal", "shift94", "shift26"]
# The difference views: the view each is taken of, and its modulus.
SHIFTS: dict[ViewName, int] = {"shift94": 94, "shift26": 26}

FRAGMENT = 8  # characters of a secret that are worth hiding on their own
_SEEDS = 2  # a fragment holds 3 seeds, one of them where seeds start (see `windows`)
_SHORTEST_SEED = 5  # a shorter seed would be found everywhere, each find a wasted check
_MIN_WHOLE = 6  # a whole value shorter than this is ordinary text ("dev", "true")
_ALNUM = bytes(range(48, 58)) + bytes(range(65, 91)) + bytes(range(97, 123))
_NOT_ALNUM = bytes(set(range(256)) - set(_ALNUM))
_LOWER = bytes.maketrans(bytes(range(65, 91)), bytes(range(97, 123)))
_ATBASH = bytes.maketrans(b"abcdefghijklmnopqrstuvwxyz", b"zyxwvutsrqponmlkjihgfedcba")
_ROT13 = bytes.maketrans(b"abcdefghijklmnopqrstuvwxyz", b"nopqrstuvwxyzabcdefghijklm")
_NOT_PRINTABLE = bytes(set(range(256)) - set(range(0x21, 0x7F)))
_NOT_LETTER = bytes(set(range(256)) - set(range(65, 91)) - set(range(97, 123)))
_LETTERS_EXTRA = 2  # a run of letters must be this much longer than a fragment to count
_DECIMATIONS = (2, 3, 4, 5)  # every k-th character of a value, printed apart
_BASE58 = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BASE36 = b"0123456789abcdefghijklmnopqrstuvwxyz"
_BASE62 = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_Z85 = bytes.maketrans(
    bytes(range(33, 118)),
    b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#",
)


class Form(NamedTuple):
    """One spelling of a secret and the window length of its fragments."""

    view: ViewName
    text: bytes
    window: int
    step: int  # windows start every `step` characters (hex digits come in pairs)
    distinct: int = 4  # a window with fewer characters ("00000000") matches ordinary output


def secret_forms(value: str, fragment: int = FRAGMENT, plain: bool = True) -> list[Form]:
    """Every form of `value` worth searching for (none for a value too short to be a secret).

    Args:
        value: The secret.
        fragment: Characters of the value that are worth hiding on their own.
        plain: Include the value as it is (folded and literal); without, only its disguises.
    """
    raw = value.encode("utf-8")
    forms = [*_folded(value, fragment), *_printable(raw, fragment), *_literal(value, fragment)]
    forms += _rearranged(value, fragment)
    if not plain:
        plainly = {_fold(value), value.encode("ascii", "replace")}
        forms = [f for f in forms if f.text not in plainly]
    # Every form also backwards: reversing is as cheap after encoding as before.
    forms += [form._replace(text=form.text[::-1]) for form in forms]
    # A difference view of the value backwards is not its differences backwards: made apart.
    forms += [*_shifts(value, fragment), *_shifts(value[::-1], fragment)]
    unique = {(form.view, form.text): form for form in forms if form.window <= len(form.text)}
    return list(unique.values())


def differences(data: bytes, modulus: int) -> bytes:
    """The differences of consecutive bytes of `data` (ASCII), mod `modulus`, one byte each.

    In C speed whatever the size: with 128 added to each byte of the later ones, one big-integer
    subtraction leaves every byte's own difference (+128) in place, with no borrow between
    bytes.
    """
    if len(data) < 2:
        return b""
    later = int.from_bytes(data[1:].translate(_PLUS_128), "big")
    return (
        (later - int.from_bytes(data[:-1], "big"))
        .to_bytes(len(data) - 1, "big")
        .translate(_MOD[modulus])
    )


_PLUS_128 = bytes((b + 128) % 256 for b in range(256))
_MOD = {m: bytes((b - 128) % m for b in range(256)) for m in SHIFTS.values()}


def _fold(value: str) -> bytes:
    return value.encode("ascii", "ignore").translate(_LOWER, _NOT_ALNUM)


def _shifts(value: str, fragment: int) -> Iterator[Form]:
    raw = value.encode("ascii", "ignore")
    kinds: tuple[tuple[ViewName, bytes, int], ...] = (
        ("shift94", raw.translate(None, _NOT_PRINTABLE), 0),
        ("shift26", raw.translate(_LOWER, _NOT_LETTER), _LETTERS_EXTRA),
    )
    for view, kept, extra in kinds:
        if len(kept) >= max(_MIN_WHOLE, fragment + extra):
            yield Form(view, differences(kept, SHIFTS[view]), fragment + extra - 1, 1, 3)


def _rearranged(value: str, fragment: int) -> Iterator[Form]:
    """The value's decimations and adjacent swaps, folded (printed apart or reordered)."""
    pieces = [value[start::step] for step in _DECIMATIONS for start in range(step)]
    pieces += [_swapped(value, start) for start in (0, 1)]
    for piece in pieces:
        letters = _fold(piece)
        if len(letters) >= fragment:
            yield Form("folded", letters, fragment, 1)


def _swapped(value: str, start: int) -> str:
    head, rest = value[:start], value[start:]
    return head + "".join(rest[i + 1 : i + 2] + rest[i] for i in range(0, len(rest), 2))


def windows(form: Form) -> Iterator[tuple[int, bytes]]:
    """The seeds of a form's fragments (offset, bytes), and the whole form, even a dull one.

    A fragment of `window` characters starting at a multiple of `step` holds 3 windows of
    `window - 2 * step` characters starting `step` apart, and one of them starts at a multiple of
    `3 * step`: those shorter seeds, a third as many, are what the automaton holds (it is built
    and warmed up faster), and a seed found is kept only if it grows to a whole fragment. Where the
    seed at a multiple of `3 * step` is dull (too few distinct characters to hold), its two
    neighbours stand in for it, and where they are dull too, the whole fragments that could hold
    it: a fragment with a dull stretch that is not dull as a whole still has a seed.
    """
    text, extra = form.text, _SEEDS * form.step
    size = form.window - extra if form.window - extra >= _SHORTEST_SEED else form.window
    stride = form.step * (_SEEDS + 1) if size < form.window else form.step
    yield 0, text
    whole: set[int] = set()
    for base in range(0, len(text) - size + 1, stride):
        for start in range(base, min(base + stride, len(text) - size + 1), form.step):
            window = text[start : start + size]
            if len(set(window)) >= form.distinct and len(window) < len(text):
                yield start, window
                break
        else:
            whole.update(range(max(0, base - extra), base + stride, form.step))
    for start in sorted(whole):
        window = text[start : start + form.window]
        if len(window) == form.window < len(text) and len(set(window)) >= form.distinct:
            yield start, window


def _folded(value: str, fragment: int) -> Iterator[Form]:
    letters = _fold(value)
    if len(letters) >= _MIN_WHOLE:
        window = min(fragment, len(letters))
        yield Form("folded", letters, window, 1)
        yield Form("folded", letters.translate(_ROT13), window, 1)
        yield Form("folded", letters.translate(_ATBASH), window, 1)  # the mirrored alphabet
    if len(value) < _MIN_WHOLE:
        return
    for codec, width in (("utf-8", 1), ("utf-16-le", 2), ("utf-16-be", 2)):
        data = value.encode(codec, "replace")
        window = 2 * width * min(fragment, len(data) // width)
        yield Form("folded", data.hex().encode("ascii"), window, 2 * width)
    data = value.encode("utf-8")
    bits = "".join(f"{byte:08b}" for byte in data).encode("ascii")
    yield Form("folded", bits, 8 * min(fragment, len(data)), 8, distinct=2)
    for encode in (base64.b32encode, base64.b32hexencode):
        for core in _cores(value.encode("utf-8"), 5, encode):
            yield Form(
                "folded", core.translate(_LOWER), _core_window(_inside(fragment, 5), len(core)), 1
            )
    # The value read as one number: no part of it gives a fragment away, only the whole does.
    number = int.from_bytes(data, "big")
    yield Form("folded", str(number).encode("ascii"), len(str(number)), 1)
    base36 = _digits(number, _BASE36)
    yield Form("folded", base36, len(base36), 1)


def _printable(raw: bytes, fragment: int) -> Iterator[Form]:
    if len(raw) < _MIN_WHOLE:
        return
    for core in _cores(raw, 6, base64.b64encode):
        window = _core_window(_inside(fragment, 6), len(core))
        yield Form("printable", core, window, 1)
        # A letter shift of the encoding (rot13 of base64): its letters' differences stay.
        shifted = core.translate(_LOWER, _NOT_LETTER)
        if len(shifted) >= window + _LETTERS_EXTRA:
            yield Form("shift26", differences(shifted, 26), window + _LETTERS_EXTRA - 1, 1, 3)
        url = core.translate(bytes.maketrans(b"+/", b"-_"))
        if url != core:
            yield Form("printable", url, window, 1)
    for alphabet in (_BASE58, _BASE62):
        whole = _digits(int.from_bytes(raw, "big"), alphabet)
        yield Form("printable", whole, len(whole), 1)
    groups = 10 if fragment == FRAGMENT else 5 * ((fragment - 3) // 4)
    for encode in (base64.b85encode, base64.a85encode, _z85):
        for core in _groups(raw, encode):
            yield Form("printable", core, min(groups, len(core)), 5)


def _z85(data: bytes) -> bytes:
    """ZeroMQ's base85 (Z85): ascii85's groups in another alphabet."""
    return base64.a85encode(data).translate(_Z85)


def _literal(value: str, fragment: int) -> Iterator[Form]:
    if len(value) < _MIN_WHOLE:
        return
    text = value.encode("ascii", "replace")  # as the text is searched: one byte per character
    yield Form("literal", text, min(fragment, len(text)), 1)


def _inside(fragment: int, bits: int) -> int:
    """Characters of an encoding of `bits` bits each wholly inside any `fragment` bytes, however
    aligned (the grid may start up to 4 bits into the first byte): 10 base64 and 12 base32
    characters in 8 bytes."""
    return (8 * fragment - 4) // bits


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


def _digits(number: int, alphabet: bytes) -> bytes:
    """`number` written in the base of `alphabet` (base58, base36)."""
    radix, out = len(alphabet), bytearray()
    while number:
        number, digit = divmod(number, radix)
        out.append(alphabet[digit])
    return bytes(reversed(out)) or alphabet[:1]
