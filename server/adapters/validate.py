"""MCP adapter for validate_scorecard: binds the store, the contract, the evidence and the clock."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, NamedTuple

from mcp.server.mcpserver import Context
from pydantic import Field

from referee.tools import validate_scorecard as core
from referee.tools.create_contract import parse_contract
from referee.tools.errors import InvalidInput, NotFound, Problem
from referee.tools.evidence import signing_key
from referee.tools.models import Contract, ValidationResult
from referee.tools.paths import confine
from referee.tools.repo import GitError, working_tree_hash
from referee.tools.store import Store, load_contract, runs_for

from ..annotations import RECORDS
from ..state import State

if TYPE_CHECKING:
    from ..app import RefereeServer

logger = logging.getLogger("referee.server")


async def validate_scorecard(
    ctx: Context[State, Any],
    scorecard: Annotated[
        dict[str, Any],
        Field(
            description=(
                "The scorecard JSON object: canonical (contract_ref, evaluator, dimensions,"
                " criteria …) or "
                "tenpoint (task_id, domains, criteria …). Sent as is: every problem is reported,"
                " not only the first"
            )
        ),
    ],
    contract_id: Annotated[
        str | None,
        Field(
            description=(
                "The contract to check against; default the scorecard's contract_ref (tenpoint:"
                " task_id)"
            )
        ),
    ] = None,
    contract: Annotated[
        dict[str, Any] | None,
        Field(
            description=(
                "An inline contract (evaluator view, as exported) instead of contract_id; the"
                " scorecard is then only "
                "stored if that contract is the stored one"
            )
        ),
    ] = None,
    format: Annotated[
        Literal["auto", "referee", "tenpoint"],
        Field(
            description=(
                "auto tells the formats apart; referee = canonical 0–3 (or 0.0–1.0) scorecard;"
                " tenpoint = 1–10"
            )
        ),
    ] = "auto",
    store: Annotated[
        bool,
        Field(
            description=(
                "Record a valid scorecard as this evaluator's verdict for its iteration"
                " (resubmitting replaces it)"
            )
        ),
    ] = True,
    variant: Annotated[
        Literal["original", "perturbed"],
        Field(
            description=(
                "perturbed: the re-scoring of the anti-gaming copy evaluate offered at depth deep"
            )
        ),
    ] = "original",
) -> ValidationResult:
    """Check an evaluator's scorecard before it counts: schema, contract, arithmetic and recorded evidence.

    Call it with each scorecard an evaluator produced, after `evaluate`. All problems are listed at
    once in `errors` (each with a JSON pointer into the scorecard, a stable code and what to fix) and
    `warnings`; fix them and call again. `computed` gives the weighted score, the 0–100 normalized
    score and the verdict (ACCEPT · REVISE · BLOCK) that the scores, criteria, antipatterns and
    spec_defect imply. Evidence rules: cited evidence ids must exist in referee's recorded run, a
    criterion verdict must not contradict referee's check ("contradicts E3: exit code 1"), and a
    scorecard of another tree than the current one is `stale`. A valid scorecard is stored as that
    evaluator's verdict for its iteration (`stored`, `scorecard_id`; `replaced` when it supersedes an
    earlier one), which `aggregate` then uses. An invalid scorecard is a normal result with
    `valid: false`; only an unknown or missing contract is a tool error.
    """
    state = ctx.request_context.lifespan_context
    resolved = _contract(state.store, scorecard, contract_id, contract)
    repo = contract_repo(resolved.contract, None if resolved.stored else state.settings.roots)
    evidence = evidence_context(
        state.store, state.settings.home, repo, resolved.contract.id, scorecard
    )
    result = core.validate_and_store(
        scorecard,
        contract=resolved.contract,
        rubrics=state.rubrics(repo),
        format=format,
        evidence=evidence,
        store=state.store if resolved.stored else None,
        store_result=store and resolved.stored,
        now=state.now,
        variant=variant,
    )
    if store and not resolved.stored and result.valid:
        return _unstored_inline(result, resolved.contract.id)
    return result


class _Resolved(NamedTuple):
    contract: Contract
    stored: bool  # the very contract is in the store, so a scorecard validated against it may be recorded


def _unstored_inline(result: ValidationResult, contract_id: str) -> ValidationResult:
    message = (
        f"validated against an inline contract that is not stored as {contract_id}, so the"
        " scorecard was not recorded; create or import the contract first to make it count"
    )
    warning = Problem(path="/contract", code="not_stored", message=message)
    return result.model_copy(update={"warnings": [*result.warnings, warning]})


def _contract(
    store: Store, scorecard: dict[str, Any], contract_id: str | None, inline: dict[str, Any] | None
) -> _Resolved:
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
    if inline is not None:
        return _inline(store, inline)
    if contract_id is not None:
        return _Resolved(load_contract(store, contract_id), True)
    ref = scorecard.get("contract_ref", scorecard.get("task_id"))
    if isinstance(ref, str) and ref:
        field = "contract_ref" if "contract_ref" in scorecard else "task_id"
        return _Resolved(load_contract(store, ref, path=f"/scorecard/{field}"), True)
    raise InvalidInput(
        [
            Problem(
                path="/contract_id",
                code="contract_required",
                message=(
                    "no contract to validate against: pass contract_id, an inline contract, or put"
                    " contract_ref (tenpoint: task_id) in the scorecard"
                ),
            )
        ]
    )


def _inline(store: Store, inline: dict[str, Any]) -> _Resolved:
    try:
        parsed = parse_contract(inline)
    except InvalidInput as exc:
        raise InvalidInput(
            [p.model_copy(update={"path": "/contract" + p.path}) for p in exc.problems]
        ) from exc
    try:
        return _Resolved(parsed, load_contract(store, parsed.id) == parsed)
    except NotFound:
        return _Resolved(parsed, False)


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


def evidence_context(
    store: Store, home: Path, repo: Path | None, contract_id: str, scorecard: dict[str, Any]
) -> core.EvidenceContext:
    """Return what the evidence rules check a scorecard against: runs, current tree, signing key.

    The tree hash costs a few git processes, so it is only computed when the scorecard states a
    tree to compare with.

    Args:
        store: The open store.
        home: The store's folder (holds the signing key).
        repo: The contract's repository, or None when it is not at hand.
        contract_id: The contract the scorecard is validated against.
        scorecard: The scorecard object.

    Returns:
        The evidence context.
    """
    target = scorecard.get("target")
    wants_tree = isinstance(target, dict) and isinstance(target.get("tree"), str)
    return core.EvidenceContext(
        runs=runs_for(store, contract_id),
        tree=current_tree(repo) if wants_tree else None,
        key=signing_key(home),
        captured=captured_ids(store),
    )


def captured_ids(store: Store) -> dict[str, set[str]]:
    """Evidence ids of every captured generator session in the store."""
    rows = store.query("SELECT run_id, evidence_id FROM evidence WHERE run_id LIKE 'G-%'")
    found: dict[str, set[str]] = {}
    for row in rows:
        found.setdefault(row["run_id"], set()).add(row["evidence_id"])
    return found


def current_tree(repo: Path | None) -> str | None:
    """Return the tree hash of a repository's working tree, or None when it cannot be known."""
    if repo is None:
        return None
    try:
        return working_tree_hash(repo)
    except (GitError, OSError) as exc:
        logger.warning("cannot hash the working tree of %s: %s", repo, exc)
        return None


def register(server: RefereeServer) -> None:
    """Add the validate_scorecard tool to the server."""
    server.add_tool(validate_scorecard, title="Validate scorecard", annotations=RECORDS)
