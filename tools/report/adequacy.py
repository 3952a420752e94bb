"""The report's test adequacy section: per criterion of the latest run, the diff coverage of each
changed file with its uncovered ranges, the surviving mutants and the flaky tests."""

from __future__ import annotations

from pydantic import Field

from referee.tools.graders.mutation import describe
from referee.tools.models.adequacy import TestAdequacy
from referee.tools.models.common import Model
from referee.tools.report.data import ReportData
from referee.tools.report.select import latest_run

__all__ = ["AdequacyRow", "adequacy_rows"]


class AdequacyRow(Model):
    """One fact about how far a criterion's tests pin the change."""

    criterion: str
    kind: str = Field(description="diff coverage · surviving mutant · mutation score · flaky test")
    location: str = Field(description="file, or file:line")
    detail: str
    evidence_id: str | None = None


def adequacy_rows(data: ReportData) -> list[AdequacyRow]:
    """The latest run's adequacy facts, criterion by criterion."""
    run = latest_run(data)
    rows: list[AdequacyRow] = []
    for c in run.criteria if run else []:
        if c.adequacy is not None:
            rows += _rows(c.id, c.adequacy)
    return rows


def _rows(criterion: str, adequacy: TestAdequacy) -> list[AdequacyRow]:
    rows = []
    found = adequacy.diff_coverage
    for f in found.files if found else []:
        missing = ", ".join(f.uncovered) or "none"
        detail = f"{f.percent:g}% ({f.covered}/{f.changed} changed lines); not executed: {missing}"
        evidence = found.evidence_id if found else None
        rows.append(
            AdequacyRow(
                criterion=criterion,
                kind="diff coverage",
                location=f.path,
                detail=detail,
                evidence_id=evidence,
            )
        )
    mutation = adequacy.mutation
    if mutation is not None and mutation.score is not None:
        detail = f"{mutation.score:g}: {mutation.killed}/{mutation.run} mutants killed"
        if mutation.not_compiled:
            detail += f"; {mutation.not_compiled} did not compile (left out of the score)"
        rows.append(
            AdequacyRow(
                criterion=criterion,
                kind="mutation score",
                location="—",
                detail=detail,
                evidence_id=mutation.evidence_id,
            )
        )
        for m in mutation.survived:
            rows.append(
                AdequacyRow(
                    criterion=criterion,
                    kind="surviving mutant",
                    location=m.location,
                    detail=f"the tests still pass when {describe(m)}",
                    evidence_id=mutation.evidence_id,
                )
            )
    for t in adequacy.flaky:
        ids = ", ".join(t.evidence_ids)
        rows.append(
            AdequacyRow(
                criterion=criterion,
                kind="flaky test",
                location=t.location or t.test,
                detail=f"{t.test} passed {t.passed} of {t.runs} runs ({ids})",
                evidence_id=t.evidence_ids[0] if t.evidence_ids else None,
            )
        )
    return rows
