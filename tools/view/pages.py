"""What each page of the viewer shows, as small frozen dataclasses: gathered from the store by
`gather`, `run` and `compare`, laid out by `html`. Nothing here knows about HTTP or markup."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from referee.tools.report.layout import Section

Audience = Literal["generator", "evaluator"]


@dataclass(frozen=True)
class Filters:
    """The contracts list's filters; empty strings filter nothing."""

    decision: str = ""
    evaluator: str = ""
    since: str = ""  # ISO date: last activity on or after
    until: str = ""  # ISO date: last activity on or before
    q: str = ""  # words of the id or goal
    page: int = 1  # the running app shows PAGE_SIZE rows a page; a bundle shows them all


@dataclass(frozen=True)
class ContractRow:
    id: str
    goal: str
    decision: str | None
    iteration: int
    max_iterations: int
    last_activity: str
    evaluators: tuple[str, ...]
    weighted: float | None = None  # the latest iteration's weighted score, over its evaluators
    scale_max: float = 3.0


@dataclass(frozen=True)
class LiveRow:
    """An evaluation running now; for the generator only that it runs (the count of checks and
    their names would tell of hold-outs)."""

    contract_id: str
    evaluator: str | None
    started_at: str
    updated_at: str
    done: float | None
    total: float | None
    message: str
    recent: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class LivePage:
    rows: list[LiveRow]
    refresh: int  # seconds between reloads the reader asked for; 0: none


@dataclass(frozen=True)
class ContractsPage:
    rows: list[ContractRow]
    total: int  # contracts stored
    matching: int  # contracts the filters let through
    filters: Filters
    decisions: list[str]
    evaluators: list[str]
    pages: int = 1
    running: list[LiveRow] = field(default_factory=list)
    history: Plot | None = None  # across the contracts the filters let through


@dataclass(frozen=True)
class Cell:
    """One evaluator's verdict at one iteration (its active scorecard)."""

    verdict: str | None
    weighted: float | None
    scorecard_id: int | None


@dataclass(frozen=True)
class RunLink:
    run_id: str
    evaluator: str | None
    passed: int
    failed: int


@dataclass(frozen=True)
class IterationRow:
    number: int
    cells: dict[str, Cell]
    runs: list[RunLink]
    decision: str | None
    reason: str
    brief: list[str]
    hidden_failed: int = 0


@dataclass(frozen=True)
class CriterionInfo:
    id: str
    criterion: str
    evaluator: str
    method: str
    holdout: bool


@dataclass(frozen=True)
class Alert:
    kind: str
    dimension: str | None
    message: str


@dataclass(frozen=True)
class Series:
    """One line of a plot: a value per iteration (None where there is none)."""

    label: str
    values: list[float | None]


@dataclass(frozen=True)
class Plot:
    title: str
    xs: list[int]
    series: list[Series]
    y_max: float
    x_label: str = "iteration"
    columns: list[str] = field(default_factory=list)  # the table's column names; none: Iteration N


@dataclass(frozen=True)
class ContractPage:
    id: str
    goal: str
    audience: Audience
    rubric: str
    max_iterations: int
    evaluators: list[str]
    criteria: list[CriterionInfo]
    iterations: list[IterationRow]
    decision: str | None
    delivered: int | None
    checkout: str | None
    alerts: list[Alert]
    plots: list[Plot]
    pairs: list[tuple[int, int]]
    running: list[LiveRow] = field(default_factory=list)


@dataclass(frozen=True)
class LogLine:
    number: int
    text: str
    marked: bool = False


@dataclass(frozen=True)
class Log:
    evidence_id: str
    tool: str
    command: str
    exit_code: int | None
    summary: str
    lines: list[LogLine]
    truncated: bool = False


@dataclass(frozen=True)
class TestLine:
    __test__ = False  # not a pytest test class despite its name

    name: str
    outcome: str
    duration_s: float
    message: str
    evidence_id: str
    anchor: str | None  # the log line showing this test's failure


@dataclass(frozen=True)
class CriterionLine:
    id: str
    criterion: str
    status: str
    holdout: bool
    reason: str
    reason_code: str | None
    command: str
    evidence_ids: list[str]
    anchor: str | None  # the log line of its first failing test, or its log


