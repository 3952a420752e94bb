"""create_contract and get_contract: the sprint contract, written before any code exists."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from referee.tools import store as storage  # its modules load on first use
from referee.tools.create_contract.config import config_digest, config_for
from referee.tools.create_contract.files import CONFIG_KEY, parse_exported
from referee.tools.create_contract.seal import SEAL_KEY, contract_seal
from referee.tools.create_contract.validation import (
    DEFAULT_EVALUATOR,
    validated_request,
    warnings_of,
)
from referee.tools.create_contract.views import View, contract_document, generator_view
from referee.tools.errors import InvalidInput, NotFound, Problem
from referee.tools.models.contract import (
    AcceptanceCriteria,
    Contract,
    ContractConfig,
    ContractScope,
    CreateContractInput,
    CreateContractResult,
    Criterion,
    CriterionSpec,
)
from referee.tools.prompts import evaluator_prompt_version
from referee.tools.repo import RepoInfo, resolve_commit
from referee.tools.rubrics import RubricSet, load_rubrics, select_rubric

if TYPE_CHECKING:
    from referee.tools.store import Store

__all__ = ["create_contract", "export_contract", "get_contract", "import_contract"]


def create_contract(
    args: Mapping[str, Any],
    *,
    store: Store,
    rubrics: RubricSet,
    repo: RepoInfo,
    now: Callable[[], datetime],
) -> CreateContractResult:
    """Validate a contract request, assign ids, store it, and return both views.

    Raises:
        InvalidInput: every problem of the request at once, each with a JSON pointer.
    """
    base, base_problems = _base_commit(args.get("base_commit"), repo)
    if repo.is_git and base is not None and base != repo.head:
        # The caller's rubrics are HEAD's (load_rubrics); a contract on another base is judged
        # with that commit's.
        rubrics = load_rubrics(repo.root, base)
    try:
        request = validated_request(args, rubrics, repo.root)
    except InvalidInput as exc:
        raise InvalidInput(sorted([*exc.problems, *base_problems], key=lambda p: p.path)) from None
    if base_problems:
        raise InvalidInput(base_problems)
    created = now().astimezone(UTC)
    contract = _build_contract(request, rubrics, repo, created, base)
    rubric = rubrics.get(contract.rubric_ref)
    assert rubric is not None  # _build_contract found it
    config = config_for(rubric, repo, base, created.timestamp())
    contract = contract.model_copy(update={"config_digest": config_digest(config)})
    stored = storage.insert_contract(store, contract, config)
    return CreateContractResult(
        contract=stored, generator_view=generator_view(stored), warnings=warnings_of(request)
    )


def import_contract(
    contract: Contract, *, store: Store, config: ContractConfig | None = None
) -> CreateContractResult:
    """Store an exported contract (and the configuration exported with it) under its own id
    (same content: no change).

    Raises:
        InvalidInput: a different contract is already stored under that id.
    """
    try:
        existing = storage.load_contract(store, contract.id)
    except NotFound:
        existing = None
    if existing is not None and existing != contract:
        raise InvalidInput(
            [
                Problem(
                    path="/id",
                    code="id_taken",
                    message=f"a different contract is already stored as {contract.id}",
                )
            ]
        )
    if existing is None:
        storage.replace_contract(store, contract, config)
    return CreateContractResult(
        contract=contract, generator_view=generator_view(contract), warnings=[]
    )


def get_contract(contract_id: str, view: View, *, store: Store) -> dict[str, Any]:
    """A stored contract as JSON: the evaluator view (everything) or the generator view."""
    contract = storage.load_contract(store, contract_id)
    return generator_view(contract) if view == "generator" else contract_document(contract)


def export_contract(contract_id: str, view: View, *, store: Store) -> dict[str, Any]:
    """A stored contract as a file's document: the view, with the configuration fixed at its
    creation (`config`: rubric, allowlist), which CI then judges with, and the seal of both with
    referee's key (`seal`), without which a file's configuration is not taken."""
    doc = get_contract(contract_id, view, store=store)
    config = storage.load_config(store, storage.load_contract(store, contract_id))
    if config is not None:
        doc[CONFIG_KEY] = config.model_dump(mode="json", by_alias=True)
    # Sealed as the file will be read back: the view's document parsed as a contract.
    contract, _ = parse_exported(doc)
    doc[SEAL_KEY] = contract_seal(store.key, contract, config)
    return doc


def _build_contract(
    request: CreateContractInput,
    rubrics: RubricSet,
    repo: RepoInfo,
    created: datetime,
    base: str | None,
) -> Contract:
    rubric_name = request.rubric_ref or select_rubric(request.task_type, request.has_ui)
    rubric = rubrics.get(rubric_name)
    assert rubric is not None  # checked by _rubric_problems; built-ins always load
    evaluators = request.evaluators or _named_evaluators(request)
    return Contract(
        id=f"SC-{_slug(request.slug or request.goal)}-{created:%Y%m%d}",
        goal=request.goal.strip(),
        task_type=request.task_type,
        has_ui=request.has_ui,
        scope=ContractScope(in_scope=request.in_scope, out_of_scope=request.out_of_scope),
        acceptance_criteria=_assign_ids(request, evaluators),
        rubric_ref=rubric.name,
        generator=request.generator,
        evaluators=evaluators,
        max_iterations=request.max_iterations,
        context_strategy=request.context_strategy,
        thresholds=request.thresholds,
        serve=request.serve,
        require_sandbox=request.require_sandbox,
        browser_setup=request.browser_setup,
        antipatterns=request.antipatterns,
        repo=str(repo.root),
        base_commit=base,
        created_at=created.isoformat(timespec="seconds").replace("+00:00", "Z"),
        rubric_version=rubric.version,
        evaluator_prompt_version=evaluator_prompt_version(),
    )


def _base_commit(given: Any, repo: RepoInfo) -> tuple[str | None, list[Problem]]:
    """The given base resolved to its full sha (HEAD when none is given), or the problem."""
    if not isinstance(given, str) or not given:
        return repo.head, []  # a wrong type is reported by the model's validation
    if not repo.is_git:
        message = f"{repo.root} is not a git repository, so it has no commit to start from"
        return None, [Problem(path="/base_commit", code="not_a_repository", message=message)]
    try:
        return resolve_commit(repo.root, given, at="/base_commit"), []
    except InvalidInput as exc:
        return None, list(exc.problems)


def _named_evaluators(request: CreateContractInput) -> list[str]:
    named = [c.evaluator for c in (*request.functional, *request.quality) if c.evaluator]
    return list(dict.fromkeys(named)) or [DEFAULT_EVALUATOR]


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    if len(slug) > 40:
        cut = slug[:41]
        slug = cut[: cut.rfind("-")] if "-" in cut[20:] else slug[:40]
    return slug.strip("-") or "contract"


def _assign_ids(request: CreateContractInput, evaluators: list[str]) -> AcceptanceCriteria:
    used = {c.id for c in (*request.functional, *request.quality) if c.id}
    functional = _numbered(request.functional, "AC-F", used, evaluators)
    quality = _numbered(request.quality, "AC-Q", used, evaluators)
    return AcceptanceCriteria(functional=functional, quality=quality)


def _numbered(
    specs: list[CriterionSpec], prefix: str, used: set[str], evaluators: list[str]
) -> list[Criterion]:
    # Visible criteria are numbered before hold-outs, so the generator view shows no gap.
    order = sorted(range(len(specs)), key=lambda i: specs[i].holdout)
    ids: dict[int, str] = {}
    counter = 0
    for i in order:
        given = specs[i].id
        if given:
            ids[i] = given
            continue
        counter += 1
        while f"{prefix}-{counter:03d}" in used:
            counter += 1
        ids[i] = f"{prefix}-{counter:03d}"
        used.add(ids[i])
    return [_criterion(spec, ids[i], evaluators) for i, spec in enumerate(specs)]


def _criterion(spec: CriterionSpec, ident: str, evaluators: list[str]) -> Criterion:
    data = spec.model_dump(exclude={"id", "evaluator"})
    return Criterion(id=ident, evaluator=spec.evaluator or evaluators[0], **data)
