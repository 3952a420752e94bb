"""`referee checkout` and `referee gc`: bring back a pinned iteration, or drop a contract's pins.

aggregate may DELIVER an iteration other than the last (the best one at the bound). Every
evaluated tree is pinned under refs/referee/<contract>/<iteration> (tools/repo/pins.py), so the
delivered content can be written back to the working tree, or put on a new branch, at any time.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pydantic import Field

from referee.tools.errors import InvalidInput, Problem
from referee.tools.models.common import Model
from referee.tools.models.contract import Contract
from referee.tools.repo import Pin, drop_pins, pins, restore_tree, start_branch
from referee.tools.store import Store, evaluated_trees, load_contract
from referee.tools.store.aggregates import aggregates_for

__all__ = ["CheckoutResult", "GcResult", "checkout", "delivered_iteration", "drop_contract_pins"]


class CheckoutResult(Model):
    contract_ref: str
    iteration: int
    ref: str = Field(description="The pin restored from")
    tree: str
    commit: str
    branch: str | None = Field(default=None, description="The new branch, with --branch")
    written: list[str] = Field(default_factory=list)
    deleted: list[str] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list, description="Submodules, left as they are")


class GcResult(Model):
    contract_ref: str
    dropped: list[int] = Field(description="The iterations whose pins were deleted")


def delivered_iteration(store: Store, contract_id: str) -> int | None:
    """The iteration the latest DELIVER decision of the contract delivered, if any."""
    delivered = [a for a in aggregates_for(store, contract_id) if a.decision == "DELIVER"]
    if not delivered:
        return None
    number = delivered[-1].body.get("delivered_iteration")
    return number if isinstance(number, int) else delivered[-1].iteration


def checkout(
    store: Store,
    contract_id: str,
    *,
    iteration: int | None = None,
    force: bool = False,
    branch: str | None = None,
) -> CheckoutResult:
    """Write a pinned iteration back to the contract's working tree, or onto a new branch.

    Args:
        store: The store (the contract and its aggregates).
        contract_id: The contract.
        iteration: The iteration to restore; default the delivered one.
        force: Overwrite uncommitted work that no pin keeps.
        branch: Create this branch at the iteration instead of touching the working tree.

    Raises:
        NotFound: the contract is not stored.
        InvalidInput: no delivered iteration (and none given), or that iteration is not pinned.
        RestoreRefused: uncommitted work would be lost, or the branch cannot be created.
    """
    contract = load_contract(store, contract_id)
    repo = _repo(contract)
    found = _evaluated_pins(store, repo, contract.id)
    number = iteration if iteration is not None else delivered_iteration(store, contract.id)
    if number is None:
        raise _problem(
            "no_delivered_iteration",
            f"no aggregate of {contract.id} has delivered an iteration yet; name one with"
            f" --iteration ({_pinned(found)})",
        )
    pin = found.get(number)
    if isinstance(pin, str):
        raise _problem("pin_mismatch", pin)
    if pin is None:
        raise _problem(
            "not_pinned", f"iteration {number} of {contract.id} is not pinned ({_pinned(found)})"
        )
    result = CheckoutResult(
        contract_ref=contract.id, iteration=number, ref=pin.ref, tree=pin.tree, commit=pin.commit
    )
    if branch is not None:
        start_branch(repo, branch, pin)
        return result.model_copy(update={"branch": branch})
    kept = {p.tree for p in found.values() if isinstance(p, Pin)}
    done = restore_tree(repo, pin.tree, kept, force)
    return result.model_copy(
        update={"written": done.written, "deleted": done.deleted, "skipped": done.skipped}
    )


def drop_contract_pins(store: Store, contract_id: str) -> GcResult:
    """Delete every pin of a contract (the trees become garbage for git once nothing else refers
    to them).

    Raises:
        NotFound: the contract is not stored.
    """
    contract = load_contract(store, contract_id)
    dropped = drop_pins(_repo(contract), contract.id)
    return GcResult(contract_ref=contract.id, dropped=dropped)


def _evaluated_pins(store: Store, repo: Path, contract_id: str) -> dict[int, Pin | str]:
    """Each pinned iteration, or why its pin is refused.

    The pins are refs in the repository's `.git`, which the generator can rewrite (a loose ref,
    a line of `packed-refs`) to a commit wrapping a tree no evaluation saw, a backdoor next to the
    delivered fix. A pin counts only when its (verified) commit wraps a tree the store recorded
    for that iteration in a row whose MAC verifies.
    """
    recorded = evaluated_trees(store, contract_id)
    found: dict[int, Pin | str] = {}
    for pin in pins(repo, contract_id):
        if pin.tree in recorded.get(pin.iteration, set()):
            found[pin.iteration] = pin
        else:
            seen = ", ".join(sorted(recorded.get(pin.iteration, set()))) or "none"
            found[pin.iteration] = (
                f"{pin.ref} points at commit {pin.commit}, whose tree {pin.tree} is not the tree"
                f" iteration {pin.iteration} evaluated ({seen}): the ref was rewritten outside"
                " referee, and a tree no evaluation saw is not restored"
            )
    return found


def _repo(contract: Contract) -> Path:
    repo = Path(contract.repo) if contract.repo else None
    if repo is None or not (repo / ".git").exists():
        raise _problem(
            "repo_missing",
            f"the repository of {contract.id} ({contract.repo}) is not a git repository here",
            "/contract_id",
        )
    return repo


def _pinned(found: Mapping[int, Pin | str]) -> str:
    return "pinned: " + ", ".join(map(str, sorted(found))) if found else "nothing is pinned"


def _problem(code: str, message: str, path: str = "/iteration") -> InvalidInput:
    return InvalidInput([Problem(path=path, code=code, message=message)])
