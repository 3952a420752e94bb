"""A path of the evaluated tree is any bytes the player chose, except NUL and `/` in a name.

It travels inside referee as a `str` holding those bytes (`os.fsdecode`: a byte that is not UTF-8
is a lone surrogate), so every file can be opened by its own name. It is turned into something
else at two kinds of boundary only, and each one has a single function here:

- a **line protocol** of a program (git's `--stdin-paths`, a configuration file with one path a
  line): `c_quoted`, git's own quoting, which no byte of a name can break out of (a line break, a
  leading `"`, a trailing carriage return all survive); where a program offers NUL-separated
  input or output (`-z`), that is used instead;
- **text shown** to a person or stored in a result: `shown` (tools/text.py), an escaped form that
  is valid UTF-8, one line, and never the same for two names.
"""

from __future__ import annotations

import os

__all__ = ["c_quoted"]

# git's unquote_c_style reads these escapes back; every other byte below 0x20, `"`, `\` and every
# byte from 0x7f up is written in octal, so the quoted form is plain printable ASCII.
_ESCAPES = {0x07: b"\\a", 0x08: b"\\b", 0x09: b"\\t", 0x0A: b"\\n", 0x0B: b"\\v"}
_ESCAPES |= {0x0C: b"\\f", 0x0D: b"\\r", 0x22: b'\\"', 0x5C: b"\\\\"}


def c_quoted(path: str) -> bytes:
    """`path` as git writes a quoted name (`"caf\\303\\251.py"`), always quoted, so git reads it
    back byte for byte from any line protocol that unquotes (hash-object --stdin-paths)."""
    out = bytearray(b'"')
    for byte in os.fsencode(path):
        if byte in _ESCAPES:
            out += _ESCAPES[byte]
        elif byte < 0x20 or byte >= 0x7F:
            out += b"\\%03o" % byte
        else:
            out.append(byte)
    return bytes(out + b'"')
