"""What a scorecard is validated against: its contract, the recorded runs, the current tree.

Both the MCP tool and `referee validate` resolve these the same way, so a scorecard gets the same
verdict whichever door it comes through.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from referee.tools.create_contract import parse_contract
from referee.tools.errors import InvalidInput, NotFound, Problem
from referee.tools.models.contract import Contract
from referee.tools.paths import confine
from referee.tools.repo import GitError, commit_tree_hash, resolve_commit, working_tree_hash
from referee.tools.validate_scorecard.evidence import EvidenceContext

if TYPE_CHECKING:
    from referee.tools.store import Store
    from referee.tools.store.runs import StoredRun

__all__ = [
    "ResolvedContract",
    "contract_repo",
    "current_tree",
    "evaluated_ref",
    "evidence_context",
    "resolve_contract",
    "stored_repo",
]

logger = logging.getLogger("referee.tools.validate_scorecard")


class ResolvedContract(NamedTuple):
    contract: Contract
    stored: bool  # the very contract is in the store, so a scorecard checked against it may count


def resolve_contract(
    store: Store, scorecard: dict[str, Any], contract_id: str | None, inline: dict[str, Any] | None
) -> ResolvedContract:
    """The contract a scorecard is checked against: an id, an inline contract, or the one it names.

    Raises:
        InvalidInput: both an id and an inline contract, none at all, or an invalid inline one.
        NotFound: the id is not stored.
    """
    if contract_id is not None and inline is not None:
        raise InvalidInput(
            [
                Problem(
                    path="/contract",
                    code="contract_ambiguous",
                    message="give contract_id or an inline contract, not both",
                )
            ]
        )
    from referee.tools.store import load_contract  # the store's modules load when one is used

    if inline is not None:
        return _inline(store, inline)
    if contract_id is not None:
        return ResolvedContract(load_contract(store, contract_id), True)
    ref = scorecard.get("contract_ref", scorecard.get("task_id"))
    if isinstance(ref, str) and ref:
        field = "contract_ref" if "contract_ref" in scorecard else "task_id"
        return ResolvedContract(load_contract(store, ref, path=f"/scorecard/{field}"), True)
    raise InvalidInput(
        [
            Problem(
                path="/contract_id",
                code="contract_required",
                message=(
                    "no contract to validate against: pass contract_id, an inline contract, or put "
                    "contract_ref (tenpoint: task_id) in the scorecard"
                ),
            )
        ]
    )


def _inline(store: Store, inline: dict[str, Any]) -> ResolvedContract:
    from referee.tools.store import load_contract

    try:
        parsed = parse_contract(inline)
    except InvalidInput as exc:
        raise InvalidInput(
            [p.model_copy(update={"path": "/contract" + p.path}) for p in exc.problems]
        ) from exc
    try:
        return ResolvedContract(parsed, load_contract(store, parsed.id) == parsed)
    except NotFound:
        return ResolvedContract(parsed, False)


def contract_repo(contract: Contract, roots: Sequence[Path] | None) -> Path | None:
    """Return the contract's repository folder when it exists (and lies inside `roots`), else None.

    Args:
        contract: The contract.
        roots: The allowed roots for a `repo` that comes from the client (an inline contract), so
            that git only runs in folders the server may touch; None for a stored contract, whose
            repo was confined when it was created.

    Returns:
        The repository folder, or None when it is not at hand.
    """
    if not contract.repo:
        return None
    try:
        repo = confine(contract.repo, roots) if roots is not None else Path(contract.repo)
    except InvalidInput:
        return None
    return repo if repo.is_dir() else None


def stored_repo(store: Store, contract: Contract, roots: Sequence[Path]) -> Path | None:
    """The folder a stored contract's cards are judged in: the clone of its history under the
    server's roots, as evaluate chooses it, else the contract's own path.

    On a team store the path a contract was created at is another machine's (missing here, or a
    colleague's work in progress), so the freshness of a card follows the clone that evaluated it.
    """
    from referee.tools.store import clone_of

    return clone_of(store, contract, roots) or contract_repo(contract, None)


def evidence_context(
    store: Store, home: Path, repo: Path | None, contract_id: str, scorecard: dict[str, Any]
) -> EvidenceContext:
    """Return what the evidence rules check a scorecard against: runs, current tree, signing key.

    The tree hash costs a few git processes, so it is only computed when the scorecard states a
    tree to compare with.
    """
    from referee.tools.store import runs_for
    from referee.tools.store.canaries import canary_run_ids
    from referee.tools.store.runs import captured_evidence_ids

    target = scorecard.get("target")
    wants_tree = isinstance(target, dict) and isinstance(target.get("tree"), str)
    runs, canaries = runs_for(store, contract_id), canary_run_ids(store, contract_id)
    named = scorecard.get("run_id")
    if named in canaries:
        # A canary's tree exists only as git objects: it is the tree its card must judge.
        run = next(r for r in runs if r.run_id == named)
        return EvidenceContext(
            runs=runs,
            tree=run.evaluation.target.tree,
            key=store.key,
            captured=captured_evidence_ids(store),
        )
    runs = [r for r in runs if r.run_id not in canaries]
    ref = evaluated_ref(runs, scorecard)
    return EvidenceContext(
        runs=runs,
        tree=current_tree(repo, ref) if wants_tree else None,
        key=store.key,
        ref=ref,
        captured=captured_evidence_ids(store),
    )


def evaluated_ref(runs: Sequence[StoredRun], scorecard: dict[str, Any]) -> str | None:
    """The ref the scorecard's run evaluated (`evaluate --ref`): its staleness is judged against
    what that ref points at now, not the working tree. A card without a run id is bound to the
    latest run of its iteration."""
    run_id, iteration = scorecard.get("run_id"), scorecard.get("iteration")
    named = [r for r in runs if r.run_id == run_id]
    if not named and isinstance(iteration, int):
        named = [r for r in runs if r.evaluation.iteration == iteration][-1:]
    return named[0].evaluation.target.ref if named else None


def current_tree(repo: Path | None, ref: str | None = None) -> str | None:
    """Return the tree hash of a repository's working tree (or of what `ref` points at now), or
    None when it cannot be known."""
    if repo is None:
        return None
    try:
        if ref:
            return commit_tree_hash(repo, resolve_commit(repo, ref, at="/ref"))
        return working_tree_hash(repo)
    except (GitError, OSError, InvalidInput) as exc:
        logger.warning("cannot hash the tree of %s (%s): %s", repo, ref or "working tree", exc)
        return None
