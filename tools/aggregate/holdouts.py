"""The hold-out guard: no issue that would reveal a hold-out reaches the generator's brief.

An evaluator that scores a hold-out criterion knows what it tests, and its issues may say so
("discounted totals are truncated, not rounded"). Such an issue is withheld from the revision
brief and reported to the orchestrator as `holdout_leak`, with the reason. An issue reveals a
hold-out when it
- cites evidence of a hold-out criterion (its `evidence_ids`, or an id such as `E7` in its text);
- names a hold-out criterion's id, a hold-out file (`tests/test_rounding.py`, `test_rounding`) or
  a hold-out test (`test_discount_rounds_half_up`);
- restates a hold-out criterion: it contains the criterion's text, or most of its words;
- repeats a hold-out's files or what its run produced: its output, its tests' messages, the names
  of the files it wrote (holdout_runs.py);
- shows a hold-out's lines, test names or criteria in a disguise: encoded (hex, base32, base64,
  base85, uu …), escaped, compressed, shifted, reordered, in the same forms and classes a secret
  is redacted in (evidence/forms.py), for stretches as long as the plain check's. Code under test
  that reads the hidden test can spell it in any of these through any channel referee has not
  closed yet; a line the generator can see anyway is not looked for.
An evaluator whose only criteria are hold-outs is not in the brief at all (its name would betray
that hidden criteria exist); its issues are withheld without a report.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from referee.tools.aggregate.holdout_runs import WINDOW, HoldoutOutput, fold, holdout_output
from referee.tools.create_contract.views import generator_view
from referee.tools.errors import NotFound
from referee.tools.evidence import Disguises
from referee.tools.models.common import Severity
from referee.tools.models.contract import Contract
from referee.tools.store import Store, load_evidence, runs_for

__all__ = ["HoldoutGuard", "RawIssue", "holdout_guard"]

HOLDOUT_LEAK = "holdout_leak"

# Words too common to say anything about what a criterion tests.
_STOP = frozenset(
    [
        "the",
        "and",
        "are",
        "for",
        "not",
        "but",
        "with",
        "without",
        "that",
        "this",
        "from",
        "into",
        "when",
        "must",
        "should",
        "each",
        "all",
        "any",
        "has",
        "have",
        "its",
        "was",
        "were",
        "will",
        "can",
        "does",
        "only",
        "than",
        "then",
        "also",
        "more",
        "less",
        "very",
        "been",
        "being",
        "there",
        "their",
        "they",
        "them",
        "which",
        "while",
        "where",
        "what",
        "who",
        "how",
        "why",
    ]
)
_OVERLAP = 0.6  # share of a hold-out criterion's words an issue may not repeat
_MIN_NAME = 5  # shorter file stems and test names ("test", "main") say nothing specific
_ANY = "*"  # the evidence key of runs made for every evaluator


@dataclass(frozen=True)
class RawIssue:
    """One issue as one evaluator reported it."""

    evaluator: str
    severity: Severity
    description: str
    location: str | None = None
    suggestion: str | None = None
    evidence_ids: tuple[str, ...] = ()


@dataclass
class HoldoutGuard:
    """Tells whether an issue would reveal a hold-out criterion to the generator.

    Attributes:
        contract: The contract (evaluator view).
        evidence: Per evaluator, the evidence ids of its runs' hold-out criteria.
        names: Hold-out file paths, file stems and test names.
        output: What the hold-out runs printed, reported and wrote.
    """

    contract: Contract
    evidence: Mapping[str, frozenset[str]] = field(default_factory=dict)
    names: frozenset[str] = frozenset()
    output: HoldoutOutput = field(default_factory=HoldoutOutput)
    disguises: Disguises | None = None
    """The hold-out's lines, names and criteria, found in a disguise."""

    def __post_init__(self) -> None:
        hidden = [c for c in self.contract.all_criteria() if c.holdout]
        self.ids = {c.id for c in hidden}
        self._criteria = [(c.id, c.criterion.casefold(), _words(c.criterion)) for c in hidden]
        self.visible_evaluators = list(generator_view(self.contract)["evaluators"])
        self._names = [
            (n, re.compile(rf"(?<![\w/-]){re.escape(n)}(?![\w-])", re.IGNORECASE))
            for n in sorted(self.names, key=len, reverse=True)
        ]
        self._phrases = {p: n for n in self.names if (p := _phrase(n)) is not None}

    def hides(self, issue: RawIssue) -> bool:
        return issue.evaluator not in self.visible_evaluators or self.leak(issue) is not None

    def leak(self, issue: RawIssue) -> str | None:
        """Why the issue reveals a hold-out, or None when it does not."""
        if not self.ids:
            return None
        text = " ".join(t for t in (issue.description, issue.suggestion, issue.location) if t)
        return (
            self._cited(issue, text)
            or self.reveals(text)
            or self.output.repeated(text)
            or self._disguised(text)
        )

    def _disguised(self, text: str) -> str | None:
        if self.disguises is None or not self.disguises.found(text):
            return None
        return "repeats a hold-out in a disguise (encoded, escaped, shifted or reordered)"

    def reveals(self, text: str | None) -> str | None:
        """Why a text reveals a hold-out (its id, a file or test, its wording), or None."""
        if not text or not self.ids:
            return None
        folded, words = text.casefold(), _words(text)
        for ident, sentence, needed in self._criteria:
            if re.search(rf"(?<![\w-]){re.escape(ident.casefold())}(?![\w-])", folded):
                return f"names hold-out criterion {ident}"
            if sentence in folded:
                return f"restates hold-out criterion {ident}"
            shared = needed & words
            if len(needed) >= 2 and len(shared) >= max(2, math.ceil(_OVERLAP * len(needed))):
                return f"restates hold-out criterion {ident} ({', '.join(sorted(shared))})"
        for name, pattern in self._names:
            if pattern.search(text):
                return f"names hold-out file or test {name}"
        said = f" {' '.join(_name_words(text))} "
        for phrase, name in self._phrases.items():
            if f" {phrase} " in said:
                return f"names hold-out file or test {name} (as words)"
        return None

    def _cited(self, issue: RawIssue, text: str) -> str | None:
        own = self.evidence.get(issue.evaluator, frozenset()) | self.evidence.get(_ANY, frozenset())
        # An id however the card spells it (`E5`, `RUN/E5`, `evidence://RUN/E5`): withholding an
        # item another run numbered alike costs the generator a line; showing a hold-out's, the
        # check.
        given = {ident.rpartition("/")[2] for ident in issue.evidence_ids}
        cited = sorted(own & given)
        cited += sorted(e for e in own if re.search(rf"(?<![\w-]){re.escape(e)}(?![\w-])", text))
        return f"cites hold-out evidence {', '.join(dict.fromkeys(cited))}" if cited else None


