"""Which iteration an evaluation belongs to: one iteration is one evaluated tree of the contract.

A tree evaluated before keeps its iteration, whichever evaluator asks; a new tree starts the next
one. An `iteration` given explicitly must agree (`iteration_mismatch`), and a new tree past the
contract's `max_iterations` is refused (`loop_exhausted`), naming what aggregate delivers instead.
"""

from __future__ import annotations

from typing import NamedTuple

from referee.tools.aggregate import decision_at_bound
from referee.tools.errors import InvalidInput, Problem
from referee.tools.models.contract import Contract
from referee.tools.store import (
    Store,
    claim_iteration,
    claimed_iteration,
    latest_iteration,
    tree_iteration,
)
from referee.tools.text import counted

__all__ = ["Claimed", "iteration_for"]


def iteration_for(store: Store, contract: Contract, tree: str, requested: int | None) -> Claimed:
    """The iteration of `tree`: the one it was evaluated in (or is being), else the next, claimed
    for it in the same write transaction, so that concurrent evaluations of new trees (several CI
    jobs on one team store) never share an iteration.

    Raises:
        InvalidInput: `iteration_mismatch` when `requested` is not that iteration;
            `loop_exhausted` when a new tree would go past `max_iterations`.
    """
    with store.transaction() as conn:
        seen = tree_iteration(store, contract.id, tree)
        if seen is not None:
            if requested not in (None, seen):
                raise _mismatch(tree, seen, requested, "was evaluated in")
            return Claimed(seen, False)
        fresh = _fresh(store, contract, requested, tree)
        claim_iteration(store, conn, contract.id, tree, fresh)
        return Claimed(fresh, True)


class Claimed(NamedTuple):
    iteration: int
    new: bool
    """This evaluation claimed the iteration (to give back should it store no run)."""


def _fresh(store: Store, contract: Contract, requested: int | None, tree: str) -> int:
    latest = max(latest_iteration(store, contract.id), claimed_iteration(store, contract.id))
    fresh = latest + 1
    if fresh > contract.max_iterations:
        raise InvalidInput(
            [
                Problem(
                    path="/contract_id", code="loop_exhausted", message=_exhausted(store, contract)
                )
            ]
        )
    if requested not in (None, fresh):
        raise _mismatch(tree, fresh, requested, "has not been evaluated yet, so it starts")
    return fresh


def _mismatch(tree: str, actual: int, requested: int | None, how: str) -> InvalidInput:
    return InvalidInput(
        [
            Problem(
                path="/iteration",
                code="iteration_mismatch",
                message=(
                    f"the tree {tree[:12]} {how} iteration {actual}, not {requested}: an iteration"
                    " is one evaluated tree. Omit `iteration`, or evaluate the tree of iteration"
                    f" {requested}"
                ),
            )
        ]
    )


def _exhausted(store: Store, contract: Contract) -> str:
    bound = contract.max_iterations
    head = (
        f"contract {contract.id} has used all of its {counted(bound, 'iteration')}; this tree would"
        f" start iteration {bound + 1}"
    )
    decided = decision_at_bound(store, contract)
    if decided.decision == "DELIVER" and decided.delivered_iteration is not None:
        return f"{head}. aggregate delivers iteration {decided.delivered_iteration}: call aggregate"
    if decided.decision == "PENDING":
        best = decided.best_iteration
        so_far = f" (the best so far is iteration {best.iteration})" if best else ""
        missing = ", ".join(decided.missing_evaluators)
        return (
            f"{head}. aggregate of iteration {bound} waits for {missing}; once they have scored it,"
            f" aggregate delivers the best iteration{so_far}"
        )
    return f"{head}. aggregate of iteration {bound} decides {decided.decision}: {decided.reason}"
