"""PROJECT_HEALTH (0.0–1.0) from deterministic signals, for evaluations at project scope.

Scores without a direct signal carry a low confidence; the report shows it, so a reader knows
which numbers are measured and which are rough proxies.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.tools.models.evaluation import CriterionResult, Finding, HealthDimension, ProjectHealth
from referee.tools.rubrics import builtin_rubrics, health_band
from referee.tools.text import counted

_MAINTAINABILITY = {"file_length", "function_length", "nesting_depth", "cognitive_complexity"}


def _share_clean(findings: Sequence[Finding], rules: set[str], files: int) -> float:
    """The share of analysed files with no finding of the given rules."""
    flagged = {f.location.rsplit(":", 1)[0] for f in findings if f.rule in rules}
    return round(max(0.0, 1 - len(flagged) / files), 2) if files else 1.0


def _correctness(tests: Sequence[CriterionResult]) -> HealthDimension:
    judged = [t for t in tests if t.status != "unscored"]  # one that could not run lowers nothing
    if not judged:
        what = (
            f"no tests check ran (could not run: {', '.join(t.id for t in tests)})"
            if tests
            else "no tests check"
        )
        return HealthDimension(
            score=0.5, confidence=0.1, evidence=f"{what}: neutral placeholder score"
        )
    passed = ran = 0
    for t in judged:
        counts = t.tests
        if counts is not None and counts.ran:
            passed, ran = passed + counts.passed, ran + counts.ran
        else:
            passed, ran = passed + (t.status == "pass"), ran + 1
    rate = passed / ran
    # A failing test is never rounded away into a perfect score.
    score = round(rate, 2) if passed == ran else min(round(rate, 2), 0.99)
    criteria = sum(1 for t in judged if t.status == "pass")
    return HealthDimension(
        score=score,
        confidence=0.7,
        evidence=(
            f"{passed}/{ran} tests pass ({rate:.1%}); {criteria}/{len(judged)} tests checks pass"
        ),
    )


def _security(findings: Sequence[Finding]) -> HealthDimension:
    found = [f for f in findings if f.rule == "hardcoded_secrets"]
    # Test fixtures' fake credentials (LOW) are listed, never scored.
    secrets = [f.location for f in found if f.severity != "LOW"]
    if not secrets:
        fixtures = len(found)
        return HealthDimension(
            score=1.0,
            confidence=0.4,
            evidence="no hardcoded secrets found"
            + (f" ({counted(fixtures, 'fake credential')} in test fixtures)" if fixtures else ""),
        )
    return HealthDimension(
        score=round(max(0.0, 1 - 0.3 * len(secrets)), 2),
        confidence=0.9,
        evidence=f"{counted(len(secrets), 'hardcoded secret')}: {', '.join(secrets[:3])}",
    )


def project_health(
    findings: Sequence[Finding], tests: Sequence[CriterionResult], files: int
) -> ProjectHealth:
    """Six PROJECT_HEALTH dimensions, the weighted composite and its band."""
    dims = {
        "correctness": _correctness(tests),
        "security": _security(findings),
        "maintainability": HealthDimension(
            score=_share_clean(findings, _MAINTAINABILITY, files),
            confidence=0.6,
            evidence="share of files without length, nesting or complexity findings",
        ),
        "architecture": HealthDimension(
            score=_share_clean(findings, {"file_length", "cognitive_complexity"}, files),
            confidence=0.3,
            evidence="proxy: share of files that are not oversized or tangled",
        ),
        "completeness": HealthDimension(
            score=_share_clean(findings, {"test_existence", "todo_density"}, files),
            confidence=0.5,
            evidence="share of files with tests and few TODOs",
        ),
        "evolution": HealthDimension(
            score=_share_clean(findings, {"near_duplicates"}, files),
            confidence=0.3,
            evidence="proxy: share of files without duplicated blocks",
        ),
    }
    weights = builtin_rubrics()["PROJECT_HEALTH"].weights()
    composite = round(sum(d.score * weights[k] for k, d in dims.items()), 3)
    return ProjectHealth(dimensions=dims, composite=composite, band=health_band(composite))
