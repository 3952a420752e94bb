"""create_contract and get_contract: the sprint contract, written before any code exists."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import Field, ValidationError

from .errors import InvalidInput, NotFound, Problem, pointer, problems_from_validation
from .gitinfo import RepoInfo
from .models.common import Model
from .models.contract import (
    AcceptanceCriteria,
    Contract,
    ContractScope,
    CreateContractInput,
    Criterion,
    CriterionSpec,
)
from .prompts import evaluator_prompt_version
from .redact import secret_env_values
from .rubrics import RubricSet, select_rubric
from .store import Store, insert_contract, load_contract, replace_contract

MAX_EVALUATORS = 4
DEFAULT_EVALUATOR = "evaluator"
View = Literal["generator", "evaluator"]


class CreateContractResult(Model):
    contract: Contract = Field(description="The stored contract (evaluator view: everything)")
    generator_view: dict[str, Any] = Field(description="What the generator may see: hold-outs removed")
    warnings: list[Problem] = Field(default_factory=list)


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
    request = _validated_request(args, rubrics)
    created = now().astimezone(timezone.utc)
    contract = _build_contract(request, rubrics, repo, created)
    stored = insert_contract(store, contract)
    return CreateContractResult(contract=stored, generator_view=generator_view(stored), warnings=_warnings(request))


def import_contract(contract: Contract, *, store: Store) -> CreateContractResult:
    """Store an exported contract under its own id (same content: no change).

    Raises:
        InvalidInput: a different contract is already stored under that id.
    """
    try:
        existing = load_contract(store, contract.id)
    except NotFound:
        existing = None
    if existing is not None and existing != contract:
        raise InvalidInput([Problem(path="/id", code="id_taken",
                                    message=f"a different contract is already stored as {contract.id}")])
    if existing is None:
        replace_contract(store, contract)
    return CreateContractResult(contract=contract, generator_view=generator_view(contract), warnings=[])


def get_contract(contract_id: str, view: View, *, store: Store) -> dict[str, Any]:
    """A stored contract as JSON: the evaluator view (everything) or the generator view."""
    contract = load_contract(store, contract_id)
    return generator_view(contract) if view == "generator" else contract_document(contract)


def contract_document(contract: Contract) -> dict[str, Any]:
    return contract.model_dump(mode="json", by_alias=True)


def generator_view(contract: Contract) -> dict[str, Any]:
    """The contract without hold-out criteria and without the `holdout` key itself."""
    doc = contract_document(contract)
    for group in ("functional", "quality"):
        doc["acceptance_criteria"][group] = [
            {k: v for k, v in c.items() if k != "holdout"}
            for c in doc["acceptance_criteria"][group]
            if not c.get("holdout")
        ]
    doc["evaluators"] = _visible_evaluators(contract)
    return doc


def _visible_evaluators(contract: Contract) -> list[str]:
    # An evaluator whose only criteria are hold-outs would betray that hidden criteria exist.
    visible = {c.evaluator for c in contract.all_criteria() if not c.holdout}
    hidden_only = {c.evaluator for c in contract.all_criteria() if c.holdout} - visible
    return [e for e in contract.evaluators if e not in hidden_only]


def request_problems(args: Mapping[str, Any], rubrics: RubricSet) -> list[Problem]:
    """Every problem of a create_contract request (types and rules), sorted by pointer."""
    return _parse(args, rubrics)[1]


def _validated_request(args: Mapping[str, Any], rubrics: RubricSet) -> CreateContractInput:
    request, problems = _parse(args, rubrics)
    if problems or request is None:
        raise InvalidInput(problems)
    return request


def _parse(args: Mapping[str, Any], rubrics: RubricSet) -> tuple[CreateContractInput | None, list[Problem]]:
    problems: list[Problem] = []
    request: CreateContractInput | None = None
    try:
        request = CreateContractInput.model_validate(dict(args))
    except ValidationError as exc:
        problems.extend(problems_from_validation(exc))
    problems.extend(semantic_problems(args, rubrics))
    return request, _sorted(problems)


def _sorted(problems: list[Problem]) -> list[Problem]:
    unique = list(dict.fromkeys(problems))
    return sorted(unique, key=lambda p: p.path)


def semantic_problems(args: Mapping[str, Any], rubrics: RubricSet) -> list[Problem]:
    """Rules beyond types, checked on the raw request so they are reported alongside type errors."""
    criteria = list(_raw_criteria(args))
    evaluators = _declared_evaluators(args, criteria)
    return [
        *_rubric_problems(args, rubrics),
        *_evaluator_problems(args, evaluators),
        *_criteria_problems(criteria, evaluators),
        *_id_problems(criteria),
        *_serve_problems(args, criteria),
    ]


def _raw_criteria(args: Mapping[str, Any]) -> Iterable[tuple[str, dict[str, Any]]]:
    for group in ("functional", "quality"):
        items = args.get(group)
        if isinstance(items, list):
            for i, item in enumerate(items):
                if isinstance(item, dict):
                    yield pointer(group, i), item


def _declared_evaluators(args: Mapping[str, Any], criteria: list[tuple[str, dict[str, Any]]]) -> list[str]:
    given = args.get("evaluators")
    if isinstance(given, list):
        return [e for e in given if isinstance(e, str)]
    named = [c.get("evaluator") for _, c in criteria]
    found = list(dict.fromkeys(e for e in named if isinstance(e, str) and e))
    return found or [DEFAULT_EVALUATOR]


def _rubric_problems(args: Mapping[str, Any], rubrics: RubricSet) -> list[Problem]:
    ref = args.get("rubric_ref")
    if ref is None or not isinstance(ref, str) or rubrics.get(ref) is not None:
        return []
    known = ", ".join(sorted(rubrics.names()))
    return [Problem(path="/rubric_ref", code="unknown_rubric", message=f"no rubric named {ref!r}; known: {known}")]


def _evaluator_problems(args: Mapping[str, Any], evaluators: list[str]) -> list[Problem]:
    problems = []
    if isinstance(args.get("evaluators"), list):
        if not evaluators:
            problems.append(Problem(path="/evaluators", code="too_few_evaluators", message="name at least one evaluator"))
        if len(evaluators) > MAX_EVALUATORS:
            problems.append(Problem(
                path="/evaluators", code="too_many_evaluators",
                message=f"{len(evaluators)} evaluators named; at most {MAX_EVALUATORS} (more adds cost, not signal)",
            ))
        for i, name in enumerate(evaluators):
            if not name.strip():
                problems.append(Problem(path=pointer("evaluators", i), code="empty_name", message="an evaluator needs a name"))
            elif evaluators.index(name) != i:
                problems.append(Problem(path=pointer("evaluators", i), code="duplicate_evaluator", message=f"{name!r} is listed twice"))
    return problems


def _criteria_problems(criteria: list[tuple[str, dict[str, Any]]], evaluators: list[str]) -> list[Problem]:
    if not criteria:
        return [Problem(path="/functional", code="no_criteria",
                        message="a contract needs at least one acceptance criterion (functional or quality)")]
    problems = []
    for at, crit in criteria:
        problems.extend(_criterion_evaluator(at, crit, evaluators))
        problems.extend(_criterion_check(at, crit))
    return problems


def _criterion_evaluator(at: str, crit: dict[str, Any], evaluators: list[str]) -> list[Problem]:
    name = crit.get("evaluator")
    if name is None:
        if len(evaluators) > 1:
            return [Problem(path=at + "/evaluator", code="evaluator_missing",
                            message=f"with several evaluators each criterion names exactly one of {evaluators}")]
        return []
    if isinstance(name, str) and name not in evaluators:
        return [Problem(path=at + "/evaluator", code="unknown_evaluator",
                        message=f"{name!r} is not one of the contract's evaluators {evaluators}")]
    return []


def _criterion_check(at: str, crit: dict[str, Any]) -> list[Problem]:
    method = crit.get("verification_method")
    manual = isinstance(method, str) and method.strip().lower() == "manual"
    if crit.get("check") is None and not manual and isinstance(method, str):
        return [Problem(path=at + "/check", code="check_required",
                        message=f"verification_method {method!r} needs a `check` (tests, command, browser or static); "
                                "use verification_method 'manual' for criteria only a judge can decide")]
    return []


def _id_problems(criteria: list[tuple[str, dict[str, Any]]]) -> list[Problem]:
    seen: dict[str, str] = {}
    problems = []
    for at, crit in criteria:
        ident = crit.get("id")
        if isinstance(ident, str):
            if ident in seen:
                problems.append(Problem(path=at + "/id", code="duplicate_id",
                                        message=f"criterion id {ident!r} is already used at {seen[ident]}"))
            seen.setdefault(ident, at)
    return problems


def _serve_problems(args: Mapping[str, Any], criteria: list[tuple[str, dict[str, Any]]]) -> list[Problem]:
    if isinstance(args.get("serve"), dict):
        return []
    problems = []
    for at, crit in criteria:
        check = crit.get("check")
        url = check.get("url") if isinstance(check, dict) and check.get("kind") == "browser" else None
        if isinstance(url, str) and not re.match(r"^[a-z][a-z0-9+.-]*://", url, re.IGNORECASE):
            problems.append(Problem(path=at + "/check/url", code="relative_url_without_serve",
                                    message=f"{url!r} is a path; give an absolute loopback URL or a `serve` block whose url it joins"))
    return problems


def _build_contract(request: CreateContractInput, rubrics: RubricSet, repo: RepoInfo, created: datetime) -> Contract:
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
        antipatterns=request.antipatterns,
        repo=str(repo.root),
        base_commit=repo.head,
        created_at=created.isoformat(timespec="seconds").replace("+00:00", "Z"),
        rubric_version=rubric.version,
        evaluator_prompt_version=evaluator_prompt_version(),
    )


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


def _numbered(specs: list[CriterionSpec], prefix: str, used: set[str], evaluators: list[str]) -> list[Criterion]:
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


def _literal_secrets(request: CreateContractInput) -> list[Problem]:
    """Secret-looking env values written into the contract (stored as they are) instead of `${NAME}`."""
    places = [(pointer(g, i, "check", "env"), getattr(c.check, "env", {}) or {})
              for g in ("functional", "quality") for i, c in enumerate(getattr(request, g))]
    places.append(("/serve/env", request.serve.env if request.serve else {}))
    found = []
    for at, env in places:
        for name in env:
            if secret_env_values({name: env[name]}) and "${" not in env[name]:
                found.append(Problem(path=f"{at}/{name}", code="secret_in_contract", message=(
                    f"{name} holds a literal secret that is stored with the contract; write \"${{{name}}}\" to take "
                    "it from the server's environment when the check runs")))
    return found


def _warnings(request: CreateContractInput) -> list[Problem]:
    warnings = []
    if not request.out_of_scope:
        warnings.append(Problem(path="/out_of_scope", code="out_of_scope_empty",
                                message="out_of_scope is empty: naming what is excluded keeps the generator from gold-plating"))
    if len(re.findall(r"[.!?](\s|$)", request.goal.strip())) > 2:
        warnings.append(Problem(path="/goal", code="goal_too_long", message="keep the goal to one or two sentences"))
    warnings.extend(_literal_secrets(request))
    for group in ("functional", "quality"):
        for i, spec in enumerate(getattr(request, group)):
            if spec.verification_method == "manual" and spec.check is not None:
                warnings.append(Problem(path=pointer(group, i, "check"), code="manual_with_check",
                                        message="a manual criterion's check is run, but a judge still decides it"))
    return warnings
