"""What a code means and how to fix what it reports: the entry type of every code table.

Each family of codes keeps its table next to where the family is defined (reason codes by
`ReasonCode`, validate codes in validate_scorecard, input codes by tools/errors.py …); `codes.py`
gathers them for docs/codes.md, `referee codes` and the `codes://` resource.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Meaning:
    """One code: the situation that produces it and what the reader should do.

    Attributes:
        meaning: What happened, in the words of the person or agent who meets the code.
        fix: The next step.
        severity: For codes reported as problems: an error blocks, a warning does not.
        status: For reason codes: the criterion status they come with (pass, fail, unscored).
    """

    meaning: str
    fix: str
    severity: Severity | None = None
    status: str | None = None


def error(meaning: str, fix: str) -> Meaning:
    return Meaning(meaning, fix, "error")


def warning(meaning: str, fix: str) -> Meaning:
    return Meaning(meaning, fix, "warning")


@dataclass(frozen=True)
class Family:
    """A set of codes that appear in one place of referee's results.

    Attributes:
        key: Short name: the anchor prefix in docs/codes.md and the `codes://` resource's name.
        title: The section heading.
        intro: Where the codes appear, in a sentence or two.
        codes: Code -> its meaning, in the order the documentation lists them.
        notes: Per-code text for the severity column where one severity does not say it all.
    """

    key: str
    title: str
    intro: str
    codes: Mapping[str, Meaning]
    notes: Mapping[str, str] | None = None

    def level_of(self, code: str) -> str:
        """The severity (or, for reason codes, the status) column of a code."""
        if self.notes and code in self.notes:
            return self.notes[code]
        entry = self.codes[code]
        return entry.severity or entry.status or ""

    @property
    def level(self) -> str | None:
        """The name of the family's severity or status column, None when it has neither."""
        if any(m.severity for m in self.codes.values()):
            return "severity"
        return "status" if any(m.status for m in self.codes.values()) else None
