"""Where the known secrets are in a text, in whatever cheap form they were printed.

The text is searched as it is and unescaped (views.py), each in its folded (and decimated) and
printable views, the differences of its printable characters and of its letters (forms.py:
shifts), and its rows of symbols, for a secret under any one-for-one map (substitution.py); its
encoded blobs are decoded, decompressed and searched the same way, two layers deep (base64 of
gzip of hex …), and a blob holding a secret is reported whole.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

import re2

from referee.tools.evidence.blobs import Budget, decode_blobs
from referee.tools.evidence.forms import SHIFTS, ViewName, differences
from referee.tools.evidence.matcher import Hit, Matcher
from referee.tools.evidence.quiet import QUIET
from referee.tools.evidence.views import Dropped, Unescaped, folded, letters, printable

__all__ = ["DEPTH", "SEALED", "find_secrets"]

DEPTH = 2  # layers of encoding unwrapped below the text itself
SEALED = "compressed"  # the label of a blob too large to inflate and inspect
# Text inside what a blob decodes to: what a form of a secret can be printed in. Most candidates are
# identifiers decoded as if they were base64, whose random bytes are left out (NUL counts as text:
# UTF-16 holds one in every other byte).
_TEXT = re2.compile(rb"[\x00\t\n\r\x20-\x7e]{8,}", QUIET)
_VIEWS: tuple[tuple[ViewName, Callable[[bytes], Dropped]], ...] = (
    ("folded", folded),
    ("printable", printable),
)
# The difference views, and the view each is the differences of.
_SHIFTED: tuple[tuple[ViewName, Callable[[bytes], Dropped]], ...] = (
    ("shift94", printable),
    ("shift26", letters),
)
_DECIMATIONS = ((2, 0), (2, 1), (3, 0), (3, 1), (3, 2))  # (step, start)


def find_secrets(data: bytes, matcher: Matcher, depth: int = DEPTH) -> list[Hit]:
    """Every place in `data` (one byte per character) that shows a secret of `matcher`.

    Returns:
        The hits, in no particular order; they may overlap.
    """
    if not matcher:
        return []
    return _find(data, matcher, depth, Budget())


def _find(
    data: bytes, matcher: Matcher, depth: int, budget: Budget, surface: bool = True
) -> list[Hit]:
    hits = _in_surface(data, matcher, depth, budget, surface)
    unescaped = Unescaped.of(data)
    if unescaped is not None:
        for hit in _in_surface(unescaped.data, matcher, depth, budget, surface=False):
            hits.append(Hit(*unescaped.span(hit.start, hit.end), hit.label))
    return hits


def _in_surface(
    data: bytes, matcher: Matcher, depth: int, budget: Budget, surface: bool
) -> list[Hit]:
    """Hits in the views of `data`; at the `surface` (the text as printed, not its escapes read
    or what its blobs decode to) the decimations and differences too: a shift or a decimation
    of an escaped or encoded secret is two disguises deep, and these views would cost as much
    again in every reading."""
    hits = matcher.find("literal", data)
    # Under a map of its characters; words only at the surface (a blob decodes to characters).
    hits += [Hit(*found) for found in matcher.substitutions.find(data, words=surface)]
    for name, view in _VIEWS:
        if matcher.wants(name):
            seen = view(data)
            hits += [
                Hit(*seen.span(h.start, h.end), h.label) for h in matcher.find(name, seen.data)
            ]
            if surface:  # the printable view keeps the punctuation a folded one would skip
                hits += _decimated(seen, matcher, "folded" if name == "folded" else "literal")
    for name, view in _SHIFTED if surface else ():
        if matcher.wants(name):
            hits += _shifted(view(data), name, matcher)
    if depth > 0:
        hits += _in_blobs(data, matcher, depth, budget, surface)
    return hits


def _decimated(seen: Dropped, matcher: Matcher, forms: ViewName) -> list[Hit]:
    """Hits of `forms` in every 2nd and 3rd character of a view: a filler between each of the
    secret's characters drops out (a hit spans all it was read from)."""
    hits = []
    for step, start in _DECIMATIONS:
        for h in matcher.find(forms, seen.data[start::step]):
            first, last = start + h.start * step, start + (h.end - 1) * step
            hits.append(Hit(*seen.span(first, last + 1), h.label))
    return hits


def _shifted(seen: Dropped, name: ViewName, matcher: Matcher) -> list[Hit]:
    """Hits in the differences of a view: difference i is read from characters i and i + 1."""
    found = matcher.find(name, differences(seen.data, SHIFTS[name]))
    return [Hit(*seen.span(h.start, h.end + 1), h.label) for h in found]


def _in_blobs(
    data: bytes, matcher: Matcher, depth: int, budget: Budget, surface: bool
) -> list[Hit]:
    """Hits in what the blobs of `data` decode to, each widened to its whole blob."""
    decoded = decode_blobs(data, budget, lines=surface)
    hits = [Hit(*span, SEALED) for span in decoded.sealed]
    runs, joined_at, decoded_at, at = [], [], [], 0
    for match in _TEXT.finditer(decoded.data):
        runs.append(match.group())
        joined_at.append(at)
        decoded_at.append(match.start())
        at += len(runs[-1]) + 1
    if not runs:
        return hits

    def where(joined: int) -> int:  # the offset in the decoded bytes of an offset in the runs
        index = bisect_right(joined_at, joined) - 1
        return decoded_at[index] + joined - joined_at[index]

    for hit in _find(b"\n".join(runs), matcher, depth - 1, budget, surface=False):
        for span in decoded.owners(where(hit.start), where(hit.end - 1)):
            hits.append(Hit(*span, hit.label))
    return hits
