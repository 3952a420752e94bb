"""The report as one self-contained HTML page: inline CSS, screenshots embedded, nothing fetched.

Every text is escaped with `html.escape`; images are `data:` URIs; the page references no
external URL, so it can be archived, mailed or opened offline as it is.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

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

MAX_IMAGE_BYTES = 4 * 1024 * 1024
_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:1200px;
padding:0 1rem;color:#1d2330;background:#fff}
h1{font-size:1.5rem;border-bottom:2px solid #2b5fd9;padding-bottom:.3rem}
h2{font-size:1.15rem;margin-top:2rem;color:#2b5fd9}
table{border-collapse:collapse;width:100%;margin:.5rem 0;font-size:13px}
th,td{border:1px solid #d5d9e2;padding:.3rem .45rem;text-align:left;vertical-align:top}
th{background:#eef2fa}
tr:nth-child(even) td{background:#f8f9fc}
.empty{color:#6b7280;font-style:italic}
.sev-CRITICAL{color:#fff;background:#b42318}.sev-HIGH{color:#b42318;font-weight:600}
.sev-MEDIUM{color:#b54708}.sev-LOW{color:#475467}
.spark{font-family:ui-monospace,monospace;letter-spacing:1px}
figure{margin:1rem 0;display:inline-block;max-width:100%}
figure img{max-width:100%;border:1px solid #d5d9e2}
figcaption{font-size:12px;color:#475467}
pre{background:#f6f8fa;border:1px solid #d5d9e2;padding:.5rem;overflow-x:auto;font-size:12px;
white-space:pre}
code{font-family:ui-monospace,monospace;font-size:12px}
.badge{display:inline-block;font-size:1rem;padding:.35rem .8rem;border-radius:.4rem;color:#fff;
background:#6b7280}
.badge strong{margin-right:.5rem}
.badge-DELIVER{background:#067647}.badge-REVISE{background:#b54708}
.badge-ESCALATE{background:#b42318}
nav ol{columns:3;font-size:13px}
"""


def render_html(data: ReportData) -> str:
    """Render a report as a self-contained HTML page.

    Args:
        data: What `contract_report` or `run_report` gathered.

    Returns:
        The page; browser screenshots are embedded as `data:image/png;base64,…` (a missing or
        oversized file is named instead).
    """
    doc = document(analyse(data), places(data.repo_root, data.store_home))
    return page(doc.title, document_html(doc))


def page(title: str, body: str, *, css: str = "", head: str = "") -> str:
    """The one page shell of the report and the viewer: inline CSS, nothing fetched.

    Args:
        title: The page's title (escaped here).
        body: The markup inside `<main>`, already escaped.
        css: More style rules (the viewer's).
        head: More markup in `<head>`, already escaped.
    """
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_CSS}{css}</style>\n{head}</head>\n"
        f"<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n"
    )


def document_html(doc: Document) -> str:
    """A report document as markup: its title, verdict badge, contents and sections."""
    body = "\n".join(section_html(s) for s in doc.sections)
    return f"<h1>{html.escape(doc.title)}</h1>\n{_badge(doc)}\n{_contents(doc)}\n{body}"


def _badge(doc: Document) -> str:
    verdict = html.escape(doc.verdict)
    return (
        f'<p class="badge badge-{verdict}"><strong>{verdict}</strong>'
        f"{html.escape(doc.verdict_line)}</p>"
    )


def _contents(doc: Document) -> str:
    items = "".join(
        f'<li><a href="#{s.anchor}">{html.escape(s.title)}</a></li>' for s in doc.sections
    )
    return f'<nav aria-label="Contents"><ol>{items}</ol></nav>'


def section_html(section: Section) -> str:
    """One section of a report document as markup (the viewer shows some of them too)."""
    blocks = "\n".join(_block(b) for b in section.blocks)
    return (
        f'<section id="{section.anchor}">\n<h2>{html.escape(section.title)}</h2>\n{blocks}\n'
        "</section>"
    )


def _block(block: Block) -> str:
    if isinstance(block, Para):
        return f"<p>{_text(block.text)}</p>"
    if isinstance(block, Code):
        return f"<pre><code>{html.escape(block.text)}</code></pre>"
    if isinstance(block, Bullets):
        return "<ul>" + "".join(f"<li>{_text(item)}</li>" for item in block.items) + "</ul>"
    if isinstance(block, Figure):
        return _figure(block)
    return _table(block)


def _table(table: Table) -> str:
    if not table.rows:
        return f'<p class="empty">{html.escape(table.empty)}</p>'
    head = "".join(f"<th>{html.escape(h)}</th>" for h in table.headers)
    rows = "".join(
        "<tr>" + "".join(_cell(h, c) for h, c in zip(table.headers, row, strict=False)) + "</tr>"
        for row in table.rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _cell(header: str, text: str) -> str:
    if header == "Severity":
        return f'<td class="sev-{html.escape(text)}">{html.escape(text)}</td>'
    if header == "Trend":
        return f'<td class="spark">{html.escape(text)}</td>'
    return f"<td>{html.escape(text)}</td>"


def _text(text: str) -> str:
    """Escaped text, its `code spans` set as code (the layout writes commands and codes so)."""
    return "".join(_piece(p) for p in re.split(r"(`[^`]+`)", text))


def _piece(part: str) -> str:
    if len(part) > 2 and part[0] == part[-1] == "`":
        return f"<code>{html.escape(part[1:-1])}</code>"
    return html.escape(part)


def _figure(figure: Figure) -> str:
    caption = html.escape(figure.caption)
    uri = data_uri(Path(figure.path))
    if uri is None:
        return (
            f'<p class="empty">screenshot not available: {html.escape(figure.shown or figure.path)}'
            f" ({caption})</p>"
        )
    return f'<figure><img src="{uri}" alt="{caption}"><figcaption>{caption}</figcaption></figure>'


def data_uri(path: Path) -> str | None:
    """A PNG file as a `data:` URI, or None when it is missing, too large or not a PNG."""
    try:
        if path.stat().st_size > MAX_IMAGE_BYTES:
            return None
        payload = path.read_bytes()
    except OSError:
        return None
    if not payload.startswith(_PNG_MAGIC):
        return None
    return "data:image/png;base64," + base64.b64encode(payload).decode("ascii")
