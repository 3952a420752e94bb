"""Reports: what referee knows about a contract or a run, for people and evaluators.

`contract_report` / `run_report` gather from the store, `analyse` computes the sections,
`render_markdown` and `render_html` lay them out (the HTML page is self-contained).
"""

from referee.tools.report.data import (
    CalibrationEntry,
    ReportData,
    ScorecardEntry,
    build_report,
    contract_report,
    run_report,
)
from referee.tools.report.html import render_html
from referee.tools.report.markdown import render_markdown
from referee.tools.report.view import ReportView, analyse, strategic_assessment

__all__ = [
    "CalibrationEntry",
    "ReportData",
    "ReportView",
    "ScorecardEntry",
    "analyse",
    "build_report",
    "contract_report",
    "render_html",
    "render_markdown",
    "run_report",
    "strategic_assessment",
]
