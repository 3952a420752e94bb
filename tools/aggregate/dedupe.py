"""Finding the same issue reported by several evaluators.

Two issues are the same when they point at the same place **and** say the same thing:
- place: the same file with line ranges at most `LINE_SLACK` lines apart (a file-level issue
  matches any line of its file), or neither has a location;
- words: after lowercasing and removing punctuation, digits and filler words, the token sets
  overlap with a Jaccard index of at least `JACCARD_MIN`, or the texts match with a difflib
  ratio of at least `RATIO_MIN` (catches reworded inflections the token sets miss).
The place test carries most of the weight; the word test only keeps two different problems on
the same lines apart. docs/aggregation.md explains the thresholds.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import NamedTuple

LINE_SLACK = 3
JACCARD_MIN = 0.5
RATIO_MIN = 0.8

_LOCATION = re.compile(r"^(?P<file>.*?):(?P<start>\d+)(?:[-:](?P<end>\d+))?$")
_NOT_LETTERS = re.compile(r"[^a-z]+")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "and",
        "or",
        "but",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "as",
        "not",
        "no",
        "into",
        "than",
        "then",
        "so",
        "such",
        "can",
        "could",
        "should",
        "would",
        "may",
        "might",
        "must",
        "will",
        "does",
        "do",
        "did",
        "has",
        "have",
        "had",
        "when",
        "where",
        "which",
        "who",
        "what",
        "while",
    ]
)


class Place(NamedTuple):
    """Where an issue is: a file and an optional line range."""

    file: str
    start: int | None
    end: int | None


def place_of(location: str | None) -> Place | None:
    """Parse "file:line", "file:start-end", "file:line:col" or a bare file; None for no location.

    Args:
        location: The issue's location as written.

    Returns:
        The place, or None when the issue has no location.
    """
    if location is None or not location.strip():
        return None
    raw = location.strip().replace("\\", "/")
    match = _LOCATION.match(raw)
    if match is None:
        return Place(_clean_file(raw), None, None)
    start = int(match["start"])
    # "file:12:5" is line 12, column 5; "file:12-18" is a range.
    end = int(match["end"]) if match["end"] and "-" in raw[match.start("end") - 1] else start
    return Place(_clean_file(match["file"]), start, max(start, end))


def _clean_file(name: str) -> str:
    return name.removeprefix("./").strip()


def same_place(a: str | None, b: str | None) -> bool:
    """Return True when two locations point at the same code (or both are absent)."""
    pa, pb = place_of(a), place_of(b)
    if pa is None or pb is None:
        return pa is None and pb is None
    if pa.file != pb.file:
        return False
    if pa.start is None or pb.start is None or pa.end is None or pb.end is None:
        return True
    gap = max(pa.start, pb.start) - min(pa.end, pb.end)
    return gap <= LINE_SLACK


def tokens(text: str) -> frozenset[str]:
    """Return the meaningful words of a description: lowercase, no punctuation, digits or
    fillers."""
    words = _NOT_LETTERS.sub(" ", text.lower()).split()
    return frozenset(_stem(w) for w in words if w not in _STOPWORDS)


def _stem(word: str) -> str:
    # Enough to match "inputs"/"input" and "validates"/"validate"; not a real stemmer.
    for suffix in ("ing", "es", "ed", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


class Similarity(NamedTuple):
    """Two measures of how alike two descriptions are, each 0 to 1."""

    jaccard: float
    """Shared meaningful words over all meaningful words."""
    ratio: float
    """difflib's ratio of the sorted meaningful words (tolerates inflections and typos)."""


def similarity(a: str, b: str) -> Similarity:
    """Return how alike two descriptions are, by token-set Jaccard and by difflib ratio."""
    ta, tb = tokens(a), tokens(b)
    if not ta and not tb:
        same = 1.0 if _flat(a) == _flat(b) else 0.0
        return Similarity(same, same)
    jaccard = len(ta & tb) / len(ta | tb)
    return Similarity(
        jaccard, SequenceMatcher(None, " ".join(sorted(ta)), " ".join(sorted(tb))).ratio()
    )


def _flat(text: str) -> str:
    return " ".join(_NOT_LETTERS.sub(" ", text.lower()).split())


def same_words(a: str, b: str) -> bool:
    """Return True when two descriptions say the same thing (Jaccard >= JACCARD_MIN or ratio >=
    RATIO_MIN)."""
    measured = similarity(a, b)
    return measured.jaccard >= JACCARD_MIN or measured.ratio >= RATIO_MIN


def duplicates(a_location: str | None, a_text: str, b_location: str | None, b_text: str) -> bool:
    """Return True when two issues are the same issue: same place and same words."""
    return same_place(a_location, b_location) and same_words(a_text, b_text)