def holdout_guard(
    store: Store,
    contract: Contract,
    iteration: int,
    files: Sequence[str] = (),
    texts: Sequence[str] = (),
) -> HoldoutGuard:
    """The guard for one iteration: hold-out evidence and test names from its recorded runs.

    Args:
        store: The store holding the runs.
        contract: The contract (evaluator view).
        iteration: The iteration being aggregated.
        files: The contract's hold-out files (their tree paths).
        texts: What they say.
    """
    holdouts = {c.id for c in contract.all_criteria() if c.holdout}
    if not holdouts:
        return HoldoutGuard(contract)
    evidence: dict[str, set[str]] = {}
    names: set[str] = set(_file_names(files))
    runs = runs_for(store, contract.id, iteration)
    for run in runs:
        hidden = [c for c in run.evaluation.criteria if c.id in holdouts or c.holdout]
        # What a visible criterion cites too (the served app's log) is not the hold-out's own:
        # its content, when a hidden check drove it, is recognised as the hold-out's output.
        ids = {e for c in hidden for e in c.evidence_ids} - {
            e for c in run.evaluation.criteria if c not in hidden for e in c.evidence_ids
        }
        # A run of every evaluator (no `evaluator` named) serves each of them.
        evidence.setdefault(run.evaluation.evaluator or _ANY, set()).update(ids)
        names.update(_test_names(store, run.run_id, ids))
    output = holdout_output(contract, runs, texts)
    return HoldoutGuard(
        contract,
        {k: frozenset(v) for k, v in evidence.items()},
        frozenset(names),
        output,
        _disguises(contract, names, texts, output),
    )


def _disguises(
    contract: Contract, names: set[str], texts: Sequence[str], output: HoldoutOutput
) -> Disguises:
    """What of the hold-out is looked for in a disguise: its files' lines, its test names and its
    criteria, save what the generator can see anyway (a line its own files share)."""
    lines = {line.strip() for text in texts for line in text.splitlines()}
    lines |= {c.criterion for c in contract.all_criteria() if c.holdout} | names
    return Disguises(
        (line for line in lines if len(line) >= _MIN_NAME and fold(line) not in output.known),
        WINDOW,
    )


def _file_names(files: Iterable[str]) -> Iterable[str]:
    for path in files:
        yield path
        pure = PurePosixPath(path)
        yield pure.name
        if len(pure.stem) >= _MIN_NAME:
            yield pure.stem


def _test_names(store: Store, run_id: str, ids: set[str]) -> set[str]:
    found: set[str] = set()
    for ident in ids:
        try:
            item = load_evidence(store, run_id, ident)
        except NotFound:
            continue
        for test in item.tests:
            last = re.split(r"::|\.|/|#| > ", test.name)[-1]
            found.update(n for n in (test.name, last) if len(n) >= _MIN_NAME)
    return found


def _name_words(text: str) -> list[str]:
    """The words of a text or a name, lower case: `test_sum_of_colossal_operands`,
    `sumOfColossalOperands`, `wide-operands.test.js` and "Sum of colossal operands" alike."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", text)
    return re.findall(r"[a-z0-9]+", spaced.casefold())


def _phrase(name: str) -> str | None:
    """A hold-out file's or test's name as the words it says, without the words every test
    name has (`test`, a suffix): "sum of colossal operands" for `test_sum_of_colossal_operands`;
    None when that is less than two words or too short to say something of its own."""
    words = _name_words(PurePosixPath(name).name if "/" in name else name)
    while words and words[0] in _NAME_NOISE:
        words = words[1:]
    while words and words[-1] in _NAME_NOISE:
        words = words[:-1]
    if len(words) < 2 or len("".join(words)) < _MIN_PHRASE:
        return None
    return " ".join(words)


_NAME_NOISE = frozenset({"test", "tests", "spec", "py", "js", "ts", "go", "rs", "java", "mjs"})
_MIN_PHRASE = 9  # letters of a name said as words: "wide operands", not "add one"


def _words(text: str) -> set[str]:
    return {
        _stem(w)
        for w in re.findall(r"[a-z0-9]+", text.casefold())
        if len(w) >= 3 and w not in _STOP
    }


def _stem(word: str) -> str:
    """A light stem, so that "rounded", "rounding" and "rounds" meet."""
    for suffix in ("ing", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word
