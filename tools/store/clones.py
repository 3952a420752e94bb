"""One contract, many clones: a contract's repository is known by its history, not its path.

A contract records the root commits of the repository it was created in. Another clone of that
history (a developer's machine, each CI job) evaluates the contract from a team store, wherever it
is checked out: the contract's own path when it holds that history, else the clone of it under the
server's roots. The root commits are a row of their own, sealed like every other.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from referee.tools.models.contract import Contract
from referee.tools.repo.info import repository_root, root_commits
from referee.tools.store.db import Store, Tx

__all__ = ["clone_of", "contract_roots", "record_roots", "roots_of"]

_TABLE = "contract_repos"


def roots_of(contract: Contract) -> tuple[str, ...]:
    """The root commits of the contract's repository, read before its row is written."""
    if not contract.repo or not Path(contract.repo).is_dir():
        return ()
    return root_commits(Path(contract.repo))


def record_roots(store: Store, conn: Tx, contract_id: str, roots: Sequence[str]) -> None:
    """Keep (or replace) a contract's root commits, inside the caller's transaction."""
    conn.execute(f"DELETE FROM {_TABLE} WHERE contract_id = ?", (contract_id,))
    if roots:
        store.insert(conn, _TABLE, {"contract_id": contract_id, "roots": " ".join(roots)})


def contract_roots(store: Store, contract_id: str) -> frozenset[str]:
    """The root commits recorded with a contract (empty for one stored before they were)."""
    row = store.query_one(f"SELECT * FROM {_TABLE} WHERE contract_id = ?", (contract_id,))
    if row is None:
        return frozenset()
    store.verified(_TABLE, row, f"the repository of contract {contract_id}")
    return frozenset(str(row["roots"]).split())


def clone_of(store: Store, contract: Contract, roots: Sequence[Path]) -> Path | None:
    """The repository on this machine that holds the contract's history, or None when the
    contract recorded none or no candidate shares it.

    The candidates are the contract's own path, then the repository of each allowed root, those
    inside the roots only (the caller confines the answer again, as it would the path).
    """
    wanted = contract_roots(store, contract.id)
    if not wanted:
        return None
    candidates = [Path(contract.repo)] if contract.repo else []
    candidates += [repository_root(r) or r for r in roots]
    inside = [c.resolve() for c in candidates if _within(c, roots)]
    for candidate in dict.fromkeys(inside):
        if candidate.is_dir() and wanted & set(root_commits(candidate)):
            return candidate
    return None


def _within(path: Path, roots: Sequence[Path]) -> bool:
    resolved = path.resolve()
    return any(resolved.is_relative_to(root.resolve()) for root in roots)
