"""The viewer's pages as HTML, in the report's page shell (tools/report/html.py): one template
source, so a report and the viewer never disagree.

Everything from the store is escaped here, in one place (`_e`): contracts, evidence, scorecards
and notes are written by the generator's code under test and by judges, and a page must never run
what they wrote.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from urllib.parse import quote

from referee.tools.report.html import page, section_html
from referee.tools.report.layout import num
from referee.tools.view import links
from referee.tools.view.pages import (
    CalibrationPage,
    Change,
    ChangeView,
    ComparePage,
    ContractPage,
    ContractsPage,
    DiffFile,
    FindingLine,
    HumanVerdict,
    LivePage,
    LiveRow,
    Log,
    Plot,
    RunPage,
    ScorecardPage,
)
from referee.tools.view.svg import agreement_bars, line_chart

CSS = """
.top{display:flex;gap:1.2rem;align-items:baseline;border-bottom:1px solid #d5d9e2;
padding-bottom:.4rem}.top .who{margin-left:auto;color:#475467;font-size:12px}
a{color:#1f4fbf}a:focus,button:focus,input:focus,select:focus,textarea:focus,summary:focus
{outline:3px solid #8a5a00;outline-offset:2px}
.v{font-weight:600;padding:0 .3rem;border-radius:.2rem}.v-ACCEPT,.v-DELIVER,.v-pass{color:#067647}
.v-REVISE,.v-unscored{color:#8a4a00}.v-BLOCK,.v-ESCALATE,.v-fail,.v-failed,.v-error{color:#b42318}
.override td{background:#fff4d6 !important}.override td:first-child{border-left:4px solid #8a5a00}
.log{max-height:32rem;overflow:auto}.log span{display:block}.log .hit{background:#fde2e1}
.log span:target{outline:2px solid #b42318;background:#fde2e1}
.plot{width:100%;max-width:760px;height:auto;font-size:11px}
figure.chart{display:block}.plot .grid{stroke:#d5d9e2}.plot .track{fill:#eef2fa}
form.filters{display:flex;flex-wrap:wrap;gap:.6rem;align-items:end;margin:.6rem 0}
form.filters label,form.verdict label{display:flex;flex-direction:column;font-size:12px}
form.verdict fieldset{border:1px solid #d5d9e2;margin:.4rem 0}
button{padding:.35rem .8rem}.note{color:#475467}.flash{background:#e7f6ec;padding:.4rem}
.delivered{background:#e7f6ec}
table.diff{font-size:12px}table.diff td{padding:0 .4rem;white-space:pre-wrap}
table.diff td:nth-child(-n+2){color:#475467;text-align:right}
.diff .add td{background:#e7f6ec}.diff .del td{background:#fdeceb}.diff .gap td{color:#475467}
.diff .m-uncovered td{background:#fff4d6}.diff .m-mutant td,.diff .m-finding td{background:#fde2e1}
.diff .why td{font-size:11px;color:#5a3e00}.diff .mk{margin-left:.6rem;font-weight:600;
font-size:11px;color:#5a3e00}
"""


# No favicon to fetch: the page asks for nothing beyond itself.
HEAD = '<link rel="icon" href="data:,">\n'


@dataclass(frozen=True)
class Context:
    """How a page is rendered: for the running app (forms work) or for a bundle on disk."""

    live: bool = False
    csrf: str = ""
    message: str = ""


def _e(value: object) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _a(href: str, text: object) -> str:
    return f'<a href="{_e(href)}">{_e(text)}</a>'


def _v(value: object) -> str:
    text = "—" if value in (None, "") else str(value)
    return f'<span class="v v-{_e(text)}">{_e(text)}</span>'


def _shell(title: str, body: str, audience: str, ctx: Context, head: str = "") -> str:
    top = (
        f'<nav class="top" aria-label="Site">{_a(links.INDEX, "Contracts")}'
        f"{_a(links.CALIBRATION, 'Calibration') if audience == 'evaluator' else ''}"
        f'<span class="who">{_e(audience)} view{"" if ctx.live else " · static bundle"}</span>'
        "</nav>"
    )
    flash = f'<p class="flash" role="status">{_e(ctx.message)}</p>' if ctx.message else ""
    return page(title, f"{top}\n<h1>{_e(title)}</h1>\n{flash}{body}", css=CSS, head=HEAD + head)


def missing_html(message: str, audience: str, ctx: Context, title: str = "Not found") -> str:
    return _shell(title, f"<p>{_e(message)}</p>", audience, ctx)


def _table(headers: list[str], rows: list[str], empty: str = "none", caption: str = "") -> str:
    if not rows:
        return f'<p class="empty">{_e(empty)}</p>'
    cap = f"<caption>{_e(caption)}</caption>" if caption else ""
    head = "".join(f'<th scope="col">{_e(h)}</th>' for h in headers)
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _tr(*cells: str, cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return f"<tr{attr}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def contracts_html(p: ContractsPage, audience: str, ctx: Context, updating: bool = False) -> str:
    """The contracts list with its filters (a GET form the running app answers)."""
    rows = [
        _tr(
            _a(links.contract(r.id), r.id),
            _e(r.goal),
            _v(r.decision),
            f"{r.iteration} of {r.max_iterations}",
            _e(r.last_activity[:19].replace("T", " ")),
            _e(", ".join(r.evaluators)),
        )
        for r in p.rows
    ]
    table = _table(
        ["Contract", "Goal", "Decision", "Iteration", "Last activity", "Evaluators"],
        rows,
        empty="no contract matches" if p.total else "no contract is stored yet",
    )
    fresh = " (the store changed: the list is being brought up to date)" if updating else ""
    shown = f'<p class="note">{p.matching} of {p.total} contracts{_page_of(p)}{fresh}</p>'
    trend = f"<h2>History</h2>{_plot(p.history, 'history-figure')}" if p.history else ""
    body = _running(p.running, ctx) + _filters(p, ctx) + shown + table + _pager(p) + trend
    return _shell("Contracts", body, audience, ctx)


def _running(rows: list[LiveRow], ctx: Context, heading: bool = True) -> str:
    """The evaluations running now, each with its latest progress message."""
    if not rows:
        return ""
    items = "".join(
        f"<li>{_a(links.contract(r.contract_id), r.contract_id)}"
        + (f" · {_e(r.evaluator)}" if r.evaluator else "")
        + (f" · {_e(num(r.done, 0))} of {_e(num(r.total, 0))}" if r.total else "")
        + f" · {_e(r.message)} · since {_e(r.started_at[11:19])}</li>"
        for r in rows
    )
    watch = f" ({_a(links.LIVE, 'watch live')})" if ctx.live else ""
    title = f"<h2>Running now{watch}</h2>" if heading else ""
    return f'{title}<ul aria-live="polite">{items}</ul>'


def live_html(p: LivePage, audience: str, ctx: Context) -> str:
    """The evaluations running now; reloaded every few seconds only when the reader asks (an
    unasked refresh is what axe's meta-refresh rule forbids)."""
    if p.refresh:
        toggle = _a(links.LIVE, "stop refreshing")
        head = f'<meta http-equiv="refresh" content="{p.refresh}">\n'
    else:
        toggle, head = _a(f"{links.LIVE}?refresh=2", "refresh every 2 seconds"), ""
    recent = "".join(
        f"<h2>{_e(r.contract_id)}</h2><ol>{''.join(f'<li>{_e(m)}</li>' for m in r.recent)}</ol>"
        for r in p.rows
        if r.recent
    )
    body = (
        f"<p>{toggle}</p>"
        + (_running(p.rows, ctx, heading=False) or _none("no evaluation is running"))
        + recent
    )
    return _shell("Running now", body, audience, ctx, head=head)


def _page_of(p: ContractsPage) -> str:
    return f", page {p.filters.page} of {p.pages}" if p.pages > 1 else ""


def _pager(p: ContractsPage) -> str:
    if p.pages <= 1:
        return ""
    f = p.filters
    keep = {"decision": f.decision, "evaluator": f.evaluator, "since": f.since, "until": f.until}
    keep["q"] = f.q
    base = "&".join(f"{k}={quote(v)}" for k, v in keep.items() if v)

    def at(n: int, text: str) -> str:
        return _a(f"{links.INDEX}?{base}{'&' if base else ''}page={n}", text)

    steps = [at(f.page - 1, "previous page")] if f.page > 1 else []
    steps += [at(f.page + 1, "next page")] if f.page < p.pages else []
    return f'<nav aria-label="Pages"><p>{" · ".join(steps)}</p></nav>'


def _options(name: str, values: list[str], chosen: str) -> str:
    opts = ['<option value="">any</option>'] + [
        f'<option value="{_e(v)}"{" selected" if v == chosen else ""}>{_e(v)}</option>'
        for v in values
    ]
    return f'<select name="{name}" id="f-{name}">{"".join(opts)}</select>'


def _filters(p: ContractsPage, ctx: Context) -> str:
    if not ctx.live:
        return '<p class="note">Filters and search work in <code>referee view</code>.</p>'
    f = p.filters
    return (
        f'<form class="filters" method="get" action="{links.INDEX}" role="search">'
        f"<label>Decision{_options('decision', [*p.decisions, 'NONE'], f.decision)}</label>"
        f"<label>Evaluator{_options('evaluator', p.evaluators, f.evaluator)}</label>"
        f'<label>Active since<input type="date" name="since" value="{_e(f.since)}"></label>'
        f'<label>Active until<input type="date" name="until" value="{_e(f.until)}"></label>'
        f'<label>Search<input type="search" name="q" value="{_e(f.q)}"></label>'
        "<button type=submit>Filter</button></form>"
    )


def contract_html(p: ContractPage, ctx: Context) -> str:
    """A contract: the matrix, decisions and briefs per iteration, the delivered one, plots."""
    parts = [
        _running(p.running, ctx),
        f"<p>{_e(p.goal)}</p>",
        f"<p>Decision: {_v(p.decision)} · rubric {_e(p.rubric)} · at most"
        f" {p.max_iterations} iterations"
        + (f" · {_a(links.report(p.id), 'full report')}" if p.audience == "evaluator" else "")
        + "</p>",
    ]
    if p.checkout:
        parts.append(
            f"<p>Delivered: iteration {p.delivered}. Restore it with <code>{_e(p.checkout)}</code>"
            "</p>"
        )
    parts += [
        "<h2>Iterations × evaluators</h2>",
        _matrix(p),
        "<h2>Decisions and revision briefs</h2>",
        _decisions(p),
        "<h2>Alerts</h2>",
        _table(
            ["Kind", "Dimension", "Message"],
            [_tr(_e(a.kind), _e(a.dimension or "—"), _e(a.message)) for a in p.alerts],
        ),
        "<h2>Criteria</h2>",
        _criteria(p),
        "<h2>Compare iterations</h2>",
        _pairs(p),
        "<h2>Plots</h2>",
        "".join(_plot(plot, f"plot-{i}") for i, plot in enumerate(p.plots)) or _none("no scores"),
    ]
    return _shell(p.id, "\n".join(parts), p.audience, ctx)


def _none(text: str) -> str:
    return f'<p class="empty">{_e(text)}</p>'


def _matrix(p: ContractPage) -> str:
    rows = []
    for it in p.iterations:
        cells = []
        for name in p.evaluators:
            c = it.cells[name]
            score = "" if c.weighted is None else f" {num(c.weighted)}"
            text = _v(c.verdict) + _e(score)
            if c.scorecard_id is not None and p.audience == "evaluator":
                text = f'<a href="{links.scorecard(c.scorecard_id)}">{text}</a>'
            cells.append(text)
        runs = ", ".join(
            f"{_a(links.run(r.run_id), r.run_id)} ({r.passed} pass, {r.failed} fail)"
            for r in it.runs
        )
        mark = " (delivered)" if it.number == p.delivered else ""
        cls = "delivered" if mark else ""
        rows.append(_tr(f"{it.number}{mark}", *cells, _v(it.decision), runs or "—", cls=cls))
    headers = ["Iteration", *p.evaluators, "Decision", "Runs"]
    return _table(headers, rows, empty="nothing evaluated yet")


def _decisions(p: ContractPage) -> str:
    out = []
    for it in p.iterations:
        if it.decision is None:
            continue
        brief = "".join(f"<li>{_e(t)}</li>" for t in it.brief)
        hidden = f"<p>{_e(it.hidden_failed)} hidden checks failed.</p>" if it.hidden_failed else ""
        reason = f"<p>{_e(it.reason)}</p>" if it.reason else ""
        out.append(
            f"<h3>Iteration {it.number}: {_v(it.decision)}</h3>{reason}"
            + (f"<ul>{brief}</ul>" if brief else _none("no revision brief"))
            + hidden
        )
    return "".join(out) or _none("no aggregate stored yet")


def _criteria(p: ContractPage) -> str:
    rows = [
        _tr(
            _e(c.id + (" (hold-out)" if c.holdout else "")),
            _e(c.evaluator),
            _e(c.method),
            _e(c.criterion),
        )
        for c in p.criteria
    ]
    return _table(["Criterion", "Evaluator", "Method", "What must hold"], rows)


def _pairs(p: ContractPage) -> str:
    items = "".join(
        f"<li>{_a(links.compare(p.id, a, b), f'iteration {a} → iteration {b}')}</li>"
        for a, b in p.pairs
    )
    return f"<ul>{items}</ul>" if items else _none("one iteration only")


def _plot(plot: Plot, ident: str) -> str:
    headers = ["Series", *(plot.columns or [f"Iteration {x}" for x in plot.xs])]
    rows = [_tr(_e(s.label), *(_e(num(v)) for v in s.values)) for s in plot.series]
    return (
        f'<figure class="chart"><figcaption>{_e(plot.title)}'
        f"</figcaption>{line_chart(plot, ident)}</figure>"
        f"<details><summary>{_e(plot.title)} as numbers</summary>{_table(headers, rows)}</details>"
    )


def run_html(p: RunPage, ctx: Context) -> str:
    """A run: criteria failing first, tests failing first, then every log, line by line."""
    head = (
        f"<p>{_a(links.contract(p.contract_id), p.contract_id)} · iteration {p.iteration}"
        f" · evaluator {_e(p.evaluator or 'all')} · tree <code>{_e(p.tree[:12])}</code>"
        f" · sandbox {_e(p.sandbox)}</p>"
    )
    parts = [
        head,
        "<h2>Criteria</h2>",
        _table(
            ["Criterion", "Status", "Reason", "Check", "Evidence"],
            [
                _tr(
                    _e(c.id + (" (hold-out)" if c.holdout else "")) + f"<br>{_e(c.criterion)}",
                    _v(c.status),
                    f"<pre>{_e(c.reason)}</pre>"
                    + (f"<code>{_e(c.reason_code)}</code>" if c.reason_code else ""),
                    f"<code>{_e(c.command)}</code>" if c.command else "—",
                    _a(f"#{c.anchor}", "log line") if c.anchor else _e(", ".join(c.evidence_ids)),
                )
                for c in p.criteria
            ],
        ),
        "<h2>Tests</h2>",
        _table(
            ["Test", "Outcome", "Seconds", "Message"],
            [
                _tr(
                    (_a(f"#{t.anchor}", t.name) if t.anchor else _e(t.name)),
                    _v(t.outcome),
                    _e(num(t.duration_s, 3)),
                    f"<pre>{_e(t.message)}</pre>" if t.message else "",
                )
                for t in p.tests
            ],
            empty="no per-test outcomes recorded",
        ),
        "<h2>Files changed since base</h2>",
        _list([f"<code>{_e(f)}</code>" for f in p.changed_files], "none"),
        "<h2>The change</h2>",
        _change(p.change),
        "<h2>Findings</h2>",
        _findings(p.findings),
    ]
    if p.audience == "evaluator":
        parts += ["<h2>Issues</h2>", _findings(p.issues), "<h2>Scorecards</h2>", _cards(p)]
    parts += [section_html(sec) for sec in (p.adequacy, p.browser) if sec is not None]
    parts += _traces(p, ctx)
    parts += _compare_with(p, ctx)
    parts += ["<h2>Logs</h2>", "".join(_log(log) for log in p.logs) or _none("no output")]
    return _shell(f"Run {p.run_id}", "\n".join(parts), p.audience, ctx)


_MARKED = {"uncovered": "not executed", "mutant": "mutant survived", "finding": "finding"}


def _change(change: ChangeView) -> str:
    """The diff as a table per file: base and new line numbers, the line, and under an added
    line what the run said of it. Marked lines carry a class and a word, never colour alone."""
    if not change.files:
        return _none(change.note or "no change")
    return "".join(_diff_file(f) for f in change.files)


def _diff_file(f: DiffFile) -> str:
    cover = "".join(f"<li>{_e(c)}</li>" for c in f.coverage)
    head = f"<h3><code>{_e(f.path)}</code> ({_e(f.state)})</h3>" + (
        f'<ul class="note">{cover}</ul>' if cover else ""
    )
    rows = []
    for line in f.lines:
        cls = {"+": "add", "-": "del", "…": "gap"}.get(line.kind, "ctx")
        kinds = sorted({k for k, _ in line.marks})
        if kinds:
            cls += " " + " ".join(f"m-{k}" for k in kinds)
        label = "".join(f'<span class="mk">{_e(_MARKED[k])}</span>' for k in kinds)
        rows.append(
            f'<tr class="{cls}"><td>{_e(line.old or "")}</td><td>{_e(line.new or "")}</td>'
            f"<td><code>{_e(line.kind)} {_e(line.text)}</code>{label}</td></tr>"
        )
        rows += [
            f'<tr class="why m-{_e(k)}"><td></td><td></td><td>{_e(text)}</td></tr>'
            for k, text in line.marks
        ]
    table = (
        '<table class="diff"><thead><tr><th scope="col">Base</th><th scope="col">Now</th>'
        f'<th scope="col">Line</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
        if rows
        else ""
    )
    note = f'<p class="note">{_e(f.note)}</p>' if f.note else ""
    return head + table + note


def _compare_with(p: RunPage, ctx: Context) -> list[str]:
    """Links to this run beside another: the previous one everywhere; in the running app, any
    other run of the contract (a bundle holds only the pages it links)."""
    others = ([p.previous] if p.previous else []) + (p.others if ctx.live else [])
    items = [
        _a(links.compare_runs(o, p.run_id), f"compare with run {o}")
        + (" (the previous run)" if o == p.previous else "")
        for o in others
    ]
    return ["<h2>Compare</h2>", _list(items, "no other run to compare with")]


def _traces(p: RunPage, ctx: Context) -> list[str]:
    """Each kept trace: opened in Playwright's trace viewer by the running app; a bundle on disk
    (where a service worker cannot run) says how to open the run's own file."""
    if not p.traces:
        return []
    if ctx.live:
        items = [
            _a(t.href, f"open the trace of {t.criterion or t.evidence_id}")
            + f" in Playwright's trace viewer ({_e(t.evidence_id)})"
            for t in p.traces
        ]
    else:
        items = [
            f"{_e(t.criterion or t.evidence_id)}: <code>npx playwright show-trace"
            f" {_e(t.file)}</code>, the run's artifact (<code>referee view</code> opens it here)"
            for t in p.traces
        ]
    return ["<h2>Traces</h2>", _list(items, "")]


def _list(items: list[str], empty: str) -> str:
    return "<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>" if items else _none(empty)


def _findings(found: list[FindingLine]) -> str:
    rows = [
        _tr(
            f'<span class="sev-{_e(f.severity)}">{_e(f.severity)}</span>',
            _e(f.rule),
            _e(f.location or "—"),
            _e(f.message),
        )
        for f in found
    ]
    return _table(["Severity", "Rule", "Location", "Message"], rows)


def _cards(p: RunPage) -> str:
    items = [
        f"{_a(links.scorecard(c.id), f'scorecard {c.id}')} by {_e(c.evaluator)}: {_v(c.verdict)}"
        + ("" if c.active else " (replaced)")
        for c in p.cards
    ]
    return _list(items, "no scorecard rests on this run")


def _log(log: Log) -> str:
    lines = "".join(
        f'<span id="{_e(log.evidence_id)}-L{x.number}"{" class=hit" if x.marked else ""}>'
        f"{_e(x.text) or ' '}</span>"
        for x in log.lines
    )
    exit_code = "—" if log.exit_code is None else log.exit_code
    cut = " (cut: the full log is an artifact of the run)" if log.truncated else ""
    return (
        f'<section id="log-{_e(log.evidence_id)}" aria-label="Log of {_e(log.evidence_id)}">'
        f"<h3>{_e(log.evidence_id)} · {_e(log.tool)} · exit {_e(exit_code)}</h3>"
        f"<p><code>{_e(log.command)}</code> — {_e(log.summary)}{_e(cut)}</p>"
        f'<pre class="log" tabindex="0"><code>{lines}</code></pre></section>'
    )


def scorecard_html(p: ScorecardPage, ctx: Context) -> str:
    """A scorecard beside its run's draft: overridden scores and verdicts highlighted."""
    head = (
        f"<p>{_a(links.contract(p.contract_id), p.contract_id)} · iteration {p.iteration} ·"
        f" {_e(p.evaluator)} · verdict {_v(p.verdict)} · weighted {_e(num(p.weighted))}"
        + ("" if p.active else " · replaced by a later scorecard")
        + (f" · run {_a(links.run(p.run_id), p.run_id)}" if p.run_id else "")
        + "</p>"
    )
    dims = [
        _tr(
            _e(d.dimension) + (" (override)" if d.overridden else ""),
            _e(num(d.card)),
            _e(num(d.draft)),
            _e(d.source),
            _e(d.evidence),
            _e(d.recommendation),
            cls="override" if d.overridden else "",
        )
        for d in p.dimensions
    ]
    crit = [
        _tr(
            _e(c.id) + (" (override)" if c.overridden else ""),
            _e(_yes(c.card)),
            _e(_yes(c.draft)),
            _e(c.evidence),
            cls="override" if c.overridden else "",
        )
        for c in p.criteria
    ]
    parts = [
        head,
        f"<p>{_e(p.summary)}</p>" if p.summary else "",
        "<h2>Dimensions: the judge beside referee</h2>",
        '<p class="note">Highlighted rows: the judge changed a score or verdict referee derived.'
        "</p>",
        _table(["Dimension", "Scorecard", "referee", "Source", "Evidence", "Recommendation"], dims),
        "<h2>Criteria</h2>",
        _table(["Criterion", "Scorecard", "referee", "Evidence"], crit),
        "<h2>Issues</h2>",
        _findings(p.issues),
        f"<h2>Guidance</h2><p>{_e(p.guidance or '—')}</p>",
        '<h2 id="human">Human verdicts</h2>',
        _humans(p.humans),
        _verdict_form(p, ctx),
    ]
    return _shell(f"Scorecard {p.id}", "\n".join(parts), "evaluator", ctx)


def _yes(value: bool | None) -> str:
    return {True: "pass", False: "fail", None: "—"}[value]


def _humans(found: list[HumanVerdict]) -> str:
    rows = [
        _tr(
            _v(h.verdict),
            _e({True: "agrees", False: "disagrees", None: "—"}[h.agrees]),
            _e(h.note),
            _e(h.created_at[:19].replace("T", " ")),
        )
        for h in found
    ]
    return _table(
        ["Verdict", "With the scorecard", "Note", "Recorded"],
        rows,
        empty="no human verdict recorded yet",
    )


def _verdict_form(p: ScorecardPage, ctx: Context) -> str:
    if not ctx.live:
        return '<p class="note">Record a human verdict in <code>referee view</code>.</p>'
    others = [v for v in ("ACCEPT", "REVISE", "BLOCK") if v != p.verdict]
    choice = "".join(f'<option value="{v}">{v}</option>' for v in others)
    agree = (
        f'<label><span><input type="radio" name="choice" value="agree" checked> I agree with'
        f" {_e(p.verdict)}</span></label>"
        if p.verdict
        else ""
    )
    return (
        f'<form class="verdict" method="post" action="{links.scorecard(p.id)}">'
        f'<input type="hidden" name="csrf" value="{_e(ctx.csrf)}">'
        f"<fieldset><legend>Your verdict on this scorecard</legend>{agree}"
        '<label><span><input type="radio" name="choice" value="disagree"'
        f"{'' if p.verdict else ' checked'}> I disagree</span></label>"
        f'<label>The verdict should be<select name="verdict">{choice}</select></label>'
        "<label>Note (what the evaluator missed or over-weighted)"
        '<textarea name="note" rows="3" cols="60"></textarea></label></fieldset>'
        "<button type=submit>Record verdict</button></form>"
    )


def compare_html(p: ComparePage, ctx: Context) -> str:
    """Iteration a beside iteration b (or run a beside run b); rows that differ first."""
    title = f"{p.contract_id}: iteration {p.a} → {p.b}"
    heads = ["", f"Iteration {p.a}", f"Iteration {p.b}"]
    where = f"<p>{_a(links.contract(p.contract_id), p.contract_id)}</p>"
    if p.runs is not None:
        title = f"Run {p.runs[0]} → {p.runs[1]}"
        heads = ["", f"Run {p.runs[0]}", f"Run {p.runs[1]}"]
        contracts = p.contracts or (p.contract_id, p.contract_id)
        where = (
            "<p>"
            + " · ".join(
                f"{_a(links.run(r), r)} ({_a(links.contract(c), c)}, iteration {n})"
                for r, c, n in zip(p.runs, contracts, (p.a, p.b), strict=True)
            )
            + "</p>"
        )
    parts = [
        where,
        "<h2>Criteria</h2>",
        _changes(p.criteria, ["Criterion", *heads[1:]]),
        "<h2>Dimensions (referee's values)</h2>"
        if p.runs
        else "<h2>Dimensions (mean over evaluators)</h2>",
        _changes(p.dimensions, ["Dimension", *heads[1:]]),
        "<h2>Findings</h2>",
        f"<h3>New at {_side(heads[2])}</h3>",
        _findings(p.findings_added),
        f"<h3>Gone since {_side(heads[1])}</h3>",
        _findings(p.findings_removed),
        "<h2>Files changed since base</h2>",
        _changes(p.files, ["File", *heads[1:]]),
    ]
    return _shell(title, "\n".join(parts), p.audience, ctx)


def _side(head: str) -> str:
    """`Iteration 2` as a sentence says it (`iteration 2`); a run id keeps its case."""
    word, _, rest = head.partition(" ")
    return f"{_e(word.lower())} {_e(rest)}"


def _changes(found: list[Change], headers: list[str]) -> str:
    ordered = sorted(found, key=lambda c: not c.changed)
    rows = [
        _tr(
            _e(c.name) + (" (changed)" if c.changed else ""),
            _v(c.before),
            _v(c.after),
            cls="override" if c.changed else "",
        )
        for c in ordered
    ]
    return _table(headers, rows)


def calibration_html(p: CalibrationPage, ctx: Context, updating: bool = False) -> str:
    """How often each evaluator agrees with humans, with Cohen's kappa."""
    rows = [
        _tr(
            _e(b.label),
            _e(b.count),
            _e(f"{b.rate:.0%}"),
            _e("—" if b.kappa is None else f"{b.kappa:.2f}"),
            _e(b.kappa_note or ""),
        )
        for b in p.bars
    ]
    figure = (
        '<figure class="chart" id="calibration-figure">'
        "<figcaption>Agreement with humans</figcaption>"
        f"{agreement_bars(p.bars, 'calibration-title')}</figure>"
        if p.bars
        else ""
    )
    table = _table(
        ["Evaluator (prompt version)", "Verdicts", "Agreement", "Cohen's kappa", "Note"],
        rows,
        empty="no human verdict recorded yet",
    )
    by_model = _table(
        ["Evaluator", "Prompt version", "Model", "Verdicts", "Agreement", "Cohen's kappa"],
        [
            _tr(
                _e(m.evaluator),
                _e(m.prompt_version),
                _e(m.model),
                _e(m.cases),
                _e("—" if m.rate is None else f"{m.rate:.0%}"),
                _e("—" if m.kappa is None else f"{m.kappa:.2f}"),
            )
            for m in p.models
        ],
        empty="no human verdict on a scorecard that names its model",
    )
    fresh = (
        '<p class="note">The store changed: these figures are being brought up to date.</p>'
        if updating
        else ""
    )
    body = fresh + figure + table + "<h2>By model</h2>" + by_model
    return _shell("Calibration", body, "evaluator", ctx)


def report_html(doc_html: str, title: str, ctx: Context) -> str:
    """The static report of a contract as a page of the app (the same markup as --html)."""
    top = (
        f'<nav class="top" aria-label="Site">{_a(links.INDEX, "Contracts")}'
        f"{_a(links.CALIBRATION, 'Calibration')}</nav>"
    )
    return page(title, top + doc_html, css=CSS, head=HEAD)
