"""What referee decided in a run, a scorecard may agree with or make harsher, never soften.

A judge may lower a score referee derived from the evidence (a warning, listed wherever overrides
are shown), add issues and add antipatterns. Raising a deterministic score, leaving out an issue
referee found or keeping it at a lower severity is `contradicts_evidence`; leaving out one of
referee's antipatterns is `antipattern_dropped`; and whatever the card names or leaves out, a
verdict better than the run's evidence allows is `contradicts_evidence` too (ceiling.py). The same
rules run when a card is validated, in the gate, and when aggregate re-verifies a stored card.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from referee.tools.claims.model import (
    CODE_DETECTS_TESTS,
    CODE_UNDER_TEST_PATCHED,
    EQUALITY_FORGED,
    HARNESS_MODIFIED,
    TEST_INSPECTS_ENVIRONMENT,
)
from referee.tools.environment import ENVIRONMENT_MODIFIED
from referee.tools.errors import Problem
from referee.tools.models.antipatterns import NEW_AND_SKIPPED
from referee.tools.models.common import SEVERITY_ORDER, ReasonCode, Verdict
from referee.tools.models.evaluation import DimensionResult
from referee.tools.models.scorecard import Issue
from referee.tools.validate_scorecard.card import (
    Card,
    ScoredDimension,
    dimension_key,
    entries,
    path,
    scored_dimensions,
    text,
)
from referee.tools.validate_scorecard.ceiling import verdict_problems

if TYPE_CHECKING:
    from referee.tools.store.runs import StoredRun

__all__ = [
    "RAISED",
    "deterministic_problems",
    "dimension_problems",
    "dropped_antipatterns",
    "issue_problems",
]

_EPSILON = 1e-9
RAISED = frozenset({"contradicts_evidence", "antipattern_dropped", "unverified_pass", "flaky_pass"})
"""The codes of a card that raises what its run decided: one is reason enough to refuse it."""


def deterministic_problems(
    card: Card, run: StoredRun, verdict: Verdict | None = None
) -> list[Problem]:
    """Every place where the scorecard departs from what referee decided in its run.

    Args:
        card: The scorecard.
        run: The run it rests on.
        verdict: The verdict the card computes (validation's, or the one stored with it), held
            against what the run's evidence allows where nothing more precise was found; None
            skips that rule.
    """
    dismissable = frozenset(a.id for a in run.evaluation.antipatterns if _dismissable(run, a.id))
    found = [
        *dropped_antipatterns(card, run),
        *dimension_problems(card, run),
        *issue_problems(card, run),
    ]
    if any(p.code in RAISED for p in found):
        return found
    return [*found, *verdict_problems(card, run, verdict, dismissable)]


# Dimensions


def dimension_problems(card: Card, run: StoredRun) -> list[Problem]:
    """Deterministic dimensions scored above (error) or below (warning) referee's derived score.

    A tenpoint dimension answers to the run's dimension of its name in any domain
    (`general.correctness`, `quality.Correctness` to `correctness`: names compared as
    `dimension_key` folds them), on the 1–10 scale: the highest whole score at or below the
    derived score's place on the rubric's scale (3 of 0–3 allows 10, 2 allows 7, 1 allows 4, 0
    allows 1). A dimension left out or named otherwise answers through the card's verdict
    (ceiling.py).
    """
    derived = {
        dimension_key(key): d
        for key, d in run.evaluation.dimensions.items()
        if d.source == "deterministic" and d.score is not None
    }
    problems = []
    for dim in scored_dimensions(card):
        key = dim.key.rpartition(".")[2] if card.format == "tenpoint" else dim.key
        if dimension_key(key) in derived:
            problems += _compared(card, run, dim, derived[dimension_key(key)])
    return problems


def _compared(
    card: Card, run: StoredRun, dim: ScoredDimension, derived: DimensionResult
) -> list[Problem]:
    assert derived.score is not None
    ceiling = _ceiling(card, run, derived.score)
    cited = ", ".join(derived.evidence_ids) or run.run_id
    because = f"referee derived {derived.score:g} from the evidence ({cited}: {derived.evidence})"
    if card.format == "tenpoint":
        because += f", at most {ceiling:g} on the 1–10 scale"
    if dim.score > ceiling + _EPSILON:
        return [
            Problem(
                path=path(*dim.where, "score"),
                code="contradicts_evidence",
                message=(
                    f"{dim.key} is {dim.score:g}, but {because}; a judge may lower a score referee"
                    f" derived, never raise it: score it at most {ceiling:g}, or fix the work and"
                    " evaluate again"
                ),
            )
        ]
    if dim.score < ceiling - _EPSILON:
        return [
            Problem(
                path=path(*dim.where, "score"),
                code="deterministic_override",
                message=f"{dim.key} is {dim.score:g}, lowered from what {because}",
            )
        ]
    return []


def _ceiling(card: Card, run: StoredRun, derived: float) -> float:
    if card.format != "tenpoint":
        return derived
    low, high = _run_scale(card, run)
    place = (derived - low) / (high - low) if high > low else 1.0
    return float(math.floor(1 + 9 * place + _EPSILON))


def _run_scale(card: Card, run: StoredRun) -> tuple[float, float]:
    """The scale of the rubric the run scored on (the contract's)."""
    if card.run_rubric is not None:
        return card.run_rubric.scale.min, card.run_rubric.scale.max
    # A stored card re-verified without its contract: referee's derived scores lie on 0–3 or on
    # 0.0–1.0, and only a 0–3 rubric derives a score above 1.
    scores = [d.score for d in run.evaluation.dimensions.values() if d.score is not None]
    return 0.0, 3.0 if any(s > 1 for s in scores) else 1.0


# Issues


def issue_problems(card: Card, run: StoredRun) -> list[Problem]:
    """The issues of the run's draft scorecard that a canonical scorecard left out or kept at a
    lower severity.

    The draft's are the issues the judge was given (every CRITICAL and HIGH one, then the most
    severe others up to a bound: evaluate/draft.py); the rest stay in the run's report.

    Lenient on wording, strict on presence: a card's issue keeps referee's when it points at the
    same place (the same file, lines at most a few apart; or the location written into its
    description), or, for an issue referee found at no location, when it says the same thing.
    A tenpoint card has no issues of its own to keep them in.
    """
    if card.format != "referee":
        return []
    given = list(entries(card.data.get("issues")))
    problems = []
    dismissed = _dismissed_ids(card, run)
    for found in run.evaluation.draft_scorecard.issues:
        if any(found.description.startswith(f"test tampering ({d}):") for d in dismissed):
            continue  # the antipattern's own issue goes with it (dropped_antipatterns warns)
        kept = [(i, item) for i, item in given if _keeps(item, found)]
        if not kept:
            problems.append(_issue_dropped(run, found))
        elif all(_softer(item, found) for _, item in kept):
            problems.append(_issue_softened(run, found, kept[0]))
    return problems


def _keeps(item: dict[str, object], found: Issue) -> bool:
    # aggregate's dedupe imports this package (records): a module-level import would be a cycle.
    from referee.tools.aggregate.dedupe import place_of, same_place, same_words

    description = text(item.get("description")) or ""
    if place_of(found.location) is not None:
        location = text(item.get("location"))
        return (location is not None and same_place(found.location, location)) or (
            str(found.location).strip() in description
        )
    subject = _subject(found.description)
    said = description.casefold()
    return (
        same_words(found.description, description)
        or _flat(found.description) in _flat(description)
        or bool(subject and all(_mentions(said, n) for n in subject))
    )


def _mentions(text: str, name: str) -> bool:
    """The name as a whole word: test_add is not mentioned by test_add_negative."""
    return re.search(rf"(?<![\w/.-]){re.escape(name)}(?![\w-])", text) is not None


def _flat(words: str) -> str:
    return " ".join(words.casefold().split())


_TOKEN = re.compile(r"[\w./:-]+")
_NAME = re.compile(r"[_./]|\d")
_EVIDENCE_ID = re.compile(r"^[a-z]\d+$")


def _subject(description: str) -> set[str]:
    """What an issue is about, in any wording: its first test id, criterion id, path or rule name
    ("criterion AC-F-001 fails: …" is about AC-F-001, however the judge words the rest)."""
    for token in _TOKEN.findall(description):
        names = {_clean(part) for part in token.split("::")}
        found = {n for n in names if _is_name(n)}
        if found:
            return found
    return set()


def _clean(part: str) -> str:
    return part.strip(".:-/").casefold()


def _is_name(part: str) -> bool:
    # Evidence ids (E3) differ from run to run, and "e.g" names nothing.
    return (
        len(part) > 3
        and re.search(r"[a-z]", part) is not None
        and _NAME.search(part) is not None
        and not _EVIDENCE_ID.match(part)
    )


def _softer(item: dict[str, object], found: Issue) -> bool:
    stated = SEVERITY_ORDER.get(str(item.get("severity")))
    return stated is not None and stated > SEVERITY_ORDER[found.severity]


def _described(run: StoredRun, found: Issue) -> str:
    at = f" at {found.location}" if found.location else ""
    return f"[{found.severity}] {found.description}{at} (run {run.run_id})"


def _issue_dropped(run: StoredRun, found: Issue) -> Problem:
    return Problem(
        path="/issues",
        code="contradicts_evidence",
        message=(
            f"referee found {_described(run, found)}, and the scorecard leaves it out; a judge may"
            " add issues, never drop one of referee's: keep it in issues, in your words, as the"
            " run's draft scorecard lists it"
        ),
    )


def _issue_softened(run: StoredRun, found: Issue, kept: tuple[int, dict[str, object]]) -> Problem:
    index, item = kept
    return Problem(
        path=path("issues", index, "severity"),
        code="contradicts_evidence",
        message=(
            f"referee found {_described(run, found)}; the scorecard has it only as"
            f" {item.get('severity')} (issue {index}, the same place or subject): keep it at least"
            f" {found.severity}"
        ),
    )


# Antipatterns


def dropped_antipatterns(card: Card, run: StoredRun) -> list[Problem]:
    """referee's own antipatterns of the run that the scorecard left out.

    Some may be dismissed, with a warning listed in aggregate's notes: `harness_modified`, when
    every tests check also ran with the base harness and none passed only thanks to the change
    (no harness_flip, no harness_unverified): a new fixture in conftest.py is legitimate work,
    and referee's rerun is the proof that it changes no outcome; and the suspicions referee reads
    in the code or the environment (`code_under_test_patched`, `test_inspects_environment`,
    `code_detects_tests`, `equality_forged`, `environment_modified`), which name a line or a
    path for the judge to read and cannot tell a mocked collaborator from a faked result, quieter
    logging under test from a right answer only under test, a matcher library from a forged
    result, or a needed dependency from a patched runner; and the
    test edits read from the diff (`test_deleted`, `assertions_removed`, `test_emptied`, and
    `test_skipped` of a new test added skipped) when every tests check passed with the base's
    versions of the edited tests as well: a moved, renamed or merged test reads as deleted there.
    """
    return [
        _dismissed(run, ident) if _dismissable(run, ident) else _dropped(run, ident)
        for ident in _left_out(card, run)
    ]


def _left_out(card: Card, run: StoredRun) -> list[str]:
    """referee's antipatterns of the run that the card does not report."""
    reported = {text(a.get("id")) for _, a in entries(card.data.get("antipatterns_detected"))}
    return sorted({a.id for a in run.evaluation.antipatterns} - reported)


# A run the guard saw bypass pytest cleared nothing either.
_HARNESS_DOUBTS = {
    ReasonCode.HARNESS_FLIP,
    ReasonCode.HARNESS_UNVERIFIED,
    ReasonCode.RUNNER_BYPASSED,
}
# Read from the code or the environment, not proven by a run: the judge weighs them.
_SUSPICIONS = frozenset(
    {
        CODE_UNDER_TEST_PATCHED,
        TEST_INSPECTS_ENVIRONMENT,
        CODE_DETECTS_TESTS,
        EQUALITY_FORGED,
        ENVIRONMENT_MODIFIED,
    }
)


# Test edits read from the diff (a test gone, fewer assertions, a skip, an emptied body): a move,
# a rename, an assertion moved into a helper read alike. The base's versions of the edited tests
# ran on the change too, and the criterion names any that fails there or could not run
# (base_test_failed, base_tests_not_run): when every tests check passed without such a doubt, the
# edits hid no failure of a test the base had, and the judge may find them ordinary.
# A test newly skipped that the base had stays: what it stopped checking is the change's to defend
# in the contract (expected_changes); a new test added skipped is only a suspicion (a condition).
_TEST_EDITS = frozenset({"test_deleted", "assertions_removed", "test_emptied"})
_BASE_FORM_DOUBTS = _HARNESS_DOUBTS | {ReasonCode.BASE_TEST_FAILED, ReasonCode.BASE_TESTS_NOT_RUN}


def _dismissed_ids(card: Card, run: StoredRun) -> set[str]:
    """referee's antipatterns of the run the card leaves out and may."""
    return {ident for ident in _left_out(card, run) if _dismissable(run, ident)}


def _dismissable(run: StoredRun, ident: str) -> bool:
    if ident in _SUSPICIONS:
        return True
    if ident in _TEST_EDITS:
        return _base_form_held(run)
    if ident == "test_skipped":
        found = [a for a in run.evaluation.antipatterns if a.id == ident]
        return _base_form_held(run) and all(NEW_AND_SKIPPED in a.evidence for a in found)
    return ident == HARNESS_MODIFIED and not any(
        c.reason_code in _HARNESS_DOUBTS for c in run.evaluation.criteria
    )


def _base_form_held(run: StoredRun) -> bool:
    """Every tests check of the run passed, none with a doubt about the base's tests or the
    harness."""
    tests = [c for c in run.evaluation.criteria if c.tests is not None]
    return bool(tests) and all(
        c.status == "pass" and c.reason_code not in _BASE_FORM_DOUBTS for c in tests
    )


def _dropped(run: StoredRun, ident: str) -> Problem:
    return Problem(
        path="/antipatterns_detected",
        code="antipattern_dropped",
        message=(
            f"referee detected {ident} in run {run.run_id} ({_where(run, ident)}); a judge may add"
            " antipatterns, never drop one: keep it in antipatterns_detected"
        ),
    )


def _dismissed(run: StoredRun, ident: str) -> Problem:
    why = (
        "the judge read what referee pointed at and found it ordinary"
        if ident in _SUSPICIONS
        else f"in run {run.run_id} every tests check passed with the base's versions of the"
        " edited tests too"
        if ident in _TEST_EDITS or ident == "test_skipped"
        else f"in run {run.run_id} every tests check gave the same verdict with the base harness"
    )
    message = f"{ident} ({_where(run, ident)}) was dismissed: {why}"
    return Problem(path="/antipatterns_detected", code="antipattern_dismissed", message=message)


def _where(run: StoredRun, ident: str) -> str:
    found = [a.location for a in run.evaluation.antipatterns if a.id == ident and a.location]
    return ", ".join(found[:3]) or "see the run's evidence"
