"""What one browser check found: the evidence a verdict stands on."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field

from referee.tools.models.common import Model

BrowserStatus = Literal["pass", "fail", "unscored"]
Impact = Literal["minor", "moderate", "serious", "critical"]
IMPACT_RANK: dict[str, int] = {"minor": 0, "moderate": 1, "serious": 2, "critical": 3}


class _Frozen(Model):
    model_config = ConfigDict(frozen=True)


class StepResult(_Frozen):
    """One step as it ran; the check's own URL is the first, a ``goto``."""

    action: str
    target: str = Field(description="The selector, or the URL of a goto")
    ok: bool
    error: str = Field(default="", description="Playwright's message, trimmed")
    duration_s: float = 0.0


class ExpectationResult(_Frozen):
    """Whether one expectation held, and what was seen."""

    type: str
    target: str = ""
    ok: bool
    detail: str = ""


class FailedRequest(_Frozen):
    """A network failure, or a response with status >= 400."""

    url: str
    method: str = "GET"
    resource_type: str = ""
    status: int | None = None
    failure: str | None = None


class BlockedRequest(_Frozen):
    """A request the URL policy stopped (loopback, repo files and allowed hosts only)."""

    url: str
    resource_type: str = ""
    reason: str = ""


class A11yViolation(_Frozen):
    """One axe-core rule the page violates."""

    id: str
    impact: Impact | None = None
    nodes: int = 0
    help: str = ""


class BrowserOutcome(_Frozen):
    """The result of one browser check."""

    status: BrowserStatus
    passed: bool | None = Field(description="None when the check could not judge (unscored)")
    reason: str
    url: str = Field(default="", description="The URL the check opened")
    final_url: str = ""
    title: str = ""
    steps: list[StepResult] = Field(default_factory=list)
    expectations: list[ExpectationResult] = Field(default_factory=list)
    console_errors: list[str] = Field(default_factory=list)
    page_errors: list[str] = Field(default_factory=list)
    failed_requests: list[FailedRequest] = Field(default_factory=list)
    blocked_requests: list[BlockedRequest] = Field(default_factory=list)
    dropped_events: int = Field(default=0, description="Events beyond the per-list cap, not kept")
    a11y_violations: list[A11yViolation] = Field(default_factory=list)
    aria_snapshot: str = ""
    screenshot: str | None = Field(default=None, description="Path of the full-page PNG")
    duration_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return self.model_dump(mode="json")

    def summary(self) -> str:
        """One line for an evidence list, e.g. ``4/5 expectations held; 1 console error; screenshot
        E3.png``."""
        if self.status == "unscored":
            return f"unscored: {self.reason}"
        parts = [self._expectation_part()]
        failed = next((s for s in self.steps if not s.ok), None)
        if failed is not None:
            parts.append(f"step {failed.action} {failed.target!r} failed")
        if self.reason.startswith("timed out"):
            parts.append(self.reason)
        parts += [
            _count(len(self.console_errors), "console error"),
            _count(len(self.page_errors), "page error"),
        ]
        parts += [_count(len(self.failed_requests), "failed request")]
        parts += [_count(len(self.blocked_requests), "blocked request")]
        parts += [_count(len(self.a11y_violations), "a11y violation")]
        if self.screenshot:
            parts.append(f"screenshot {Path(self.screenshot).name}")
        return "; ".join(p for p in parts if p)

    def _expectation_part(self) -> str:
        held = sum(e.ok for e in self.expectations)
        if not self.expectations:
            return "no expectations"
        return f"{held}/{len(self.expectations)} expectations held"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}" if n else ""
