"""The viewer: `referee view` (a local web app over the store) and `--bundle` (the same pages as
a static site).

pages    what each page shows, as small dataclasses (the pure core's output)
gather   the contracts list and a contract's page, from the store
run      a run's page and a scorecard beside its draft
compare  two iterations side by side; agreement with humans
svg      plots drawn as inline SVG (no CDN)
html     the pages as HTML, in the report's page shell (one template source)
cache    the running app's contracts list, kept while the store is unchanged
links    the flat page names every link uses (the same in the app and in a bundle)
app      page names to pages; recording a human verdict
bundle   every page written to a folder
traces   a kept trace and Playwright's own trace viewer, served by the running app
"""

from referee.tools.view.app import Page, VerdictForm, page_for, record_verdict
from referee.tools.view.bundle import page_names, write_bundle
from referee.tools.view.cache import RowCache
from referee.tools.view.html import Context
from referee.tools.view.links import SAFE_ID
from referee.tools.view.pages import Audience, Filters
from referee.tools.view.traces import PREFIX as TRACE_PREFIX
from referee.tools.view.traces import trace_file

__all__ = [
    "SAFE_ID",
    "TRACE_PREFIX",
    "Audience",
    "Context",
    "Filters",
    "Page",
    "RowCache",
    "VerdictForm",
    "page_for",
    "page_names",
    "record_verdict",
    "trace_file",
    "write_bundle",
]
