"""The report as a document: titled sections of paragraphs, bullet lists, tables and figures.

Both renderers (Markdown and HTML) walk the same document, so the two pages never disagree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from referee.tools.report.adequacy import AdequacyRow
from referee.tools.report.analysis import FEASIBILITY, ids_text
from referee.tools.report.history import BROWSER_SHOWN, BrowserRow
from referee.tools.report.places import Places
from referee.tools.report.view import ReportView
from referee.tools.text import counted

CELL_LIMIT = 200


@dataclass(frozen=True)
class Para:
    text: str


@dataclass(frozen=True)
class Bullets:
    items: list[str]


@dataclass(frozen=True)
class Table:
    headers: list[str]
    rows: list[list[str]]
    empty: str = "none"


@dataclass(frozen=True)
class Code:
    """Text shown as it is: line breaks, indentation and repeated lines kept."""

    text: str


@dataclass(frozen=True)
class Figure:
    path: str  # read to embed the image; the page shows `shown`
    caption: str
    shown: str = ""


Block = Para | Bullets | Table | Code | Figure


@dataclass
class Section:
    title: str
    blocks: list[Block] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        """The section's fragment id, as GitHub derives it from a heading."""
        return re.sub(r"[^\w\- ]", "", self.title.lower()).replace(" ", "-")


@dataclass
class Document:
    title: str
    sections: list[Section]
    verdict: str  # the badge: DELIVER, REVISE, ESCALATE, PENDING, or NONE before any aggregate
    verdict_line: str = ""


def num(value: float | None, digits: int = 2) -> str:
    """A number for a table cell: rounded, without trailing zeros; an em dash for none."""
    return "—" if value is None else f"{round(value, digits):g}"


def document(view: ReportView, places: Places | None = None) -> Document:
    """Lay out every section of the report: the verdict first, then what failed, then the rest.

    Args:
        view: The analysed report.
        places: Machine prefixes to write as relative paths; none: texts as they are.
    """
    s = view.summary
    title = (
        f"referee report: {s.subject}"
        if s.kind == "contract"
        else f"referee report: run {s.subject}"
    )
    builders = (
        _summary,
        _failing,
        _dimensions,
        _findings,
        _priorities,
        _gaming,
        _alerts,
        _budget,
        _criteria,
        _adequacy,
        _trends,
        _strategy,
        _calibration,
        _browser,
        _evidence,
    )
    doc = Document(
        title=title,
        sections=[build(view) for build in builders],
        verdict=s.decision or "NONE",
        verdict_line=_verdict_line(view),
    )
    return _public(doc, places) if places is not None else doc


def _verdict_line(view: ReportView) -> str:
    s = view.summary
    if s.decision is None:
        return "no aggregate stored yet"
    n = len(view.failing)
    failing = counted(n, "failing criterion", "failing criteria") if n else "nothing failing"
    return (
        f"iteration {s.decision_iteration} of at most {s.max_iterations} ·"
        f" normalized {num(s.normalized)}/100 · {failing}"
    )


def _summary(view: ReportView) -> Section:
    s = view.summary
    items = [
        f"Contract: {s.contract_id}",
        f"Goal: {s.goal}",
        f"Rubric: {s.rubric}",
        (
            f"Iteration: {s.iteration if s.iteration is not None else '—'} of at most"
            f" {s.max_iterations}"
        ),
        _decision(view),
        f"Score: weighted {num(s.weighted)}, normalized {num(s.normalized)}/100 ({s.score_source})",
    ]
    items += [f"Verdict of {name}: {verdict}" for name, verdict in s.verdicts.items()]
    if s.health is not None:
        dims = ", ".join(f"{k} {num(v)}" for k, v in s.health.dimensions.items())
        items.append(
            f"PROJECT_HEALTH: {num(s.health.composite, 3)} {s.health.band} ({dims}; run"
            f" {s.health.run_id})"
        )
    items.append(f"Gaming check: {s.gaming}")
    items.append(f"Isolation: {s.isolation}")
    blocks: list[Block] = [Bullets(items)]
    if view.warnings:
        blocks.append(Bullets([f"Warning: {w}" for w in view.warnings]))
    return Section("Summary", blocks)


def _decision(view: ReportView) -> str:
    s = view.summary
    if s.decision is None:
        return "Decision: none yet (no aggregate stored)"
    return f"Decision: {s.decision} (iteration {s.decision_iteration}) — {s.reason}"


