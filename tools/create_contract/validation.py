"""Every problem of a create_contract request at once: its types and the rules beyond them.

The rules run on the raw request, not on the parsed model, so a request with a type error still
gets every other problem reported in the same answer (each with a JSON pointer and a code).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from referee.tools.errors import InvalidInput, Problem, pointer, problems_from_validation
from referee.tools.evidence.redact import secret_env_values
from referee.tools.models.contract import CreateContractInput
from referee.tools.rubrics import RubricSet
from referee.tools.runners import confined_report, junit_escape

__all__ = [
    "DEFAULT_EVALUATOR",
    "MAX_EVALUATORS",
    "request_problems",
    "validated_request",
    "warnings_of",
]

MAX_EVALUATORS = 4
DEFAULT_EVALUATOR = "evaluator"


def request_problems(
    args: Mapping[str, Any], rubrics: RubricSet, root: Path | None = None
) -> list[Problem]:
    """Every problem of a create_contract request (types and rules), sorted by pointer.

    `root` is the repository the contract is for: with it, a check's `junit` path is also
    followed through symlinks.
    """
    return _parse(args, rubrics, root)[1]


def validated_request(
    args: Mapping[str, Any], rubrics: RubricSet, root: Path | None = None
) -> CreateContractInput:
    request, problems = _parse(args, rubrics, root)
    if problems or request is None:
        raise InvalidInput(problems)
    return request


def _parse(
    args: Mapping[str, Any], rubrics: RubricSet, root: Path | None = None
) -> tuple[CreateContractInput | None, list[Problem]]:
    problems: list[Problem] = []
    request: CreateContractInput | None = None
    try:
        request = CreateContractInput.model_validate(dict(args))
    except ValidationError as exc:
        problems.extend(problems_from_validation(exc))
    problems.extend(semantic_problems(args, rubrics, root))
    return request, _sorted(problems)


def _sorted(problems: list[Problem]) -> list[Problem]:
    unique = list(dict.fromkeys(problems))
    return sorted(unique, key=lambda p: p.path)


def semantic_problems(
    args: Mapping[str, Any], rubrics: RubricSet, root: Path | None = None
) -> list[Problem]:
    """Rules beyond types, checked on the raw request so they are reported alongside type errors."""
    criteria = list(_raw_criteria(args))
    evaluators = _declared_evaluators(args, criteria)
    return [
        *_rubric_problems(args, rubrics),
        *_evaluator_problems(args, evaluators),
        *_criteria_problems(criteria, evaluators),
        *_id_problems(criteria),
        *_serve_problems(args, criteria),
        *_new_only_problems(args, criteria),
        *_junit_problems(criteria, root),
        *_setup_problems(args),
    ]


def _raw_criteria(args: Mapping[str, Any]) -> Iterable[tuple[str, dict[str, Any]]]:
    for group in ("functional", "quality"):
        items = args.get(group)
        if isinstance(items, list):
            for i, item in enumerate(items):
                if isinstance(item, dict):
                    yield pointer(group, i), item


def _declared_evaluators(
    args: Mapping[str, Any], criteria: list[tuple[str, dict[str, Any]]]
) -> list[str]:
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
    return [
        Problem(
            path="/rubric_ref",
            code="unknown_rubric",
            message=(
                f"no rubric named {ref!r}; known: {known} (a rubric of the repository counts"
                " once it is committed in .referee/rubrics/ at the contract's base)"
            ),
        )
    ]


def _evaluator_problems(args: Mapping[str, Any], evaluators: list[str]) -> list[Problem]:
    problems = []
    if isinstance(args.get("evaluators"), list):
        if not evaluators:
            problems.append(
                Problem(
                    path="/evaluators",
                    code="too_few_evaluators",
                    message="name at least one evaluator",
                )
            )
        if len(evaluators) > MAX_EVALUATORS:
            problems.append(
                Problem(
                    path="/evaluators",
                    code="too_many_evaluators",
                    message=(
                        f"{len(evaluators)} evaluators named; at most {MAX_EVALUATORS} (more adds"
                        " cost, not signal)"
                    ),
                )
            )
        for i, name in enumerate(evaluators):
            if not name.strip():
                problems.append(
                    Problem(
                        path=pointer("evaluators", i),
                        code="empty_name",
                        message="an evaluator needs a name",
                    )
                )
            elif evaluators.index(name) != i:
                problems.append(
                    Problem(
                        path=pointer("evaluators", i),
                        code="duplicate_evaluator",
                        message=f"{name!r} is listed twice",
                    )
                )
    return problems


def _criteria_problems(
    criteria: list[tuple[str, dict[str, Any]]], evaluators: list[str]
) -> list[Problem]:
    if not criteria:
        return [
            Problem(
                path="/functional",
                code="no_criteria",
                message=(
                    "a contract needs at least one acceptance criterion (functional or quality)"
                ),
            )
        ]
    problems = []
    for at, crit in criteria:
        problems.extend(_criterion_evaluator(at, crit, evaluators))
        problems.extend(_criterion_check(at, crit))
    return problems


def _criterion_evaluator(at: str, crit: dict[str, Any], evaluators: list[str]) -> list[Problem]:
    name = crit.get("evaluator")
    if name is None:
        if len(evaluators) > 1:
            return [
                Problem(
                    path=at + "/evaluator",
                    code="evaluator_missing",
                    message=(
                        f"with several evaluators each criterion names exactly one of {evaluators}"
                    ),
                )
            ]
        return []
    if isinstance(name, str) and name not in evaluators:
        return [
            Problem(
                path=at + "/evaluator",
                code="unknown_evaluator",
                message=f"{name!r} is not one of the contract's evaluators {evaluators}",
            )
        ]
    return []


def _criterion_check(at: str, crit: dict[str, Any]) -> list[Problem]:
    method = crit.get("verification_method")
    manual = isinstance(method, str) and method.strip().lower() == "manual"
    if crit.get("check") is None and not manual and isinstance(method, str):
        return [
            Problem(
                path=at + "/check",
                code="check_required",
                message=(
                    f"verification_method {method!r} needs a `check` (tests, command, browser or"
                    " static); use verification_method 'manual' for criteria only a judge can"
                    " decide"
                ),
            )
        ]
    return []


def _id_problems(criteria: list[tuple[str, dict[str, Any]]]) -> list[Problem]:
    seen: dict[str, str] = {}
    problems = []
    for at, crit in criteria:
        ident = crit.get("id")
        if isinstance(ident, str):
            if ident in seen:
                problems.append(
                    Problem(
                        path=at + "/id",
                        code="duplicate_id",
                        message=f"criterion id {ident!r} is already used at {seen[ident]}",
                    )
                )
            seen.setdefault(ident, at)
    return problems


def _junit_problems(criteria: list[tuple[str, dict[str, Any]]], root: Path | None) -> list[Problem]:
    """A tests check's `junit` report must lie in the check's folder: referee reads it, and
    must never be led to read (or be blamed for) a file elsewhere."""
    problems = []
    for at, crit in criteria:
        check = crit.get("check")
        if not isinstance(check, dict) or check.get("kind") != "tests":
            continue
        junit, cwd = check.get("junit"), check.get("cwd")
        if not isinstance(junit, str) or not junit:
            continue
        reason = junit_escape(junit)
        if reason is None and root is not None and isinstance(cwd, str | None):
            folder = root / (cwd or ".")
            if confined_report(folder, junit) is None:
                reason = "leads out of the check's cwd through a symlink"
        if reason is not None:
            problems.append(
                Problem(
                    path=at + "/check/junit",
                    code="junit_outside",
                    message=f"junit {junit!r} {reason}",
                )
            )
    return problems


def _serve_problems(
    args: Mapping[str, Any], criteria: list[tuple[str, dict[str, Any]]]
) -> list[Problem]:
    """A relative URL (a check's, a goto step's, a setup step's) needs `serve.url` to join."""
    if isinstance(args.get("serve"), dict):
        return []
    urls: list[tuple[str, Any]] = []
    for at, crit in criteria:
        check = crit.get("check")
        if isinstance(check, dict) and check.get("kind") == "browser":
            urls.append((at + "/check/url", check.get("url")))
            urls += _goto_urls(at + "/check/steps", check.get("steps"))
    urls += _goto_urls("/browser_setup", args.get("browser_setup"))
    return [
        Problem(
            path=path,
            code="relative_url_without_serve",
            message=(
                f"{url!r} is a path; give an absolute loopback URL or a `serve` block whose"
                " url it joins"
            ),
        )
        for path, url in urls
        if isinstance(url, str) and not re.match(r"^[a-z][a-z0-9+.-]*://", url, re.IGNORECASE)
    ]


def _new_only_problems(
    args: Mapping[str, Any], criteria: list[tuple[str, dict[str, Any]]]
) -> list[Problem]:
    """An a11y expectation with `new_only` compares the page with the base commit's version of
    it, which referee can serve only through the contract's `serve`: a page opened from anywhere
    else (a file of the working tree, another server) would be the same at base and now, and
    every new violation would read as an old one."""
    serve = args.get("serve")
    origin = _origin(serve.get("url")) if isinstance(serve, dict) else None
    problems = []
    for at, crit in criteria:
        check = crit.get("check")
        if not isinstance(check, dict) or check.get("kind") != "browser":
            continue
        expect = check.get("expect")
        if not isinstance(expect, list) or not any(
            isinstance(e, dict) and e.get("type") == "a11y" and e.get("new_only") is True
            for e in expect
        ):
            continue
        urls = [(at + "/check/url", check.get("url"))]
        urls += _goto_urls(at + "/check/steps", check.get("steps"))
        urls += _goto_urls("/browser_setup", args.get("browser_setup"))
        problems += [
            Problem(
                path=path,
                code="new_only_off_serve",
                message=(
                    f"{url!r} is not a page of the contract's `serve` app, which an a11y"
                    " expectation with new_only needs (the base run serves the base commit's"
                    " version of the app): give a path joined to serve.url"
                ),
            )
            for path, url in urls
            if isinstance(url, str) and (origin is None or _origin(url) not in (None, origin))
        ]
    return problems


def _origin(url: Any) -> str | None:
    """`scheme://host:port` of an absolute URL (None for a path)."""
    if not isinstance(url, str) or not re.match(r"^[a-z][a-z0-9+.-]*://", url, re.IGNORECASE):
        return None
    parts = urlsplit(url)
    try:
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower())
    except ValueError:  # a port out of range: no origin a served app has
        return url
    return f"{parts.scheme.lower()}://{(parts.hostname or '').lower()}:{port}"


