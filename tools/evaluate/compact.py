"""Compact results: an agent's context is precious, so a result stays within a byte budget.

Full outputs stay behind evidence:// and report://; what is cut is named in `omitted`.
"""

from __future__ import annotations

from referee.tools.models.evaluation import Evaluation
from referee.tools.text import counted

# The draft scorecard's issues are never cut: a judge must keep each of them (validate_scorecard
# refuses a card that drops one), so the draft is bounded where it is made (evaluate/draft.py).
_TRIMS = (
    ("mutants", 0),
    ("coverage_files", 10),
    ("findings", 20),
    ("issues", 20),
    ("findings", 8),
    ("issues", 10),
    ("findings", 3),
    ("issues", 5),
    ("coverage_files", 3),
    ("tree_paths", 20),
    ("evidence_text", 120),
    ("changed_files", 50),
    ("findings", 0),
    ("issues", 0),
    ("changed_files", 10),
    ("tree_paths", 3),
    # Last: what a machine's paths make long (artifact paths under the store, commands).
    # A criterion's reason stays at 120 characters: it is what the judge acts on.
    ("artifacts", 0),
    ("evidence_items", 60),
)


def size_of(evaluation: Evaluation) -> int:
    return len(evaluation.model_dump_json(by_alias=True).encode("utf-8"))


def compact(evaluation: Evaluation, budget: int) -> Evaluation:
    """Trim the least essential parts, in order, until the JSON fits `budget` bytes (or nothing is
    left to cut)."""
    result = evaluation.model_copy(deep=True)
    totals = {"findings": max(len(result.findings), result.findings_total)}
    totals["issues"] = len(result.issues)
    totals["changed_files"] = len(result.target.changed_files)
    for what, keep in _TRIMS:
        if size_of(result) <= budget:
            break
        _trim(result, what, keep, totals)
    return result


def _note(ev: Evaluation, kind: str, text: str) -> None:
    """Say what was cut; a later, deeper cut of the same list replaces the earlier note."""
    ev.omitted = [o for o in ev.omitted if not o.startswith(f"{kind}:")] + [f"{kind}: {text}"]


def _trim(ev: Evaluation, what: str, keep: int, totals: dict[str, int]) -> None:
    if what == "findings" and len(ev.findings) > keep:
        more = totals["findings"] - keep
        _note(ev, "findings", f"{more} more in report://{ev.run_id}")
        ev.findings = ev.findings[:keep]
    elif what == "issues" and len(ev.issues) > keep:
        _note(ev, "issues", f"{counted(totals['issues'] - keep, 'lower-severity issue')} more")
        ev.issues = ev.issues[:keep]
    elif what == "mutants":
        _drop_mutants(ev)
    elif what == "coverage_files":
        _keep_coverage_files(ev, keep)
    elif what == "evidence_text":
        _shorten_texts(ev, keep)
    elif what == "evidence_items":
        _shorten_items(ev, keep)
    elif what == "artifacts" and any(item.artifacts for item in ev.evidence):
        for item in ev.evidence:
            item.artifacts = []
        _note(ev, "evidence.artifacts", f"in evidence://{ev.run_id}/{{id}}")
    elif what == "tree_paths":
        _keep_tree_paths(ev, keep)
    elif what == "changed_files" and len(ev.target.changed_files) > keep:
        _note(ev, "target.changed_files", f"{totals['changed_files'] - keep} more")
        ev.target.changed_files = ev.target.changed_files[:keep]


def _drop_mutants(ev: Evaluation) -> None:
    """Every mutant is in its mutation evidence item; the survivors stay inline."""
    cut = False
    for c in ev.criteria:
        mutation = c.adequacy.mutation if c.adequacy else None
        if mutation is not None and mutation.mutants:
            mutation.mutants, cut = [], True
    if cut:
        _note(ev, "adequacy.mutation.mutants", "see the mutation evidence")


def _keep_coverage_files(ev: Evaluation, keep: int) -> None:
    """Per-file diff coverage, the files with the most uncovered lines first; the rest is in the
    coverage evidence item (the totals stay exact)."""
    cut = 0
    for c in ev.criteria:
        coverage = c.adequacy.diff_coverage if c.adequacy else None
        if coverage is None or len(coverage.files) <= keep:
            continue
        ranked = sorted(coverage.files, key=lambda f: (f.covered - f.changed, f.path))
        cut += len(coverage.files) - keep
        coverage.files = ranked[:keep]
    if cut:
        _note(ev, "adequacy.diff_coverage.files", f"{cut} more in the coverage evidence")


def _keep_tree_paths(ev: Evaluation, keep: int) -> None:
    # Code under test chooses how many files it writes, and how long their names are.
    changed = ev.tree_changed
    more = max(len(changed.paths) - keep, 0) + max(len(changed.holdout_paths) - keep, 0)
    if more:
        changed.paths, changed.holdout_paths = changed.paths[:keep], changed.holdout_paths[:keep]
        _note(ev, "tree_changed", f"{counted(more, 'more written path')} in the stored run")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shorten_items(ev: Evaluation, limit: int) -> None:
    """The inline evidence list's summaries and commands (each item is whole in evidence://)."""
    for item in ev.evidence:
        item.summary, item.command = _cut(item.summary, limit), _cut(item.command, limit)
    _note(ev, "evidence", f"summaries and commands shortened to {limit} characters")


def _shorten_texts(ev: Evaluation, limit: int) -> None:
    def cut(text: str) -> str:
        return _cut(text, limit)

    for item in ev.evidence:
        item.summary, item.command = cut(item.summary), cut(item.command)
    for c in ev.criteria:
        c.reason, c.evidence = cut(c.reason), cut(c.evidence)
    for d in ev.draft_scorecard.criteria:
        d.evidence = cut(d.evidence)
    ev.omitted = [o for o in ev.omitted if not o.startswith("long texts")]
    ev.omitted.append(f"long texts shortened to {limit} characters")