def _failing(view: ReportView) -> Section:
    """Every criterion that did not pass, none hidden: reason in full, the check's command."""
    if not view.failing:
        return Section("What failed", [Para("Nothing failed in the latest iteration.")])
    blocks: list[Block] = []
    for f in view.failing:
        hold = " (hold-out)" if f.holdout else ""
        code = f" `{f.reason_code}`" if f.reason_code else ""
        blocks.append(Para(f"{f.id}{hold} — {f.status}{code}: {f.criterion}"))
        details = []
        if f.command:
            details.append(f"Check: `{f.command}`")
        if f.evidence_ids:
            details.append(f"Evidence: {ids_text(f.evidence_ids)} of run {f.run_id}")
        if details:
            blocks.append(Bullets(details))
        blocks.append(Code(f.reason))
    browser = [b for b in view.browser_checks if b.failed]
    if browser:
        blocks.append(
            Para(
                f"{counted(len(browser), 'failing browser check')} in full under Browser checks:"
                f" {', '.join(b.criterion.split(':', 1)[0] for b in browser)}."
            )
        )
    return Section("What failed", blocks)


def _dimensions(view: ReportView) -> Section:
    names = list(view.dimensions[0].scores) if view.dimensions else []
    headers = [
        "Dimension",
        "Weight",
        *names,
        "referee",
        "Source",
        "Confidence",
        "Key finding",
        "Evidence",
    ]
    rows = [
        [
            d.name,
            num(d.weight),
            *(num(v) for v in d.scores.values()),
            num(d.referee),
            d.source,
            num(d.confidence),
            d.finding,
            ids_text(d.evidence_ids),
        ]
        for d in view.dimensions
    ]
    return Section("Dimension scores", [Table(headers, rows)])


def _findings(view: ReportView) -> Section:
    rows = [
        [str(i), f.severity, f.rule, f.location or "—", f.message, ", ".join(f.sources)]
        for i, f in enumerate(view.findings, 1)
    ]
    blocks: list[Block] = [
        Table(["#", "Severity", "Rule", "Location", "Message", "Reported by"], rows)
    ]
    if view.baseline:
        counts = ", ".join(f"{rule} {n}" for rule, n in view.baseline.items())
        blocks.append(Para(f"Baseline, not counted (these findings predate the change): {counts}."))
    return Section("Findings (priority-ranked)", blocks)


def _priorities(view: ReportView) -> Section:
    explain = Para(
        f"priority = (1 − score / max) × weight × feasibility; feasibility {FEASIBILITY['static']}"
        f" when static findings lowered the dimension, {FEASIBILITY['tests']} when failing checks"
        f" did, {FEASIBILITY['judgment']} when only judgement did."
    )
    rows = [
        [
            str(i),
            p.name,
            f"{num(p.score)}/{num(p.max)}",
            num(p.weight),
            f"{num(p.feasibility)} ({p.fix_kind})",
            num(p.priority, 4),
            p.recommendation,
            p.evidence,
        ]
        for i, p in enumerate(view.priorities, 1)
    ]
    headers = [
        "#",
        "Dimension",
        "Score",
        "Weight",
        "Feasibility",
        "Priority",
        "Recommendation",
        "Evidence",
    ]
    return Section(
        "Improvement priorities",
        [explain, Table(headers, rows, empty="every dimension is at the top")],
    )


def _gaming(view: ReportView) -> Section:
    rows = [
        [
            g.evaluator,
            str(g.iteration),
            num(g.original),
            num(g.perturbed),
            num(g.g, 3),
            g.band,
            f"−{num(g.penalty * 100)}% → {num(g.adjusted)}" if g.penalty else "none",
        ]
        for g in view.gaming
    ]
    copies = [
        [
            p.run_id,
            p.path,
            str(p.files),
            ", ".join(p.transforms),
            {True: "yes", False: "NO", None: "not checked"}[p.semantics_kept],
        ]
        for p in view.perturbations
    ]
    return Section(
        "Anti-gaming results",
        [
            Para(
                "G = |original − perturbed| / original: below 0.1 clean, 0.1–0.3 suspect, above 0.3"
                " gaming (−20%)."
            ),
            Table(
                ["Evaluator", "Iteration", "Original", "Perturbed", "G", "Band", "Penalty"],
                rows,
                empty=(
                    "no perturbed re-scoring stored (evaluate at depth deep offers a perturbed"
                    " copy)"
                ),
            ),
            Table(
                ["Run", "Perturbed copy", "Files", "Transforms", "Tests still pass"],
                copies,
                empty="no perturbed copy was made",
            ),
        ],
    )


