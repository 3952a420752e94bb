"""Where the known secrets are in a text, in whatever cheap form they were printed.

The text is searched as it is and unescaped (views.py), each in its folded and printable views;
its encoded blobs are decoded, decompressed and searched the same way, two layers deep (base64 of
gzip of hex …), and a blob holding a secret is reported whole.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate

import re2

from referee.tools.evidence.blobs import Budget, blobs
from referee.tools.evidence.forms import ViewName
from referee.tools.evidence.matcher import Hit, Matcher
from referee.tools.evidence.views import Dropped, Unescaped, folded, printable

__all__ = ["DEPTH", "SEALED", "find_secrets"]

DEPTH = 2  # layers of encoding unwrapped below the text itself
SEALED = "compressed"  # the label of a blob too large to inflate and inspect
# Text inside what a blob decodes to: what a form of a secret can be printed in. Most candidates are
# identifiers decoded as if they were base64, whose random bytes are left out (NUL counts as text:
# UTF-16 holds one in every other byte).
_TEXT = re2.compile(rb"[\x00\t\n\r\x20-\x7e]{8,}")
_VIEWS: tuple[tuple[ViewName, Callable[[bytes], Dropped]], ...] = (
    ("folded", folded),
    ("printable", printable),
)


def find_secrets(data: bytes, matcher: Matcher, depth: int = DEPTH) -> list[Hit]:
    """Every place in `data` (one byte per character) that shows a secret of `matcher`.

    Returns:
        The hits, in no particular order; they may overlap.
    """
    if not matcher:
        return []
    return _find(data, matcher, depth, Budget())


def _find(data: bytes, matcher: Matcher, depth: int, budget: Budget) -> list[Hit]:
    hits = _in_surface(data, matcher, depth, budget)
    unescaped = Unescaped.of(data)
    if unescaped is not None:
        for hit in _in_surface(unescaped.data, matcher, depth, budget):
            hits.append(Hit(*unescaped.span(hit.start, hit.end), hit.label))
    return hits


def _in_surface(data: bytes, matcher: Matcher, depth: int, budget: Budget) -> list[Hit]:
    hits = matcher.find("literal", data)
    for name, view in _VIEWS:
        if matcher.wants(name):
            seen = view(data)
            hits += [
                Hit(*seen.span(h.start, h.end), h.label) for h in matcher.find(name, seen.data)
            ]
    if depth > 0:
        hits += _in_blobs(data, matcher, depth, budget)
    return hits


def _in_blobs(data: bytes, matcher: Matcher, depth: int, budget: Budget) -> list[Hit]:
    """Hits in what the blobs of `data` decode to, each widened to its whole blob."""
    found = list(blobs(data, budget))
    hits = [Hit(b.start, b.end, SEALED) for b in found if b.sealed]
    decoded = [(number, text) for number, blob in enumerate(found) for text in blob.texts]
    # One pass over everything decoded: a byte no text holds keeps apart the texts of two blobs.
    raw = b"\x01".join(text for _, text in decoded)
    bounds = list(accumulate((len(text) + 1 for _, text in decoded), initial=0))
    runs, starts, owners, at = [], [], [], 0
    for match in _TEXT.finditer(raw):
        runs.append(match.group())
        starts.append(at)
        owners.append(decoded[bisect_right(bounds, match.start()) - 1][0])
        at += len(runs[-1]) + 1
    if not runs:
        return hits
    for hit in _find(b"\n".join(runs), matcher, depth - 1, budget):
        # A hit across two runs (the folded view drops the line break between) marks both.
        for index in {bisect_right(starts, hit.start) - 1, bisect_right(starts, hit.end - 1) - 1}:
            blob = found[owners[index]]
            hits.append(Hit(blob.start, blob.end, hit.label))
    return hits
