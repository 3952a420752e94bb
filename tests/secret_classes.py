"""Secrets printed in a disguise of one of the classes redaction reads as a class (forms.py,
views.py, blobs.py): a shift of every character (Caesar by any k, rot-N on letters, rot47), a
decimation (every k-th character, a filler between characters), adjacent characters swapped,
compatibility characters (fullwidth, mathematical, circled, accented), uuencode and xxencode.

`CLASSES` maps a variant to a Python expression over the secret `t` giving the pieces a hostile
test prints; `HELPERS` defines what the expressions use, in the test and in the check alike.
"""

from __future__ import annotations

import base64
import binascii
import codecs
from typing import Any

HELPERS = """
def shift(t, k):
    return "".join(chr(ord(c) + k) for c in t)


def rot_letters(t, k):
    out = []
    for c in t:
        if c.isascii() and c.isalpha():
            first = ord("a") if c.islower() else ord("A")
            c = chr(first + (ord(c) - first + k) % 26)
        out.append(c)
    return "".join(out)


def rot47(t):
    return "".join(chr(33 + (ord(c) - 33 + 47) % 94) if "!" <= c <= "~" else c for c in t)


def swapped(t, start=0):
    rest = t[start:]
    return t[:start] + "".join(rest[i + 1:i + 2] + rest[i] for i in range(0, len(rest), 2))


def styled(t, upper, lower, digit=None):
    out = []
    for c in t:
        if "A" <= c <= "Z":
            c = chr(upper + ord(c) - 65)
        elif "a" <= c <= "z":
            c = chr(lower + ord(c) - 97)
        elif digit is not None and "0" <= c <= "9":
            c = chr(digit + ord(c) - 48)
        out.append(c)
    return "".join(out)


def fullwidth(t):
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in t)


def uu_lines(data, backtick=False):
    return "".join(
        binascii.b2a_uu(data[i:i + 45], backtick=backtick).decode()
        for i in range(0, len(data), 45)
    )


XX = "+-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def xxencode(data):
    lines = uu_lines(data, backtick=True).splitlines()
    return "".join("".join(XX[(ord(c) - 32) & 63] for c in line) + "\\n" for line in lines)
"""

CLASSES: dict[str, str] = {
    "every other character, one half a line": "[t[::2], t[1::2]]",
    "every third character, one third a line": "[t[::3], t[1::3], t[2::3]]",
    "a letter between each character": "['q'.join(t)]",
    "a digit between each character": "['7'.join(t)]",
    "two letters between each character": "['zz'.join(t)]",
    "adjacent pairs swapped": "[swapped(t)]",
    "adjacent pairs swapped from the second character": "[swapped(t, 1)]",
    "a Caesar shift of one": "[shift(t, 1)]",
    "a Caesar shift of minus three": "[shift(t, -3)]",
    "rot47": "[rot47(t)]",
    "rot-5 on letters only": "[rot_letters(t, 5)]",
    "rot-7 on letters, upper-cased": "[rot_letters(t, 7).upper()]",
    "a Caesar shift of one, reversed": "[shift(t, 1)[::-1]]",
    "fullwidth characters": "[fullwidth(t)]",
    "fullwidth, reversed": "[fullwidth(t)[::-1]]",
    "mathematical bold letters and digits": "[styled(t, 0x1D400, 0x1D41A, 0x1D7CE)]",
    "circled letters": "[styled(t, 0x24B6, 0x24D0)]",
    "a combining accent on each letter": (
        "[''.join(c + '\\u0301' if c.isalpha() else c for c in t)]"
    ),
    "uuencode": "[uu_lines(t.encode())]",
    "uuencode with backticks, after other bytes": "[uu_lines(b'header: ' + t.encode(), True)]",
    "xxencode": "[xxencode(t.encode())]",
}


def pieces(expression: str, secret: str) -> list[str]:
    """What a check printing `expression` prints for `secret`."""
    scope: dict[str, Any] = {"base64": base64, "binascii": binascii, "codecs": codecs}
    exec(HELPERS, scope)
    return list(eval(expression, {**scope, "t": secret}))


def printing_script(expression: str, variable: str = "T") -> str:
    """A check's Python that prints the pieces, an unrelated line between each."""
    return (
        "import base64, binascii, codecs, os\n"
        + HELPERS
        + f"\nt = os.environ[{variable!r}]\n"
        + f"print('\\n--- unrelated line ---\\n'.join({expression}))\n"
    )
