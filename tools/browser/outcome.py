"""What one browser check found: the evidence a verdict stands on."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field

from referee.tools.models.common import Model

BrowserStatus = Literal["pass", "fail", "unscored"]
Impact = Literal["minor", "moderate", "serious", "critical"]
IMPACT_RANK: dict[str, int] = {"minor": 0, "moderate": 1, "serious": 2, "critical": 3}


def at_or_above(violations: list[A11yViolation], min_impact: str) -> list[A11yViolation]:
    """The violations an `a11y` expectation with this `min_impact` counts."""
    floor = IMPACT_RANK[min_impact]
    return [v for v in violations if IMPACT_RANK.get(v.impact or "minor", 0) >= floor]


def lowest_impact(impacts: list[str]) -> str:
    """The lowest of several `min_impact`s ("minor" for none)."""
    return min(impacts, key=IMPACT_RANK.__getitem__, default="minor")


class _Frozen(Model):
    model_config = ConfigDict(frozen=True)


StepPhase = Literal["setup", "open", "step"]


class StepResult(_Frozen):
    """One step as it ran: a contract's `browser_setup` step, the opening of the check's url, or
    one of the check's own steps (numbered as the contract lists them)."""

    phase: StepPhase = "step"
    number: int = Field(default=0, description="1-based within its phase; 0 for the opening")
    action: str
    target: str = Field(description="The selector, or the URL of a goto")
    ok: bool
    error: str = Field(default="", description="Playwright's message, call log included")
    message: str = Field(
        default="", description="Playwright's message verbatim (nesting and repeated lines kept)"
    )
    duration_s: float = 0.0

    @property
    def label(self) -> str:
        """How a person names the step: ``step 2``, ``setup step 1``, ``opening the page``."""
        if self.phase == "open":
            return "opening the page"
        return f"{'setup step' if self.phase == 'setup' else 'step'} {self.number}"


class ExpectationResult(_Frozen):
    """Whether one expectation held, and what was seen."""

    number: int = Field(default=0, description="1-based, as the contract lists them")
    type: str
    target: str = ""
    ok: bool
    detail: str = ""
    message: str = Field(
        default="", description="Playwright's message verbatim, when it raised one"
    )
    warning: str = Field(default="", description="Held, but perhaps not for the reason meant")
    pending: str = Field(
        default="",
        description="Not judged: why (a screenshot with no baseline, no base run to compare with)",
    )
    pending_code: str = Field(default="", description="The reason code of `pending`")
    note: str = Field(
        default="", description="Said even when it holds (new_only: what the base already had)"
    )


class PageError(_Frozen):
    """An uncaught exception in the page."""

    name: str = ""
    message: str
    stack: str = ""
    location: str = Field(default="", description="Where it was thrown: URL path:line:column")

    def __str__(self) -> str:
        head = f"{self.name}: {self.message}" if self.name else self.message
        return f"{head} (at {self.location})" if self.location else head


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


class A11yNode(_Frozen):
    """One element violating a rule: axe's selector for it and the start of its markup."""

    target: str
    html: str = ""
    impact: Impact | None = None


class A11yViolation(_Frozen):
    """One axe-core rule the page violates."""

    id: str
    impact: Impact | None = None
    nodes: int = 0
    help: str = ""
    targets: list[str] = Field(
        default_factory=list, description="CSS selectors of the first offending nodes"
    )
    all_nodes: tuple[A11yNode, ...] = Field(
        default=(),
        exclude=True,
        description="Every offending node (up to a bound), for the comparison with the base",
    )


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
    page_errors: list[PageError] = Field(default_factory=list)
    failed_requests: list[FailedRequest] = Field(default_factory=list)
    blocked_requests: list[BlockedRequest] = Field(default_factory=list)
    dropped_events: int = Field(default=0, description="Events beyond the per-list cap, not kept")
    a11y_violations: list[A11yViolation] = Field(default_factory=list)
    a11y_new: list[A11yViolation] | None = Field(
        default=None,
        description="new_only: the violations the base did not have, with their new nodes only"
        " (None: no comparison with the base was made)",
    )
    axe_runs: dict[str, list[A11yViolation]] = Field(
        default_factory=dict, exclude=True, description="axe's violations by scope (axe_scope)"
    )
    aria_snapshot: str = ""
    screenshot: str | None = Field(default=None, description="Path of the full-page PNG")
    images: list[str] = Field(
        default_factory=list,
        description="Paths of the screenshot expectations' images (actual, and diff)",
    )
    trace: str | None = Field(
        default=None, description="Path of the Playwright trace (failing checks only)"
    )
    ran: bool = Field(default=True, description="False: not run (the served app had exited)")
    duration_s: float = Field(default=0.0, description="The check's own time")
    queued_s: float = Field(default=0.0, description="Time spent waiting for a page slot")

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
            parts.append(f"{failed.label} ({failed.action} {failed.target}) failed")
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
        if self.trace:
            parts.append(f"trace {Path(self.trace).name}")
        return "; ".join(p for p in parts if p)

    def _expectation_part(self) -> str:
        held = sum(e.ok for e in self.expectations)
        if not self.expectations:
            return "no expectations"
        return f"{held}/{len(self.expectations)} expectations held"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}" if n else ""
