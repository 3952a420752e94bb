"""The viewer's addresses: one flat folder of `.html` pages, so a link is the same relative path
in the running app and in a bundle opened from disk (file://)."""

from __future__ import annotations

import re
from urllib.parse import quote

# What an id may be inside a page name. Store ids are referee's own (SC-…, R…-hex, integers);
# anything else is refused rather than turned into a path.
SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,120}$")

INDEX = "index.html"
CALIBRATION = "calibration.html"
LIVE = "live.html"


def _name(prefix: str, ident: str) -> str:
    return f"{prefix}-{quote(ident, safe='')}.html"


def contract(contract_id: str) -> str:
    return _name("contract", contract_id)


def report(contract_id: str) -> str:
    return _name("report", contract_id)


def run(run_id: str) -> str:
    return _name("run", run_id)


def scorecard(scorecard_id: int) -> str:
    return f"scorecard-{scorecard_id}.html"


def compare(contract_id: str, a: int, b: int) -> str:
    return f"compare-{quote(contract_id, safe='')}--{a}-{b}.html"


def compare_runs(a: str, b: str) -> str:
    """Two runs side by side (run ids hold no `--`)."""
    return f"runs-{quote(a, safe='')}--{quote(b, safe='')}.html"


PAGE = re.compile(
    r"^(?:(?P<index>index)|(?P<calibration>calibration)|(?P<live>live)"
    r"|(?P<kind>contract|report|run|scorecard)-(?P<id>[A-Za-z0-9._-]+)"
    r"|compare-(?P<cmp>[A-Za-z0-9._-]+?)--(?P<a>\d{1,3})-(?P<b>\d{1,3})"
    r"|runs-(?P<ra>[A-Za-z0-9._]+(?:-[A-Za-z0-9._]+)*)--(?P<rb>[A-Za-z0-9._]+(?:-[A-Za-z0-9._]+)*))"
    r"\.html$"
)
