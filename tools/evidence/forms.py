"""The forms a secret can take in output, so that redaction catches more than the plain value.

A hostile test that knows its output is redacted can print a secret encoded (base64, hex) or broken
across lines. For every value referee knows to be secret (secret-looking environment values, the
signing key, what betterleaks found) these forms are redacted too:

- base64 (standard and URL-safe): the value can sit at any of three offsets inside a longer encoded
  text, so the encoding of each offset is computed and only the characters that do not depend on
  the surrounding bytes are searched for;
- hex, lower and upper case;
- the value with a line break (and its indentation) or a single space between any two characters.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable

__all__ = ["encoded_forms", "split_pattern"]

_MIN_CORE = 8  # shorter encoded cores would match ordinary base64 text by chance
# Between two characters of a secret: a line break with the indentation around it, or one blank.
_GAP = r"(?:[ \t]*\r?\n[ \t]*|[ \t])?"


def encoded_forms(value: str) -> set[str]:
    """base64 cores (both alphabets, three offsets) and hex forms of `value`."""
    data = value.encode("utf-8")
    forms = {data.hex(), data.hex().upper()}
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + data).decode("ascii").rstrip("=")
        # Characters fed by the padding bytes at the start, or by unknown bytes after the end,
        # differ from one occurrence to the next: only the stable middle is searched for.
        start = -(-offset * 4 // 3) if offset else 0
        end = ((offset + len(data)) // 3) * 4
        core = encoded[start:end]
        if len(core) >= _MIN_CORE:
            forms.add(core)
            forms.add(core.replace("+", "-").replace("/", "_"))
    forms.discard(value)
    return {f for f in forms if len(f) >= _MIN_CORE}


def split_pattern(values: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern matching any of `values` broken by line breaks or single blanks."""
    parts = [_GAP.join(re.escape(ch) for ch in v) for v in sorted(values, key=len, reverse=True)]
    return re.compile("|".join(parts)) if parts else None
