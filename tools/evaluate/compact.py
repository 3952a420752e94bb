"""Compact results: an agent's context is precious, so a result stays within a byte budget.

Full outputs stay behind evidence:// and report://; what is cut is named in `omitted`.
"""

from __future__ import annotations

from referee.tools.models.evaluation import Evaluation

_TRIMS = (
    ("mutants", 0),
    ("findings", 20),
    ("issues", 20),
    ("findings", 8),
    ("issues", 10),
    ("prior_scorecard", 0),
    ("draft_issues", 8),
    ("findings", 3),
    ("issues", 5),
    ("draft_issues", 3),
    ("evidence_text", 120),
    ("changed_files", 50),
    ("findings", 0),
    ("draft_issues", 0),
    ("changed_files", 10),
)


def size_of(evaluation: Evaluation) -> int:
    return len(evaluation.model_dump_json(by_alias=True).encode("utf-8"))


def compact(evaluation: Evaluation, budget: int) -> Evaluation:
    """Trim the least essential parts, in order, until the JSON fits `budget` bytes (or nothing is
    left to cut)."""
    result = evaluation.model_copy(deep=True)
    for what, keep in _TRIMS:
        if size_of(result) <= budget:
            break
        _trim(result, what, keep)
    return result


def _trim(ev: Evaluation, what: str, keep: int) -> None:
    if what == "findings" and len(ev.findings) > keep:
        _note(ev, "findings:", f"findings: {ev.findings_total - keep} more in report://{ev.run_id}")
        ev.findings = ev.findings[:keep]
    elif what == "issues" and len(ev.issues) > keep:
        cut = len(ev.issues) - keep + _cut_before(ev, "issues:")
        _note(ev, "issues:", f"issues: {cut} lower-severity issue(s) cut")
        ev.issues = ev.issues[:keep]
    elif what == "draft_issues" and len(ev.draft_scorecard.issues) > keep:
        ev.draft_scorecard.issues = ev.draft_scorecard.issues[:keep]
        _note(ev, "draft_scorecard.issues", f"draft_scorecard.issues cut to {keep}")
    elif what == "prior_scorecard" and ev.prior_scorecard is not None:
        ev.prior_scorecard = {"omitted": "too large to inline; see report://" + ev.contract_ref}
        ev.omitted.append("prior_scorecard")
    elif what == "mutants":
        _drop_mutants(ev)
    elif what == "evidence_text":
        _shorten_texts(ev, keep)
    elif what == "changed_files" and len(ev.target.changed_files) > keep:
        cut = len(ev.target.changed_files) - keep + _cut_before(ev, "target.changed_files:")
        _note(ev, "target.changed_files:", f"target.changed_files: {cut} more")
        ev.target.changed_files = ev.target.changed_files[:keep]


def _drop_mutants(ev: Evaluation) -> None:
    """Every mutant is in its mutation evidence item; the survivors stay inline."""
    cut = False
    for c in ev.criteria:
        mutation = c.adequacy.mutation if c.adequacy else None
        if mutation is not None and mutation.mutants:
            mutation.mutants, cut = [], True
    if cut:
        _note(
            ev, "adequacy.mutation.mutants", "adequacy.mutation.mutants: see the mutation evidence"
        )


def _shorten_texts(ev: Evaluation, limit: int) -> None:
    def cut(text: str) -> str:
        return text if len(text) <= limit else text[: limit - 1] + "…"

    for item in ev.evidence:
        item.summary = cut(item.summary)
    for c in ev.criteria:
        c.reason, c.evidence = cut(c.reason), cut(c.evidence)
    for d in ev.draft_scorecard.criteria:
        d.evidence = cut(d.evidence)
    _note(ev, "long texts", f"long texts shortened to {limit} characters")


def _note(ev: Evaluation, kind: str, text: str) -> None:
    """Name what was cut, once per kind: a second cut of the same kind replaces the first note."""
    ev.omitted = [n for n in ev.omitted if not n.startswith(kind)] + [text]


def _cut_before(ev: Evaluation, kind: str) -> int:
    """How many items an earlier note of this kind said were cut."""
    for note in ev.omitted:
        if note.startswith(kind):
            count = note.removeprefix(kind).split()[0]
            return int(count) if count.isdigit() else 0
    return 0
