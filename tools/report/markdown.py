"""The report as Markdown (the `report://` resource and `referee report`)."""

from __future__ import annotations

from referee.tools.report.data import ReportData
from referee.tools.report.layout import Block, Bullets, Figure, Para, Section, Table, document
from referee.tools.report.view import analyse


def render_markdown(data: ReportData) -> str:
    """Render a report as Markdown.

    Args:
        data: What `contract_report` or `run_report` gathered.

    Returns:
        The Markdown page: summary, dimension scores, ranked findings, improvement priorities,
        anti-gaming results, alerts, criteria, trends, calibration and the evidence index.
    """
    doc = document(analyse(data))
    parts = [f"# {_inline(doc.title)}", *(_section(s) for s in doc.sections)]
    return "\n\n".join(parts) + "\n"


def _section(section: Section) -> str:
    return "\n\n".join([f"## {_inline(section.title)}", *(_block(b) for b in section.blocks)])


def _block(block: Block) -> str:
    if isinstance(block, Para):
        return _inline(block.text)
    if isinstance(block, Bullets):
        return "\n".join(f"- {_inline(item)}" for item in block.items)
    if isinstance(block, Figure):
        return f"![{_inline(block.caption)}](<{block.path}>)"
    return _table(block)


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
    # Text from scorecards and tool output must not
    # break the page's structure: one line, no raw HTML.
    return " ".join(text.split()).replace("<", "&lt;").replace(">", "&gt;")
