"""The report as structured data: every section computed once, for the renderers and `--json`."""

from __future__ import annotations

from pydantic import Field

from referee.tools.calibration import CalibrationReport
from referee.tools.models.budget import Budget
from referee.tools.models.common import Model
from referee.tools.models.strategy import StrategicAssessment
from referee.tools.report import analysis, history, strategy
from referee.tools.report.adequacy import AdequacyRow, adequacy_rows
from referee.tools.report.analysis import (
    AlertRow,
    DimensionRow,
    GamingRow,
    PerturbationRow,
    PriorityRow,
    Summary,
)
from referee.tools.report.data import ReportData, contract_report
from referee.tools.report.failing import FailingRow, failing
from referee.tools.report.history import (
    BrowserRow,
    CalibrationRow,
    CriterionRow,
    EvidenceRow,
    FindingRow,
    Trends,
)
from referee.tools.store import Store


class ReportView(Model):
    """What a report says, section by section (the Markdown and HTML pages render this)."""

    summary: Summary
    failing: list[FailingRow] = Field(
        default_factory=list, description="Every criterion that failed in the latest iteration"
    )
    dimensions: list[DimensionRow]
    findings: list[FindingRow]
    baseline: dict[str, int] = Field(
        default_factory=dict, description="Findings that predate the change, per rule (not counted)"
    )
    priorities: list[PriorityRow]
    gaming: list[GamingRow]
    perturbations: list[PerturbationRow]
    alerts: list[AlertRow]
    quality_notes: list[str] = Field(default_factory=list)
    budget: Budget | None = None
    criteria: list[CriterionRow]
    trends: Trends
    strategy: StrategicAssessment | None = Field(
        default=None, description="Trends, regression risks, saturation (contract reports)"
    )
    evidence: list[EvidenceRow]
    browser_checks: list[BrowserRow]
    adequacy: list[AdequacyRow] = Field(
        default_factory=list,
        description="The latest run: diff coverage, surviving mutants, flaky tests",
    )
    calibration: list[CalibrationRow]
    agreement: CalibrationReport | None = None
    warnings: list[str] = Field(default_factory=list)


def analyse(data: ReportData) -> ReportView:
    """Compute every section of the report from the gathered data.

    Args:
        data: What `contract_report` or `run_report` gathered.

    Returns:
        The sections, ready to render or to print as JSON.
    """
    gaming = analysis.gaming(data)
    dimensions = analysis.dimensions(data)
    priorities = analysis.priorities(data, dimensions)
    trends = history.trends(data)
    return ReportView(
        summary=analysis.summary(data, gaming),
        failing=failing(data),
        dimensions=dimensions,
        findings=history.findings(data),
        baseline=history.baseline(data),
        priorities=priorities,
        gaming=gaming,
        perturbations=analysis.perturbations(data),
        alerts=analysis.alerts(data),
        quality_notes=list(data.aggregate.quality_notes) if data.aggregate else [],
        budget=data.aggregate.budget if data.aggregate else None,
        criteria=history.criteria(data),
        trends=trends,
        strategy=(
            strategy.assess(data, trends, dimensions, priorities)
            if data.kind == "contract"
            else None
        ),
        evidence=history.evidence(data),
        browser_checks=history.browser_checks(data),
        adequacy=adequacy_rows(data),
        calibration=history.calibration(data),
        agreement=data.agreement,
        warnings=list(data.warnings),
    )


def strategic_assessment(store: Store, contract_id: str) -> StrategicAssessment:
    """evaluate(scope="strategic"): the assessment of a contract's stored history; runs nothing.

    Raises:
        NotFound: the contract is not stored.
    """
    view = analyse(contract_report(store, contract_id))
    assert view.strategy is not None  # a contract report always has one
    return view.strategy