def _goto_urls(at: str, steps: Any) -> list[tuple[str, Any]]:
    if not isinstance(steps, list):
        return []
    return [
        (f"{at}/{i}/url", step.get("url"))
        for i, step in enumerate(steps)
        if isinstance(step, dict) and step.get("action") == "goto"
    ]


def _setup_problems(args: Mapping[str, Any]) -> list[Problem]:
    """Setup steps run on a fresh, empty page: the first one has to open something."""
    steps = args.get("browser_setup")
    if not isinstance(steps, list) or not steps or not isinstance(steps[0], dict):
        return []
    if steps[0].get("action") == "goto":
        return []
    return [
        Problem(
            path="/browser_setup/0",
            code="setup_without_goto",
            message=(
                "browser_setup runs on a fresh, empty page before each check opens its url:"
                " start it with {action: goto, url: ...}"
            ),
        )
    ]


def _literal_secrets(request: CreateContractInput) -> list[Problem]:
    """Secret-looking env values written into the contract (stored as they are) instead of
    `${NAME}`."""
    places = [
        (pointer(g, i, "check", "env"), getattr(c.check, "env", {}) or {})
        for g in ("functional", "quality")
        for i, c in enumerate(getattr(request, g))
    ]
    places.append(("/serve/env", request.serve.env if request.serve else {}))
    found = []
    for at, env in places:
        for name in env:
            if secret_env_values({name: env[name]}) and "${" not in env[name]:
                found.append(
                    Problem(
                        path=f"{at}/{name}",
                        code="secret_in_contract",
                        message=(
                            f"{name} holds a literal secret that is stored with the contract; write"
                            f' "${{{name}}}" to take it from the server\'s environment when the'
                            " check runs"
                        ),
                    )
                )
    return found


def warnings_of(request: CreateContractInput) -> list[Problem]:
    warnings = []
    if not request.out_of_scope:
        warnings.append(
            Problem(
                path="/out_of_scope",
                code="out_of_scope_empty",
                message=(
                    "out_of_scope is empty: naming what is excluded keeps the generator from"
                    " gold-plating"
                ),
            )
        )
    if len(re.findall(r"[.!?](\s|$)", request.goal.strip())) > 2:
        warnings.append(
            Problem(
                path="/goal", code="goal_too_long", message="keep the goal to one or two sentences"
            )
        )
    warnings.extend(_literal_secrets(request))
    for group in ("functional", "quality"):
        for i, spec in enumerate(getattr(request, group)):
            if spec.verification_method == "manual" and spec.check is not None:
                warnings.append(
                    Problem(
                        path=pointer(group, i, "check"),
                        code="manual_with_check",
                        message="a manual criterion's check is run, but a judge still decides it",
                    )
                )
    return warnings
