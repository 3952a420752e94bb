"""`new_only`: an a11y expectation held to what the same check found on the base commit's app.

Only a node violating a rule that the base run did not have counts. A node is known by its rule
and axe's selector for it (`target`); one whose selector changed while its markup did not (a
sibling inserted before it shifts an `:nth-child`) is matched by its markup. Matching is one to
one, so a rule's new nodes are never fewer than the nodes it gained since base: renaming an
element can change which node is named new, never hide that there are more. A node the base's
run did not keep (past `NODES_KEPT` for one rule) is counted, not matched.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from referee.tools.browser.outcome import IMPACT_RANK, A11yNode, A11yViolation, at_or_above
from referee.tools.models.browser import A11yExpect
from referee.tools.text import counted

__all__ = ["NODES_KEPT", "BaseA11y", "NewJudgement", "judge_new", "listed", "new_since_base"]

NODES_KEPT = 1000
_SHOWN = 5


@dataclass(frozen=True)
class BaseA11y:
    """What the base run of a check found, by axe scope (`axe_scope`); or why there is nothing
    to compare with (`problem`, with its reason `code`)."""

    found: Mapping[str, list[A11yViolation]] = field(default_factory=dict)
    problem: str = ""
    code: str = ""
    note: str = ""
    """What a comparison adds about the base run (the files outside git it left out)."""


class Comparison(NamedTuple):
    """The page's violations against the base's."""

    new: list[A11yViolation]
    """Violations with at least one new node at or above the floor, holding only those nodes."""
    base: list[A11yViolation]
    """The base's violations at or above the floor."""
    kept: int
    """Nodes of those the page still has."""


class NewJudgement(NamedTuple):
    ok: bool
    detail: str
    pending: str = ""
    pending_code: str = ""


def new_since_base(
    found: list[A11yViolation], base: list[A11yViolation], min_impact: str
) -> Comparison:
    """The nodes of `found` at or above `min_impact` that `base` did not have (any impact)."""
    floor = IMPACT_RANK[min_impact]
    at_base = {v.id: v for v in base}
    new: list[A11yViolation] = []
    kept = 0
    for violation in found:
        before = at_base.get(violation.id)
        fresh, gained = _unmatched(violation, before)
        counted_new = [n for n in fresh if _rank(n, violation) >= floor]
        # Nodes past the kept bound are not matched one by one: the rule's gain still counts.
        extra = max(0, gained - len(fresh)) if _rank(None, violation) >= floor else 0
        if counted_new or extra:
            nodes = len(counted_new) + extra
            new.append(
                violation.model_copy(
                    update={
                        "nodes": nodes,
                        "targets": [n.target for n in counted_new[:_SHOWN]],
                        "all_nodes": tuple(counted_new),
                        "impact": _highest(counted_new) or violation.impact,
                    }
                )
            )
    serious = [v for v in base if IMPACT_RANK.get(v.impact or "minor", 0) >= floor]
    for violation in serious:
        now = next((v for v in found if v.id == violation.id), None)
        kept += violation.nodes - len(_unmatched(violation, now)[0]) if now else 0
    return Comparison(new, serious, kept)


def _unmatched(violation: A11yViolation, base: A11yViolation | None) -> tuple[list[A11yNode], int]:
    """The kept nodes of `violation` no node of `base` accounts for, and how many nodes the rule
    gained (never fewer are new)."""
    nodes = list(violation.all_nodes)
    if base is None:
        return nodes, violation.nodes
    pool = list(base.all_nodes)
    left: list[A11yNode] = []
    for node in nodes:
        match = next((b for b in pool if b.target == node.target), None)
        if match is not None:
            pool.remove(match)
        else:
            left.append(node)
    unmatched = []
    for node in left:
        match = next((b for b in pool if node.html and b.html == node.html), None)
        if match is not None:
            pool.remove(match)
        else:
            unmatched.append(node)
    return unmatched, max(0, violation.nodes - base.nodes)


def _rank(node: A11yNode | None, violation: A11yViolation) -> int:
    impact = (node.impact if node is not None else None) or violation.impact or "minor"
    return IMPACT_RANK.get(impact, 0)


def _highest(nodes: list[A11yNode]) -> str | None:
    impacts = [n.impact for n in nodes if n.impact]
    return max(impacts, key=IMPACT_RANK.__getitem__) if impacts else None


def judge_new(
    exp: A11yExpect, found: list[A11yViolation], base: BaseA11y | None, scope: str
) -> tuple[NewJudgement, list[A11yViolation]]:
    """The verdict of a `new_only` expectation, and the new violations it counted.

    Without a base to compare with, the expectation holds only if the page meets its bounds
    counting every violation (none can be new then); otherwise it is pending with the reason.
    """
    if base is None or base.problem or scope not in base.found:
        return _without_base(exp, found, base), []
    compared = new_since_base(found, base.found[scope], exp.min_impact)
    nodes = sum(v.nodes for v in compared.new)
    detail = f"no new violation at or above {exp.min_impact} since base ({_bounds(exp)})"
    if compared.new:
        detail = (
            f"{counted(len(compared.new), 'new violation')} at or above {exp.min_impact} since"
            f" base, on {counted(nodes, 'node')} ({_bounds(exp)}): {listed(compared.new, 'new ')}"
        )
    detail += f"; {_at_base(compared)}" + (f"; {base.note}" if base.note else "")
    return NewJudgement(_holds(exp, len(compared.new), nodes), detail), compared.new


def _without_base(
    exp: A11yExpect, found: list[A11yViolation], base: BaseA11y | None
) -> NewJudgement:
    why = base.problem if base is not None and base.problem else "no base run was made"
    code = base.code if base is not None and base.code else "a11y_base_not_run"
    serious = at_or_above(found, exp.min_impact)
    if _holds(exp, len(serious), sum(v.nodes for v in serious)):
        return NewJudgement(
            True,
            f"{counted(len(serious), 'violation')} at or above {exp.min_impact} in all"
            f" ({_bounds(exp)}), so none can be new; not compared with the base: {why}",
        )
    return NewJudgement(
        True,
        "",
        pending=(
            f"new_only: not compared with the base, which could not be run: {why}; here,"
            f" {counted(len(serious), 'violation')} at or above {exp.min_impact}:"
            f" {listed(serious)}"
        ),
        pending_code=code,
    )


def _holds(exp: A11yExpect, rules: int, nodes: int) -> bool:
    return (not exp.bounds_rules or rules <= exp.max_violations) and (
        exp.max_nodes is None or nodes <= exp.max_nodes
    )


def _bounds(exp: A11yExpect) -> str:
    bounds = [f"max {exp.max_violations}"] if exp.bounds_rules else []
    bounds += [f"max {exp.max_nodes} nodes"] if exp.max_nodes is not None else []
    return ", ".join(bounds)


def _at_base(compared: Comparison) -> str:
    had = compared.base
    if not had:
        return "the base had none"
    nodes = sum(v.nodes for v in had)
    still = "none" if not compared.kept else f"{compared.kept} of its nodes"
    rules = ", ".join(v.id for v in had[:_SHOWN]) + (" …" if len(had) > _SHOWN else "")
    return (
        f"the base already had {counted(len(had), 'violation')} on {counted(nodes, 'node')}"
        f" ({rules}), {still} still here"
    )


def listed(violations: list[A11yViolation], adjective: str = "") -> str:
    """`rule (impact, N nodes: target, …)` for each violation, as reasons name them."""
    return "; ".join(
        f"{v.id} ({v.impact}, {counted(v.nodes, adjective + 'node')}: " + ", ".join(v.targets) + ")"
        for v in violations
    )