def _alerts(view: ReportView) -> Section:
    rows = [[a.kind, a.dimension or "—", a.message] for a in view.alerts]
    blocks: list[Block] = [
        Table(["Kind", "Dimension", "Message"], rows, empty="none (or no aggregate stored yet)")
    ]
    if view.quality_notes:
        blocks.append(Bullets([f"Quality note: {n}" for n in view.quality_notes]))
    return Section("Alerts", blocks)


def _budget(view: ReportView) -> Section:
    """What the loop cost, and what the solo attempt (the first iteration) already did."""
    b = view.budget
    if b is None or not b.iterations:
        return Section("Budget", [Para("no aggregate stored yet")])
    costs = [*b.iterations, *([b.total] if b.total else [])]
    rows = [
        [
            str(c.iteration) if c.iteration else "total",
            num(c.wall_s, 1),
            num(c.checks_s, 1),
            num(c.judging_s, 1),
            num(c.generator_s, 1),
            f"{c.tokens:,}" if c.tokens is not None else "—",
            f"${c.cost_usd:.2f}" if c.cost_usd is not None else "—",
        ]
        for c in costs
    ]
    headers = ["Iteration", "Wall s", "Checks s", "Judging s", "Generator s", "Tokens", "Cost"]
    blocks: list[Block] = [Table(headers, rows)]
    blocks += [Para(text) for text in (b.solo, b.note) if text]
    return Section("Budget", blocks)


def _criteria(view: ReportView) -> Section:
    its = view.trends.iterations
    rows = [
        [
            c.id + (" (hold-out)" if c.holdout else ""),
            c.evaluator,
            c.method,
            c.criterion,
            *(c.cells.get(i, "—") for i in its),
        ]
        for c in view.criteria
    ]
    headers = [
        "Criterion",
        "Evaluator",
        "Method",
        "What must hold",
        *(f"Iteration {i}" for i in its),
    ]
    note = Para(
        "Each cell: referee's check / the evaluator's scorecard. Hold-outs are marked: this report"
        " is for evaluators and people, never for the generator."
    )
    return Section("Criteria", [note, Table(headers, rows)])


def _adequacy(view: ReportView) -> Section:
    return adequacy_section(view.adequacy)


def adequacy_section(found: list[AdequacyRow]) -> Section:
    """Do the tests pin the change: uncovered changed lines, surviving mutants, flaky tests."""
    rows = [[r.criterion, r.kind, r.location, r.detail, r.evidence_id or "—"] for r in found]
    headers = ["Criterion", "What", "Where", "Detail", "Evidence"]
    empty = "not measured (task scope, Python tests checks; mutants at depth deep)"
    return Section("Test adequacy", [Table(headers, rows, empty=empty)])


def _trends(view: ReportView) -> Section:
    t = view.trends
    series = [t.overall, *t.dimensions, *([t.health] if t.health else [])]
    rows = [[s.label, s.spark, " → ".join(num(v) for v in s.values)] for s in series]
    return Section(
        "Trends",
        [
            Table(
                ["Series", "Trend", "Per iteration " + ", ".join(map(str, t.iterations))],
                rows,
                empty="no history yet",
            )
        ],
    )


def _strategy(view: ReportView) -> Section:
    """evaluate(scope="strategic") as a section: each dimension's direction and high-water mark,
    the regression risks and saturated dimensions (the priorities are their own section)."""
    s = view.strategy
    if s is None:
        return Section("Strategic direction", [Para("contract reports only")])
    rows = [
        [
            t.dimension,
            t.direction,
            num(t.latest),
            f"{num(t.high_water)} (iteration {t.high_water_iteration})"
            if t.high_water is not None
            else "—",
        ]
        for t in s.trends
    ]
    blocks: list[Block] = [
        Table(["Dimension", "Direction", "Latest", "High-water mark"], rows, empty="no history")
    ]
    risks = [
        f"Regression risk: {r.message} [{ids_text(r.evidence_ids)}]" for r in s.regression_risks
    ]
    saturated = [f"Saturation: {x.message}" for x in s.saturation]
    blocks.append(Bullets(risks + saturated or ["No regression risk and no saturated dimension."]))
    blocks += [Para(f"Note: {n}") for n in s.notes]
    return Section("Strategic direction", blocks)


