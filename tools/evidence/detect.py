"""Where the known secrets are in a text, in whatever cheap form they were printed.

The text is searched as it is and unescaped (views.py), each in its folded and printable views;
its encoded blobs are decoded, decompressed and searched the same way, two layers deep (base64 of
gzip of hex …), and a blob holding a secret is reported whole.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

from referee.tools.evidence.blobs import Blob, Budget, blobs
from referee.tools.evidence.forms import ViewName
from referee.tools.evidence.matcher import Hit, Matcher
from referee.tools.evidence.views import Dropped, Unescaped, folded, printable

__all__ = ["DEPTH", "SEALED", "find_secrets"]

DEPTH = 2  # layers of encoding unwrapped below the text itself
SEALED = "compressed"  # the label of a blob too large to inflate and inspect
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
    found: list[Blob] = []
    pieces: list[bytes] = []
    starts: list[int] = []  # where each piece begins in the joined text
    owners: list[int] = []  # the blob each piece came from
    at = 0
    for blob in blobs(data, budget):
        found.append(blob)
        for text in blob.texts:
            pieces.append(text)
            starts.append(at)
            owners.append(len(found) - 1)
            at += len(text) + 1
    hits = [Hit(b.start, b.end, SEALED) for b in found if b.sealed]
    if not pieces:
        return hits
    for hit in _find(b"\n".join(pieces), matcher, depth - 1, budget):
        # A hit across two pieces (the folded view drops the line break between) marks both.
        for index in {bisect_right(starts, hit.start) - 1, bisect_right(starts, hit.end - 1) - 1}:
            blob = found[owners[index]]
            hits.append(Hit(blob.start, blob.end, hit.label))
    return hits