@dataclass(frozen=True)
class FindingLine:
    severity: str
    rule: str
    location: str
    message: str


@dataclass(frozen=True)
class CardLink:
    id: int
    evaluator: str
    verdict: str | None
    active: bool


@dataclass(frozen=True)
class ChangeLine:
    """A diff line: kept, removed or added (`…` between hunks), with what the run said of it:
    (kind, text) pairs, kind one of uncovered, mutant, finding."""

    kind: str
    old: int | None
    new: int | None
    text: str
    marks: list[tuple[str, str]]


@dataclass(frozen=True)
class DiffFile:
    path: str
    state: str  # added, modified or deleted
    coverage: list[str]  # per criterion: how much of its changed statements the tests ran
    lines: list[ChangeLine] = field(default_factory=list)
    note: str = ""


@dataclass(frozen=True)
class ChangeView:
    """The change a run judged, or why it cannot be shown."""

    files: list[DiffFile] = field(default_factory=list)
    note: str = ""


@dataclass(frozen=True)
class RunPage:
    run_id: str
    contract_id: str
    audience: Audience
    evaluator: str | None
    iteration: int
    tree: str
    commit: str | None
    sandbox: str
    changed_files: list[str]
    criteria: list[CriterionLine]
    tests: list[TestLine]
    logs: list[Log]
    findings: list[FindingLine]
    issues: list[FindingLine]
    cards: list[CardLink]
    browser: Section | None = None  # the report's own section: every failing check in full
    adequacy: Section | None = None  # the report's own section: diff coverage, mutants, flaky
    traces: list[TraceLink] = field(default_factory=list)  # opened in Playwright's viewer
    change: ChangeView = field(default_factory=ChangeView)  # the diff, marked line by line
    previous: str | None = None  # the run this one is compared with first (its evaluator's last)
    others: list[str] = field(default_factory=list)  # the contract's other runs, newest first


@dataclass(frozen=True)
class TraceLink:
    """A failing browser check's kept trace, and where the app opens it."""

    criterion: str
    evidence_id: str
    href: str
    file: str  # the trace's file name in the run's artifacts, no folder


@dataclass(frozen=True)
class ScoreRow:
    dimension: str
    card: float | None
    draft: float | None
    source: str  # deterministic or judgment, as the run derived it
    overridden: bool
    evidence: str
    recommendation: str


@dataclass(frozen=True)
class VerdictRow:
    id: str
    card: bool | None
    draft: bool | None
    overridden: bool
    evidence: str


@dataclass(frozen=True)
class HumanVerdict:
    verdict: str
    note: str
    created_at: str
    agrees: bool | None


@dataclass(frozen=True)
class ScorecardPage:
    id: int
    contract_id: str
    evaluator: str
    iteration: int
    active: bool
    verdict: str | None
    weighted: float | None
    run_id: str | None
    summary: str
    guidance: str
    dimensions: list[ScoreRow]
    criteria: list[VerdictRow]
    issues: list[FindingLine]
    humans: list[HumanVerdict]


@dataclass(frozen=True)
class Change:
    """One thing compared across two iterations."""

    name: str
    before: str
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after


@dataclass(frozen=True)
class ComparePage:
    contract_id: str
    audience: Audience
    a: int
    b: int
    criteria: list[Change]
    dimensions: list[Change]
    findings_added: list[FindingLine]
    findings_removed: list[FindingLine]
    files: list[Change]
    runs: tuple[str, str] | None = None  # two runs compared, rather than two iterations
    contracts: tuple[str, str] | None = None  # the runs' contracts


@dataclass(frozen=True)
class AgreementBar:
    label: str  # evaluator (prompt version)
    count: int
    rate: float
    kappa: float | None
    kappa_note: str | None


@dataclass(frozen=True)
class ModelAgreement:
    """One judge (an evaluator with one prompt version and one model) against humans."""

    evaluator: str
    prompt_version: str
    model: str
    cases: int
    rate: float | None
    kappa: float | None


@dataclass(frozen=True)
class CalibrationPage:
    bars: list[AgreementBar]
    entries: list[HumanVerdict] = field(default_factory=list)
    models: list[ModelAgreement] = field(default_factory=list)
