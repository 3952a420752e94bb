"""What a hold-out's runs produced, and its files say, recognised when an issue repeats it.

A judge reads the evaluator view: a hold-out run's output, its tests' names and messages, its exit
code and reason, the names of the files it wrote (`tree_changed.holdout_paths`); it may read the
hold-out's files too. Code under test reads the hold-out while it is laid over the tree and can
spell it in any of these, so an issue that repeats any of it would carry the hold-out to the
generator: it is withheld (`holdout_leak`).

An issue repeats a hold-out when it shares a stretch of `WINDOW` characters or more with it (case
and spacing aside), or holds a whole shorter line of it, and that stretch is not also something
an ordinary run showed: its output, the names it wrote, the generator's view of the contract.
The generator's own files are not among
those: code that read the hidden test can answer by choosing which of its own lines, names or
messages the hold-out's run prints, and the choice is the secret. A value shorter than the window
is recognised by itself: a token of the hold-out's output that holds a digit (`10**20`, `-1e9`,
`0x1f`; three characters or more) and that no ordinary run showed. (A name alone is not: the
generator's identifiers, printed in a hidden traceback, are what a judge names the code by.)
So a generator's line quoted from a hold-out's traceback is withheld unless a visible
run printed it too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from referee.tools.aggregate.numbers import magnitudes, spelled_out
from referee.tools.create_contract.views import generator_view
from referee.tools.models.contract import Contract
from referee.tools.models.evidence import EvidenceItem
from referee.tools.store import StoredRun

__all__ = ["HoldoutOutput", "holdout_output"]

WINDOW = 20  # characters in a row: a quoted value, a name, a line, not a common phrase
_SHORT = 12  # a line this long, shorter than WINDOW, counts as a whole
_SOURCE_LIMIT = 1024 * 1024  # a changed file larger than this is not read
_PLACE = re.compile(r"[\w./-]+\.\w+:\d+")
# A token: what lies between spaces, brackets, quotes, commas and operators of comparison.
_SPLIT = re.compile(r"[\s,;:()\[\]{}'\"`=<>!|&]+")
_LONG_NUMBER = re.compile(r"(?<![\d.])\d{6,}(?![\d.])")
_VALUE_MIN = 3  # `-1` and `42` say too little; `1e9`, `-17`, `10**20` say what was asked
_WHY = "repeats a hold-out: its files, or what its run printed, reported or wrote"


@dataclass(frozen=True)
class HoldoutOutput:
    """What hold-out runs produced and the generator cannot see, folded (casefold, one space)."""

    produced: str = ""
    """All of it, one text a line."""
    known: str = ""
    """What the generator can see anyway, one text a line."""
    lines: frozenset[str] = frozenset()
    """Its lines shorter than WINDOW (and at least _SHORT long)."""
    values: frozenset[str] = frozenset()
    """Its value-like tokens (`value_tokens`) that nothing the generator sees holds."""

    def repeated(self, text: str | None) -> str | None:
        """Why `text` repeats a hold-out's files or what its run produced, or None."""
        if not text or not self.produced:
            return None
        folded = fold(text)
        for start in range(len(folded) - WINDOW + 1):
            piece = folded[start : start + WINDOW]
            if piece in self.produced and piece not in self.known:
                return _WHY
        for line in self.lines:
            if line in folded and re.search(rf"(?<!\w){re.escape(line)}(?!\w)", folded):
                return _WHY
        if value_tokens(folded) & self.values:
            return _WHY
        for place in _PLACE.findall(folded):
            # A file and line a hold-out's run reported (its traceback), shorter than WINDOW:
            # which line failed can be what the code chose to say.
            if re.search(rf"(?<![\w/.]){re.escape(place)}(?!\d)", self.produced) and not re.search(
                rf"(?<![\w/.]){re.escape(place)}(?!\d)", self.known
            ):
                return _WHY
        return None


def holdout_output(
    contract: Contract, runs: Iterable[StoredRun], files: Iterable[str] = ()
) -> HoldoutOutput:
    """What the hold-out runs among `runs` produced (and what the hold-out `files` say) that the
    generator cannot see otherwise."""
    hidden_ids = {c.id for c in contract.all_criteria() if c.holdout}
    produced: list[str] = list(files)
    known = [json.dumps(generator_view(contract), ensure_ascii=False)]
    for run in runs:
        hidden = hidden_ids | {c.id for c in run.evaluation.criteria if c.holdout}
        produced += run.evaluation.tree_changed.holdout_paths
        known += run.evaluation.tree_changed.paths
        for result in run.evaluation.criteria:
            (produced if result.id in hidden else known).append(result.reason)
        for item in run.evidence.values():
            (produced if item.holdout or item.criterion_id in hidden else known).extend(
                _texts(item)
            )
    # Whole texts, folded: a stretch may run across a line break (a quoted traceback, a source
    # line with what precedes it).
    seen = "\n".join(fold(text) for text in known)
    lines = {fold(line) for text in produced for line in text.splitlines()}
    return HoldoutOutput(
        produced="\n".join(fold(text) for text in produced if text.strip()),
        known=seen,
        lines=frozenset(
            line for line in lines if _SHORT <= len(line) < WINDOW and line not in seen
        ),
        values=frozenset(
            value_tokens("\n".join(fold(text) for text in produced)) - _all_tokens(seen)
        ),
    )


def value_tokens(folded: str) -> set[str]:
    """The tokens of a text that carry a value: one with a digit (`10**20`, `0x1f`, `-17`) of
    three characters or more, and the number each spells, by its magnitude (`#1e+20` for `10**20`,
    `1e20`, `10²⁰`, `pow(10, 20)` and "one hundred quintillion" alike, numbers.py): a value is the
    same value however written."""
    found = {t for t in _all_tokens(folded) if len(t) >= _VALUE_MIN and any(c.isdigit() for c in t)}
    # A long number inside a word (`100000000000000000001-sized`, `v123456789`) is that number too.
    found |= {n for t in found if t[0] != "#" for n in _LONG_NUMBER.findall(t)}
    return found | {n for t in found for n in magnitudes(t)}


def _all_tokens(folded: str) -> set[str]:
    """The text's tokens as written and as its numbers are spelled out (numbers.py), with the
    value each numeric one spells."""
    tokens = {
        t.strip(".")
        for text in {folded, spelled_out(folded)}
        for t in _SPLIT.split(text)
        if t.strip(".")
    }
    return tokens | {n for t in tokens for n in magnitudes(t)}


def fold(text: str) -> str:
    return " ".join(text.casefold().split())


def _texts(item: EvidenceItem) -> Iterator[str]:
    yield from (item.command, item.stdout, item.stderr, item.summary)
    for test in item.tests:
        yield test.name
        yield test.message
