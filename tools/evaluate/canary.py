"""A canary evaluation's plan: which iteration it copies, the defect, and how it is shown.

The canary copies the tree of an evaluated iteration (the latest, or the one asked for), plants
one defect of the catalogue (tools/canary) in one of its changed Python files, and writes the
result as git objects: a tree with that one blob replaced, wrapped in a commit whose parent is the
iteration's commit. evaluate then runs the contract's checks on that commit like on any ref, and
shows the run as the copied iteration's: the same iteration number, commit, ref, isolation and pin
name. Only the tree hash differs, as it must (a card names the tree it judged), and nothing in the
run, its draft or its resources says "canary": the store's `canaries` table alone does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from referee.tools.canary import DEFECT_KINDS, Defect, DefectKind, candidates, plantable
from referee.tools.errors import InvalidInput, Problem
from referee.tools.models.common import Isolation
from referee.tools.models.contract import Contract
from referee.tools.models.evaluation import EvaluateInput, Evaluation, EvaluationTarget
from referee.tools.repo import compose_tree, git, tree_entry_map, tree_files, write_blob
from referee.tools.repo.objects import read_blobs
from referee.tools.store import Store, StoredRun, runs_for
from referee.tools.store.canaries import canaries_for, canary_run_ids, save_canary
from referee.tools.text import shown, unshown

__all__ = ["Disguise", "plan_canary", "record_canary"]

_IDENTITY = {
    "GIT_AUTHOR_NAME": "referee",
    "GIT_AUTHOR_EMAIL": "referee@localhost",
    "GIT_COMMITTER_NAME": "referee",
    "GIT_COMMITTER_EMAIL": "referee@localhost",
}


@dataclass(frozen=True)
class Disguise:
    """What a canary run evaluates (`commit`) and what it shows (the copied run's target)."""

    iteration: int
    commit: str
    shown: EvaluationTarget
    isolation: Isolation
    pin: str | None
    defect: Defect
    source_run_id: str


def plan_canary(
    store: Store, contract: Contract, repo: Path, request: EvaluateInput, now: datetime
) -> Disguise:
    """Plant a defect in a copy of an evaluated iteration's tree.

    Raises:
        InvalidInput: `canary_needs_run` when no iteration is evaluated yet (or not the one
            asked for); `canary_unavailable` when no catalogue kind fits the changed files.
    """
    source = _source_run(store, contract, request)
    target = source.evaluation.target
    if target.tree.startswith("dir:"):
        raise _unavailable("the iteration was not evaluated in a git repository")
    defect = _choose(store, contract, repo, source)
    tree = _planted_tree(repo, target.tree, defect)
    commit = _commit(repo, tree, target.commit, now)
    return Disguise(
        iteration=source.evaluation.iteration,
        commit=commit,
        shown=target,
        isolation=source.evaluation.isolation,
        pin=source.evaluation.pin,
        defect=defect,
        source_run_id=source.run_id,
    )


def record_canary(store: Store, evaluation: Evaluation, disguise: Disguise, now: datetime) -> None:
    """Mark the stored run as a canary, with its defect (the only place that says so)."""
    save_canary(
        store,
        run_id=evaluation.run_id,
        contract_id=evaluation.contract_ref,
        evaluator=evaluation.evaluator,
        iteration=evaluation.iteration,
        source_run_id=disguise.source_run_id,
        created_at=now.isoformat(),
        defect={**disguise.defect.record(), "tree": evaluation.target.tree},
    )


def _source_run(store: Store, contract: Contract, request: EvaluateInput) -> StoredRun:
    canaries = canary_run_ids(store, contract.id)
    real = [
        r
        for r in runs_for(store, contract.id, request.iteration)
        if r.run_id not in canaries and r.evaluation.scope == "task"
    ]
    if not real:
        which = f"iteration {request.iteration}" if request.iteration else "an iteration"
        raise InvalidInput(
            [
                Problem(
                    path="/iteration" if request.iteration else "/canary",
                    code="canary_needs_run",
                    message=(
                        f"a canary copies an evaluated tree: evaluate {which} of"
                        f" {contract.id} first (scope task), then ask for the canary"
                    ),
                )
            ]
        )
    latest = max(r.evaluation.iteration for r in real)
    mine = [r for r in real if r.evaluation.iteration == latest]
    own = [r for r in mine if r.evaluation.evaluator in (request.evaluator, None)]
    return (own or mine)[-1]


def _files(repo: Path, run: StoredRun) -> list[str]:
    changed = [p for p in map(unshown, run.evaluation.target.changed_files) if plantable(p)]
    if changed:
        return changed
    listed = tree_files(repo, run.evaluation.target.tree)
    if not listed or not any(plantable(p) for p in listed):
        changed = run.evaluation.target.changed_files
        kinds = sorted({Path(p).suffix or Path(p).name for p in changed})
        raise _unavailable(
            "no canary kind plants defects in "
            + (", ".join(kinds) if kinds else "this tree")
            + " files yet (Python source first)"
        )
    return sorted(p for p in listed if plantable(p))


def _survivors(run: StoredRun, path: str) -> list[tuple[int, str, str]]:
    found = []
    for criterion in run.evaluation.criteria:
        mutation = criterion.adequacy.mutation if criterion.adequacy else None
        for m in mutation.survived if mutation else []:
            file, _, line = m.location.rpartition(":")
            if file == shown(path) and line.isdigit():
                found.append((int(line), m.original, m.replacement))
    return found


def _choose(store: Store, contract: Contract, repo: Path, run: StoredRun) -> Defect:
    files = _files(repo, run)
    sources = _sources(repo, run.evaluation.target.tree, files)
    # Rotating over the kinds, so recall by kind fills in as canaries accumulate.
    count = len(canaries_for(store, contract.id))
    order: list[DefectKind] = [
        DEFECT_KINDS[(count + i) % len(DEFECT_KINDS)] for i in range(len(DEFECT_KINDS))
    ]
    for kind in order:
        found = [
            d
            for path in files
            if path in sources
            for d in candidates(kind, path, sources[path], _survivors(run, path))
        ]
        if found:
            return found[count % len(found)]
    raise _unavailable(f"no defect of the catalogue fits {', '.join(files[:5])}")


def _sources(repo: Path, tree: str, files: list[str]) -> dict[str, bytes]:
    entries = tree_entry_map(repo, tree, files)
    blobs = read_blobs(repo, [sha for _, sha in entries.values()])
    return {p: blobs[sha] for p, (_, sha) in entries.items() if sha in blobs}


def _planted_tree(repo: Path, tree: str, defect: Defect) -> str:
    mode, sha = tree_entry_map(repo, tree, [defect.path])[defect.path]
    source = read_blobs(repo, [sha])[sha]
    blob = write_blob(repo, defect.apply(source))
    return compose_tree(repo, tree, {defect.path: (mode, blob)})


def _commit(repo: Path, tree: str, parent: str | None, when: datetime) -> str:
    stamp = f"{int(when.timestamp())} +0000"
    env = {**_IDENTITY, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    args = ["commit-tree", "--no-gpg-sign", tree, "-m", "referee: a tree to evaluate"]
    return git(repo, *args, *(["-p", parent] if parent else []), env=env).strip()


def _unavailable(why: str) -> InvalidInput:
    return InvalidInput([Problem(path="/canary", code="canary_unavailable", message=why)])
