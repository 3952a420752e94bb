"""Static findings as SARIF 2.1.0 (for code-scanning tools) and as evaluation models."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import quote

from referee.tools.models.checks import STATIC_RULES
from referee.tools.models.evaluation import Finding
from referee.tools.static.model import CRITICAL, HIGH, LOW, MEDIUM, StaticReport
from referee.tools.text import shown

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
_LEVELS = {CRITICAL: "error", HIGH: "error", MEDIUM: "warning", LOW: "note"}
RULE_DESCRIPTIONS = {
    "file_length": "File longer than the limit (default 800 lines)",
    "function_length": "Function longer than the limit (default 50 lines)",
    "nesting_depth": "Control structures nested deeper than the limit (default 4 levels)",
    "cognitive_complexity": "Function cognitive complexity above the limit (default 15)",
    "hardcoded_secrets": "Hardcoded secret or credential (betterleaks)",
    "near_duplicates": "Block duplicated elsewhere (more than 6 similar lines, jscpd)",
    "test_existence": "Changed source file without a test",
    "todo_density": "More TODO/FIXME/XXX/HACK comments than the limit (default 5 per file)",
}


def to_sarif(report: StaticReport, tool_version: str) -> dict[str, Any]:
    """Render a report as a SARIF 2.1.0 log with one run whose driver is referee.

    Args:
        report: The pipeline's report.
        tool_version: referee's version, recorded as the driver version.

    Returns:
        A JSON-ready dict; finding severities map to levels error (CRITICAL, HIGH), warning
        (MEDIUM) and note (LOW), and the original severity is kept in `properties`.
    """
    rules = [_rule(name) for name in STATIC_RULES]
    index = {name: i for i, name in enumerate(STATIC_RULES)}
    results = [
        {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": _LEVELS[f.severity],
            "message": {"text": shown(f.message)},
            "locations": [
                {
                    "physicalLocation": {
                        # A URI reference: the name's bytes percent-encoded, whatever they are.
                        "artifactLocation": {"uri": _uri(f.path), "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": f.line},
                    }
                }
            ],
            "properties": {"severity": f.severity},
        }
        for f in report.findings
    ]
    notes = [{"level": "warning", "message": {"text": error}} for error in report.errors]
    run = {
        "tool": {"driver": {"name": "referee", "version": tool_version, "rules": rules}},
        "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notes}],
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def _uri(path: str) -> str:
    return quote(os.fsencode(path), safe="/")


def _rule(name: str) -> dict[str, Any]:
    return {"id": name, "name": name, "shortDescription": {"text": RULE_DESCRIPTIONS[name]}}


def findings_to_models(report: StaticReport) -> list[Finding]:
    """The report's findings as `Finding` models of an evaluation (rule, severity, file:line,
    message)."""
    return [
        Finding(
            rule=f.rule, severity=f.severity, location=shown(f.location), message=shown(f.message)
        )
        for f in report.findings
    ]