def _calibration(view: ReportView) -> Section:
    rows = [
        [
            str(c.scorecard_id),
            c.evaluator,
            str(c.iteration or "—"),
            c.prompt_version or "—",
            c.card_verdict or "—",
            c.human_verdict,
            {True: "yes", False: "no", None: "—"}[c.agrees],
            c.note,
        ]
        for c in view.calibration
    ]
    headers = [
        "Scorecard",
        "Evaluator",
        "Iteration",
        "Prompt version",
        "Scorecard verdict",
        "Human verdict",
        "Agrees",
        "Note",
    ]
    return Section(
        "Calibration", [_agreement(view), Table(headers, rows, empty="no human verdicts recorded")]
    )


def _agreement(view: ReportView) -> Table:
    """Agreement with humans per evaluator prompt version: the dataset for tuning the evaluator."""
    versions = view.agreement.versions if view.agreement else []
    rows = [
        [
            v.evaluator_prompt_version,
            str(v.count),
            f"{v.agreement_rate:.0%}",
            "—" if v.kappa is None else f"{v.kappa:.2f}",
            v.kappa_note or "",
        ]
        for v in versions
    ]
    return Table(
        ["Prompt version", "Verdicts", "Agreement", "Cohen's kappa", "Note"],
        rows,
        empty="no agreement to report yet",
    )


def _evidence(view: ReportView) -> Section:
    rows = [
        [
            e.run_id,
            e.id,
            e.tool,
            e.command,
            "—" if e.exit_code is None else str(e.exit_code),
            e.summary,
        ]
        for e in view.evidence
    ]
    return Section(
        "Evidence index", [Table(["Run", "Id", "Tool", "Command", "Exit", "Summary"], rows)]
    )


def _browser(view: ReportView) -> Section:
    return browser_section(view.browser_checks)


def browser_section(checks: list[BrowserRow], most: int = BROWSER_SHOWN) -> Section:
    """Each browser criterion, failing ones first and all of them: verdict and reason, its
    command, steps, what failed with Playwright's messages verbatim, then its screenshot; passing
    ones fill the section up to `most`."""
    if not checks:
        return Section("Browser checks", [Para("no browser check in this report")])
    failing = [b for b in checks if b.failed]
    passing = [b for b in checks if not b.failed]
    shown = passing[: max(0, most - len(failing))]
    blocks: list[Block] = []
    for b in failing + shown:
        blocks += _browser_blocks(b)
    left = len(passing) - len(shown)
    if left > 0:
        blocks.append(
            Para(
                f"… {counted(left, 'more passing browser check')}: referee report --json lists all"
            )
        )
    return Section("Browser checks", blocks)


def _browser_blocks(b: BrowserRow) -> list[Block]:
    blocks: list[Block] = [
        Para(f"{b.criterion} — {b.status or 'recorded'} ({b.run_id} {b.evidence_id})"),
        Para(f"Reason: {b.reason}"),
    ]
    if b.command:
        blocks.append(Para(f"Check: `{b.command}`"))
    if b.steps:
        blocks.append(Bullets([f"Step {line}" for line in b.steps]))
    if b.failing or b.warnings:
        failing = [f"Failing expectation {line}" for line in b.failing]
        blocks.append(Bullets(failing + [f"Warning on expectation {w}" for w in b.warnings]))
    blocks += [Code(message) for message in b.messages]
    if b.screenshot:
        blocks.append(Figure(path=b.screenshot, caption=f"{b.criterion} ({b.status})"))
    if b.trace:
        blocks.append(Para(f"Trace: {b.trace} (open it with npx playwright show-trace {b.trace})"))
    return blocks


def _public(doc: Document, places: Places) -> Document:
    """The document with every machine path written relative to what a reader knows."""
    return replace(
        doc,
        title=places.public(doc.title),
        sections=[public_section(sec, places) for sec in doc.sections],
    )


def public_section(sec: Section, places: Places) -> Section:
    """A section with every machine path written relative to what a reader knows."""
    return Section(places.public(sec.title), [_public_block(b, places) for b in sec.blocks])


def _public_block(block: Block, places: Places) -> Block:
    p = places.public
    if isinstance(block, Para):
        return Para(p(block.text))
    if isinstance(block, Code):
        return Code(p(block.text))
    if isinstance(block, Bullets):
        return Bullets([p(item) for item in block.items])
    if isinstance(block, Figure):
        return Figure(path=block.path, caption=p(block.caption), shown=p(block.path))
    rows = [[_cell(p(c)) for c in row] for row in block.rows]
    return Table([p(h) for h in block.headers], rows, p(block.empty))


def _cell(text: str) -> str:
    # A table cell is one line; a long command is cut after its paths were made relative.
    return text if len(text) <= CELL_LIMIT else text[: CELL_LIMIT - 1] + "…"
