"""From evidence to rubric dimensions: what referee can score without a judging model.

Each derived score is marked `source: deterministic` with a confidence; everything else is left
to judgement (`score: null`, `source: judgment`). The mapping is documented in the README.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from referee.tools.evaluate.run import Outcomes
from referee.tools.models.common import ReasonCode
from referee.tools.models.contract import Criterion
from referee.tools.models.evaluation import CriterionResult, DimensionResult
from referee.tools.models.rubric import Rubric
from referee.tools.text import agrees, counted

MAINTAINABILITY_RULES = {
    "file_length",
    "function_length",
    "nesting_depth",
    "cognitive_complexity",
    "near_duplicates",
    "todo_density",
}
COMPLETENESS_RULES = {"test_existence", "todo_density"}


@dataclass
class Signals:
    """The facts an evaluation gathered, reduced to what dimension scores need."""

    tests: list[CriterionResult] = field(default_factory=list)
    behaviour: list[CriterionResult] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)
    maintainability: list[tuple[str, str]] = field(default_factory=list)
    completeness: list[tuple[str, str]] = field(default_factory=list)
    browser: list[dict[str, int]] = field(default_factory=list)
    static_ids: list[str] = field(default_factory=list)
    static_ran: bool = False
    files: int = 0


def _judgment(note: str = "") -> DimensionResult:
    return DimensionResult(score=None, source="judgment", confidence=0.0, evidence=note)


def _det(score: float, confidence: float, evidence: str, ids: Sequence[str]) -> DimensionResult:
    return DimensionResult(
        score=score,
        source="deterministic",
        confidence=confidence,
        evidence=evidence,
        evidence_ids=list(dict.fromkeys(ids)),
    )


def _level(rate: float, unit: bool, anything_passed: bool = False) -> float:
    """A pass rate on the rubric's scale: all → top, most → good, some → weak, none → bottom.

    A criterion failing while its own tests mostly pass is not "none": `anything_passed` (some test
    passed somewhere) keeps the level above the bottom, so one failing test among hundreds asks for
    a revision rather than blocking.
    """
    if unit:
        return round(max(rate, 0.4 if anything_passed and rate < 1 else 0.0), 2)
    if rate >= 1:
        return 3.0
    if rate >= 0.75:
        return 2.0
    return 1.0 if rate > 0 or anything_passed else 0.0


@dataclass(frozen=True)
class _Rate:
    share: float
    text: str
    ids: list[str]
    anything_passed: bool


def _rate(results: Sequence[CriterionResult]) -> _Rate:
    passed = sum(1 for r in results if r.status == "pass")
    ids = [e for r in results for e in r.evidence_ids]
    failing = [r for r in results if r.status != "pass"]
    text = f"{passed}/{len(results)} checked criteria pass"
    if failing:
        text += "; not passing: " + ", ".join(_failing_text(r) for r in failing)
    tests_passed = any(r.tests is not None and r.tests.passed for r in results)
    return _Rate(passed / len(results), text, ids, passed > 0 or tests_passed)


def _failing_text(result: CriterionResult) -> str:
    counts = result.tests
    if counts is None or not counts.ran:
        return result.id
    return f"{result.id} ({counts.passed}/{counts.ran} of its tests pass)"


def _judged(results: Sequence[CriterionResult]) -> list[CriterionResult]:
    """Checks that ran: one that could not run says nothing about the work (its criterion still
    fails)."""
    return [r for r in results if r.status != "unscored"]


def correctness(s: Signals, unit: bool) -> DimensionResult:
    tests = _judged(s.tests)
    if not tests:
        return _judgment(
            "no tests check ran in this evaluation"
            if s.tests
            else "no tests check in this evaluation"
        )
    if bottom := _proves_nothing(tests):
        # The rubrics' level 0 names both: tests that passed at base fail now, or the regression
        # test passes at base too. A pass rate would put either at "weak" when other tests pass.
        return _det(0.0, 0.9, f"test checks: {bottom}", [e for r in tests for e in r.evidence_ids])
    return _from_rate(tests, unit, "test checks", confidence=(0.7, 0.9))


def _proves_nothing(tests: Sequence[CriterionResult]) -> str:
    """Why correctness is at the bottom whatever else passes, or ""."""
    regressed = [r for r in tests if r.regressions or r.reason_code == ReasonCode.BASE_TEST_FAILED]
    if regressed:
        named = [f"{r.id} ({', '.join(r.regressions[:3]) or r.reason_code})" for r in regressed]
        return f"tests that passed at base fail now: {', '.join(named)}"
    at_base = [r.id for r in tests if r.reason_code == ReasonCode.PASSES_AT_BASE]
    if at_base and not any(r.status == "pass" for r in tests):
        return (
            f"no test fails at base: {', '.join(at_base)} {agrees(len(at_base), 'passes', 'pass')}"
            " at base too, so nothing shows the fix works"
        )
    return ""


def functionality(s: Signals, unit: bool) -> DimensionResult:
    results = _judged(s.behaviour) or _judged(s.tests)
    if not results:
        return _judgment("no behavioural check (browser or command) ran in this evaluation")
    return _from_rate(results, unit, "behaviour checks", confidence=(0.6, 0.8))


def _from_rate(
    results: Sequence[CriterionResult], unit: bool, label: str, confidence: tuple[float, float]
) -> DimensionResult:
    """A score from the criteria pass rate (confidence: all passing, something failing)."""
    rate = _rate(results)
    return _det(
        _level(rate.share, unit, rate.anything_passed),
        confidence[0] if rate.share >= 1 else confidence[1],
        f"{label}: {rate.text}",
        rate.ids,
    )


def security(s: Signals, unit: bool) -> DimensionResult:
    if not s.static_ran:
        return _judgment()
    if s.secrets:
        where = ", ".join(s.secrets[:5])
        return _det(
            0.0,
            0.9,
            f"{agrees(len(s.secrets), 'a hardcoded secret', 'hardcoded secrets')} at {where}",
            s.static_ids,
        )
    return _judgment(
        "no hardcoded secrets found by the static pipeline; judge the rest of security"
    )


def craft(s: Signals, unit: bool) -> DimensionResult:
    if not s.static_ran:
        return _judgment()
    found = s.maintainability
    high = [loc for sev, loc in found if sev in ("CRITICAL", "HIGH")]
    score = 3.0 if not found else 2.0 if not high and len(found) <= 3 else 1.0
    if unit:
        score = {3.0: 1.0, 2.0: 0.7, 1.0: 0.4}[score]
    text = f"{counted(len(found), 'maintainability finding')} in {counted(s.files, 'file')}" + (
        f" (e.g. {', '.join(loc for _, loc in found[:3])})" if found else ""
    )
    return _det(score, 0.6, text, s.static_ids)


def ux_quality(s: Signals, unit: bool) -> DimensionResult:
    if not s.browser:
        return _judgment("no browser check ran in this evaluation")
    errors = sum(b.get("page_errors", 0) for b in s.browser)
    noise = sum(
        b.get("console_errors", 0) + b.get("failed_requests", 0) + b.get("a11y_violations", 0)
        for b in s.browser
    )
    score = 1.0 if errors else 2.0 if noise else 3.0
    if unit:
        score = {3.0: 1.0, 2.0: 0.7, 1.0: 0.4}[score]
    text = (
        f"browser checks: {counted(errors, 'uncaught page error')}; {noise} console errors, failed"
        " requests or a11y violations"
    )
    ids = [e for r in s.behaviour for e in r.evidence_ids]
    return _det(score, 0.5, text, ids)


def completeness(s: Signals, unit: bool) -> DimensionResult:
    if not s.static_ran:
        return _judgment()
    found = s.completeness
    score = 1.0 if not found else 0.7 if len(found) <= 2 else 0.4
    if not unit:
        score = {1.0: 3.0, 0.7: 2.0, 0.4: 1.0}[score]
    text = f"{counted(len(found), 'finding')} on missing tests or TODO density"
    return _det(score, 0.5, text, s.static_ids)


def verifiability(s: Signals, unit: bool) -> DimensionResult:
    if not s.tests:
        return _judgment("no tests check in this evaluation")
    unrun = [r.id for r in s.tests if r.status == "unscored"]
    if unrun:  # a check that could not run lowers nothing: the judge weighs why it could not
        return _judgment(
            f"{len(s.tests) - len(unrun)}/{len(s.tests)} test checks ran and reported results;"
            f" could not run: {', '.join(unrun)}"
        )
    ran = f"{len(s.tests)}/{len(s.tests)} test checks ran and reported results"
    scored = [(r, r.adequacy.mutation) for r in s.tests if r.adequacy and r.adequacy.mutation]
    scores = [(r, m) for r, m in scored if m.score is not None]
    if not scores:
        return _det(_level(1.0, unit), 0.6, ran, [e for r in s.tests for e in r.evidence_ids])
    # Tests that ran prove little if they would not notice the change being wrong: the weakest
    # criterion's mutation score decides (>= 0.8 top, >= 0.5 good, else weak).
    worst = min(m.score or 0.0 for _, m in scores)
    level = 1.0 if worst >= 0.8 else 0.7 if worst >= 0.5 else 0.4
    text = "; ".join(
        f"{r.id}: mutation score {m.score:g} ({m.killed}/{m.run} mutants of the changed lines"
        " killed)"
        for r, m in scores
    )
    ids = [m.evidence_id for _, m in scores if m.evidence_id]
    return _det(level if unit else _MUTATION_LEVEL[level], 0.7, f"{ran}; {text}", ids)


_MUTATION_LEVEL = {1.0: 3.0, 0.7: 2.0, 0.4: 1.0}


DERIVERS: dict[str, Callable[[Signals, bool], DimensionResult]] = {
    "correctness": correctness,
    "functionality": functionality,
    "security": security,
    "craft": craft,
    "maintainability": craft,
    "quality": craft,
    "ux_quality": ux_quality,
    "completeness": completeness,
    "verifiability": verifiability,
}


def derive_dimensions(rubric: Rubric, signals: Signals) -> dict[str, DimensionResult]:
    unit = rubric.scale.kind == "unit"
    return {
        d.key: DERIVERS[d.key](signals, unit) if d.key in DERIVERS else _judgment()
        for d in rubric.dimensions
    }


def signals_of(
    criteria: list[Criterion], results: list[CriterionResult], outcomes: Outcomes, files: int
) -> Signals:
    """Reduce an evaluation's outcomes to the facts the dimension scores read."""
    kinds = {c.id: c.check.kind if c.check else None for c in criteria}
    scored = [r for r in results if r.pass_ is not None or (r.status == "unscored" and kinds[r.id])]
    report = outcomes.static.report if outcomes.static else None
    findings = report.findings if report else []
    return Signals(
        tests=[r for r in scored if kinds[r.id] == "tests"],
        behaviour=[r for r in scored if kinds[r.id] in ("browser", "command")],
        # LOW: a fixture's fake credential in a test file (a live credential's shape is HIGH).
        secrets=[
            f.location for f in findings if f.rule == "hardcoded_secrets" and f.severity != "LOW"
        ],
        maintainability=[
            (f.severity, f.location) for f in findings if f.rule in MAINTAINABILITY_RULES
        ],
        completeness=[(f.severity, f.location) for f in findings if f.rule in COMPLETENESS_RULES],
        browser=[  # only checks that ran: an unscored one saw nothing of the page
            outcomes.results[c.id].details
            for c in criteria
            if kinds[c.id] == "browser"
            and c.id in outcomes.results
            and outcomes.results[c.id].status != "unscored"
        ],
        static_ids=list(outcomes.static.evidence_ids) if outcomes.static else [],
        static_ran=report is not None,
        files=files,
    )
