"""Finding every fragment of every known secret's forms in a view, in time linear in the view.

The seeds of one view's fragments (forms.windows) are alternatives of a single RE2 automaton
(thousands of fixed strings searched in one pass, never backtracking). A seed found is grown along
the form it belongs to, both ways: kept if it grows to a whole fragment, and then one hit however
many fragments the piece holds (a secret printed whole).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import re2

from referee.tools.evidence.forms import FRAGMENT, ViewName, secret_forms, windows
from referee.tools.evidence.substitution import Substitutions

__all__ = ["Hit", "Matcher"]


class Hit(NamedTuple):
    start: int
    end: int
    label: str


class _Place(NamedTuple):
    form: bytes
    offset: int
    label: str
    fragment: int  # what a seed must grow to: a whole fragment, or the whole form


def _options() -> re2.Options:
    options = re2.Options()  # fragments are ASCII: UTF-8 mode matches them in any bytes
    options.never_capture = True
    # Room for the automaton of tens of thousands of fragments; with less, RE2 falls back to a
    # slower (still linear) engine.
    options.max_mem = 256 << 20
    options.log_errors = False
    return options


_OPTIONS = _options()

_CHUNK = 1 << 18


class _Automaton:
    """The fragments of one view, each with the forms and offsets it occurs at."""

    def __init__(self, places: dict[bytes, list[_Place]]) -> None:
        self._places = places
        self._widest = max(map(len, places))
        # Longest first: at a position the longer fragment wins (RE2 takes the first alternative).
        ordered = sorted(places, key=len, reverse=True)
        self._regex = re2.compile(b"|".join(map(_escape, ordered)), _OPTIONS)

    def find(self, data: bytes) -> list[Hit]:
        hits, pos = [], 0
        while (match := self._search(data, pos)) is not None:
            hit = self._grown(data, match.start(), match.end())
            if hit is None:  # a seed that is no fragment: go on from its next character
                pos = match.start() + 1
                continue
            hits.append(hit)
            # Go on just before the hit's end: another secret overlapping its tail is still found.
            pos = max(match.end(), hit.end - self._widest + 1)
        return hits

    def _search(self, data: bytes, pos: int) -> re2._Match[bytes] | None:
        """The next seed from `pos`, searched a chunk at a time: RE2 holds the interpreter lock
        while it runs, and a cold automaton over megabytes would stall the server's event loop."""
        while pos < len(data):
            end = min(pos + _CHUNK, len(data))
            match = self._regex.search(data, pos, end)
            if match is not None or end == len(data):
                return match
            pos = max(pos + 1, end - self._widest + 1)  # a seed across the end: in the next
        return None

    def _grown(self, data: bytes, start: int, end: int) -> Hit | None:
        best: Hit | None = None
        for place in self._places[data[start:end]]:
            first, k = start, place.offset
            while first > 0 and k > 0 and data[first - 1] == place.form[k - 1]:
                first, k = first - 1, k - 1
            last, k = end, place.offset + end - start
            while last < len(data) and k < len(place.form) and data[last] == place.form[k]:
                last, k = last + 1, k + 1
            if last - first >= place.fragment and (
                best is None or last - first > best.end - best.start
            ):
                best = Hit(first, last, place.label)
        return best


class Matcher:
    """The seeds of every form of some secrets, one automaton per view."""

    def __init__(
        self, secrets: Mapping[str, str], fragment: int = FRAGMENT, plain: bool = True
    ) -> None:
        """Build the automata.

        Args:
            secrets: Secret values and the label each is redacted with.
            fragment: Characters of a value worth finding on their own (forms.secret_forms).
            plain: Find the values as they are too, not only their disguises.
        """
        places: dict[ViewName, dict[bytes, list[_Place]]] = {}
        # Longest first: where a secret contains another, the fragment is labelled by the longer.
        for value in sorted(secrets, key=len, reverse=True):
            for form in secret_forms(value, fragment, plain):
                index = places.setdefault(form.view, {})
                grows_to = min(form.window, len(form.text))
                for offset, window in windows(form):
                    place = _Place(form.text, offset, secrets[value], grows_to)
                    index.setdefault(window, []).append(place)
        self._automata = {view: _Automaton(index) for view, index in places.items()}
        self.substitutions = Substitutions(secrets if plain else {})

    def __bool__(self) -> bool:
        return bool(self._automata) or bool(self.substitutions)

    def wants(self, view: ViewName) -> bool:
        """Whether any form is searched in `view` (an unwanted view need not be built)."""
        return view in self._automata

    def find(self, view: ViewName, data: bytes) -> list[Hit]:
        """Every piece of `data` (a `view` of some text) that is a secret's form or fragment."""
        automaton = self._automata.get(view)
        return automaton.find(data) if automaton else []


def _escape(window: bytes) -> bytes:
    # Letters and digits as they are, every other byte as \xHH: valid RE2 whatever the byte.
    return b"".join(
        bytes((byte,)) if chr(byte).isalnum() and byte < 0x80 else b"\\x%02x" % byte
        for byte in window
    )
