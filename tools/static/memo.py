"""Whole-run memo: when nothing that a report depends on has changed, the stored report is reused.

A report depends on the config, the rules, each checked file's content, the project's file list
(tests and duplicates live there), the duplicate candidates' contents and the changed-file list.
All of that goes into one key, so a warm run costs a file listing, the blob SHAs and one lookup.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from referee.tools.static.model import StaticFinding, StaticReport

MEMO = "report"


def memo_key(
    rules: frozenset[str],
    files: Sequence[str],
    project: Sequence[str],
    changed: Sequence[str],
    shas: dict[str, str],
) -> str:
    """A digest of everything a report depends on (the config key is added by the cache)."""
    digest = hashlib.sha1(usedforsecurity=False)
    for section, names in (
        ("rules", sorted(rules)),
        ("files", files),
        ("project", project),
        ("changed", changed),
    ):
        digest.update(f"\0{section}\n".encode())
        for name in names:
            digest.update(f"{name}\0{shas.get(name, '')}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def report_to_data(report: StaticReport) -> dict[str, Any]:
    """The stored form of a report (messages carry no secret values, so this is safe to keep)."""
    return {
        "f": [[f.rule, f.severity, f.path, f.line, f.message, f.value] for f in report.findings],
        "e": report.errors,
        "n": report.files_analysed,
        "r": report.by_rule,
        "x": report.excluded,
    }


def report_from_data(data: dict[str, Any]) -> StaticReport:
    """A stored report, every file counted as a cache hit."""
    findings = [StaticFinding(*row) for row in data["f"]]
    return StaticReport(
        findings=findings,
        files_analysed=data["n"],
        cache_hits=data["n"],
        errors=list(data["e"]),
        by_rule=dict(data["r"]),
        excluded=dict(data.get("x", {})),
    )
