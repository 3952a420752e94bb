"""The report as Markdown (the `report://` resource and `referee report`)."""

from __future__ import annotations

import re

from referee.tools.report.data import ReportData
from referee.tools.report.layout import (
    Block,
    Bullets,
    Code,
    Document,
    Figure,
    Para,
    Section,
    Table,
    document,
)
from referee.tools.report.places import places
from referee.tools.report.view import analyse

# A code span: a run of backticks, then anything up to the same run (CommonMark's rule).
_CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")


def render_markdown(data: ReportData) -> str:
    """Render a report as Markdown.

    Args:
        data: What `contract_report` or `run_report` gathered.

    Returns:
        The Markdown page: summary, dimension scores, ranked findings, improvement priorities,
        anti-gaming results, alerts, criteria, trends, calibration and the evidence index.
    """
    doc = document(analyse(data), places(data.repo_root, data.store_home))
    parts = [
        f"# {_inline(doc.title)}",
        _badge(doc),
        _contents(doc),
        *(_section(s) for s in doc.sections),
    ]
    return "\n\n".join(parts) + "\n"


def _badge(doc: Document) -> str:
    return f"> **{doc.verdict}** · {_inline(doc.verdict_line)}"


def _contents(doc: Document) -> str:
    return "Contents: " + " · ".join(f"[{_inline(s.title)}](#{s.anchor})" for s in doc.sections)


def _section(section: Section) -> str:
    return "\n\n".join([f"## {_inline(section.title)}", *(_block(b) for b in section.blocks)])


def _block(block: Block) -> str:
    if isinstance(block, Para):
        return _inline(block.text)
    if isinstance(block, Bullets):
        return "\n".join(f"- {_inline(item)}" for item in block.items)
    if isinstance(block, Code):
        return _fenced(block.text)
    if isinstance(block, Figure):
        return f"![{_inline(block.caption)}](<{block.shown or block.path}>)"
    return _table(block)


def _fenced(text: str) -> str:
    # The fence is longer than any backtick run inside, so no output can close it early.
    runs = [len(m) for m in re.findall(r"`+", text)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    return f"{fence}text\n{text.rstrip()}\n{fence}"


def _table(table: Table) -> str:
    if not table.rows:
        return f"_{_inline(table.empty)}_"
    lines = [_row(table.headers), "|" + "---|" * len(table.headers)]
    lines += [_row(row) for row in table.rows]
    return "\n".join(lines)


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _cell(text: str) -> str:
    return _inline(text).replace("|", "\\|") or " "


def _inline(text: str) -> str:
    # Text from scorecards and tool output must not break the page's structure: one line, no raw
    # HTML. Inside a code span Markdown shows `<` as it is, so escaping there would print `&lt;`.
    line = " ".join(text.split())
    out, last = [], 0
    for match in _CODE_SPAN.finditer(line):
        out.append(_escape(line[last : match.start()]))
        out.append(match.group(0))
        last = match.end()
    out.append(_escape(line[last:]))
    return "".join(out)


def _escape(text: str) -> str:
    return text.replace("<", "&lt;").replace(">", "&gt;")
