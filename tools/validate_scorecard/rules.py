"""Contract-aware scorecard rules: criteria, evaluator, rubric, dimensions, texts.

Each rule is a small function from a `Card` to a list of problems; `contract_problems` runs them
all. Severity is not decided here: it comes from the code (tools/scorecard_codes.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from referee.tools.errors import Problem
from referee.tools.models.antipatterns import ANTIPATTERNS
from referee.tools.validate_scorecard.card import (
    Card,
    below_threshold,
    blank,
    entries,
    is_number,
    obj,
    path,
    scored_dimensions,
    text,
)

REFEREE_ANTIPATTERNS: frozenset[str] = frozenset(ANTIPATTERNS)
"""Antipattern ids referee itself detects; a scorecard may report them whatever the contract
lists."""

NO_EVIDENCE = "no evidence"

Rule = Callable[[Card], list[Problem]]


def card_problems(card: Card) -> list[Problem]:
    """Return the problems that need no contract: texts, scores on the rubric's scale, guidance.

    Args:
        card: The scorecard.

    Returns:
        Problems in rule order.
    """
    rules: list[Rule] = [
        _provider,
        _evidence_texts,
        _pass_without_evidence,
        _spec_defect_reason,
        _scale_values,
        _dimension_keys,
        _guidance,
        _duplicate_criteria,
    ]
    return [p for rule in rules for p in rule(card)]


def contract_problems(card: Card) -> list[Problem]:
    """Return the problems found by checking the scorecard against its contract.

    Args:
        card: The scorecard, with a contract.

    Returns:
        Problems in rule order; a single `contract_unchecked` warning when there is no contract.
    """
    if card.contract is None:
        message = (
            "no contract was given, so criteria ids, the evaluator, dimension keys, thresholds and "
            "antipatterns were not checked; validate against the contract"
        )
        return [Problem(path="", code="contract_unchecked", message=message)]
    rules: list[Rule] = [
        _contract_ref,
        _iteration,
        _evaluator,
        _criteria_ids,
        _missing_criteria,
        _rubric_ref,
        _antipatterns,
        _thresholds,
        _unthresholded,
    ]
    return [p for rule in rules for p in rule(card)]


# Rules that need no contract


def _provider(card: Card) -> list[Problem]:
    if _whitespace(card.data.get("provider")):
        return [
            Problem(
                path="/provider",
                code="empty",
                message="provider is blank; name who produced the scorecard",
            )
        ]
    return []


def _evidence_texts(card: Card) -> list[Problem]:
    message = (
        "evidence is blank; cite what supports this: file:line, an evidence id (E3) or observed"
        " behaviour"
    )
    return [
        Problem(path=path(*where), code="evidence_empty", message=message)
        for where in _blank_evidence(card)
    ]


def _blank_evidence(card: Card) -> Iterator[tuple[object, ...]]:
    data = card.data
    for group in ("criteria", "antipatterns_detected"):
        for i, item in entries(data.get(group)):
            if _blank_text(item, "evidence"):
                yield (group, i, "evidence")
    if card.format == "referee":
        yield from (
            ("dimensions", key, "evidence")
            for key, dim in obj(data.get("dimensions")).items()
            if isinstance(dim, dict) and _blank_text(dim, "evidence")
        )
        return
    for domain, body in obj(data.get("domains")).items():
        for name, dim in obj(obj(body).get("dimensions")).items():
            # The tenpoint format accepts a dimension's
            # justification under evidence or under comment.
            if isinstance(dim, dict) and blank(dim.get("evidence")) and blank(dim.get("comment")):
                yield ("domains", domain, "dimensions", name, "evidence")


def _blank_text(item: dict[str, object], key: str) -> bool:
    # Missing, non-string and empty values are the schema's to report; whitespace-only text is ours.
    return _whitespace(item.get(key))


def _whitespace(value: object) -> bool:
    return isinstance(value, str) and value != "" and not value.strip()


def _pass_without_evidence(card: Card) -> list[Problem]:
    problems = []
    for i, crit in entries(card.data.get("criteria")):
        said = text(crit.get("evidence")) or ""
        if crit.get("pass") is True and said.strip().rstrip(".").casefold() == NO_EVIDENCE:
            problems.append(
                Problem(
                    path=path("criteria", i, "pass"),
                    code="pass_without_evidence",
                    message=(
                        f'criterion {crit.get("id")} is marked pass with "no evidence"; a criterion'
                        " the evidence cannot support is pass: false"
                    ),
                )
            )
    return problems


def _spec_defect_reason(card: Card) -> list[Problem]:
    defect = card.data.get("spec_defect")
    if isinstance(defect, dict) and _whitespace(defect.get("reason")):
        return [
            Problem(
                path="/spec_defect/reason",
                code="spec_defect_shape",
                message=(
                    "spec_defect.reason is blank; cite the codebase evidence that the spec is wrong"
                ),
            )
        ]
    return []


def _scale_values(card: Card) -> list[Problem]:
    if card.format != "referee" or card.rubric is None:
        return []
    problems = []
    for dim in scored_dimensions(card):
        if card.scale == "unit" and dim.score > 1.0:
            problems.append(
                Problem(
                    path=path(*dim.where, "score"),
                    code="out_of_range",
                    message=(
                        f"{card.rubric.name} scores run from 0.0 to 1.0, not {dim.score:g}; use a"
                        " value inside that range"
                    ),
                )
            )
        elif card.scale == "integer" and not dim.score.is_integer():
            problems.append(
                Problem(
                    path=path(*dim.where, "score"),
                    code="score_not_integer",
                    message=(
                        f"{card.rubric.name} scores are whole numbers 0–3, not {dim.score:g}; use"
                        " an integer"
                    ),
                )
            )
    return problems


def _dimension_keys(card: Card) -> list[Problem]:
    if (
        card.format != "referee"
        or card.rubric is None
        or not isinstance(card.data.get("dimensions"), dict)
    ):
        return []
    given, wanted = card.data["dimensions"], card.rubric.weights()
    listed = ", ".join(wanted)
    problems = [
        Problem(
            path=path("dimensions", key),
            code="dimension_missing",
            message=(
                f"{card.rubric.name} dimension '{key}' has no score; score every dimension"
                f" ({listed})"
            ),
        )
        for key in wanted
        if key not in given
    ]
    problems += [
        Problem(
            path=path("dimensions", key),
            code="dimension_unknown",
            message=(
                f"'{key}' is not a dimension of {card.rubric.name}; use its keys exactly ({listed})"
            ),
        )
        for key in given
        if key not in wanted
    ]
    return problems


def _guidance(card: Card) -> list[Problem]:
    weak = [d.key for d in scored_dimensions(card) if below_threshold(card, d)]
    if not weak or not blank(card.data.get("guidance")):
        return []
    return [
        Problem(
            path="/guidance",
            code="guidance_missing",
            message=(
                f"{', '.join(weak)} {'is' if len(weak) == 1 else 'are'} below threshold, so"
                " guidance must say what to fix; write actionable instructions for each"
            ),
        )
    ]


def _duplicate_criteria(card: Card) -> list[Problem]:
    seen: set[str] = set()
    problems = []
    for i, crit in entries(card.data.get("criteria")):
        ident = text(crit.get("id"))
        if ident in seen:
            problems.append(
                Problem(
                    path=path("criteria", i, "id"),
                    code="criterion_duplicate",
                    message=f"criterion {ident} is listed twice; keep one verdict per criterion",
                )
            )
        if ident is not None:
            seen.add(ident)
    return problems


# Rules against the contract (card.contract is set)


def _contract_ref(card: Card) -> list[Problem]:
    assert card.contract is not None
    ref = card.contract_ref
    if ref is None or ref == card.contract.id:
        return []
    return [
        Problem(
            path=path(card.ref_field),
            code="contract_mismatch",
            message=(
                f"{card.ref_field} is {ref!r} but this is contract {card.contract.id}; use the"
                " contract's id"
            ),
        )
    ]


def _iteration(card: Card) -> list[Problem]:
    assert card.contract is not None
    iteration, bound = card.iteration, card.contract.max_iterations
    if iteration is None or iteration <= bound:
        return []
    return [
        Problem(
            path="/iteration",
            code="iteration_out_of_range",
            message=(
                f"iteration {iteration} is beyond the contract's max_iterations ({bound}); use"
                f" 1..{bound}"
            ),
        )
    ]


def _evaluator(card: Card) -> list[Problem]:
    assert card.contract is not None
    if blank(card.evaluator) or card.evaluator in card.contract.evaluators:
        return []
    return [
        Problem(
            path="/evaluator",
            code="evaluator_unknown",
            message=(
                f"{card.evaluator!r} is not an evaluator of {card.contract.id}"
                f" ({', '.join(card.contract.evaluators)}); use the name the contract assigns"
            ),
        )
    ]


def _criteria_ids(card: Card) -> list[Problem]:
    assert card.contract is not None
    problems = []
    for i, crit in entries(card.data.get("criteria")):
        ident = text(crit.get("id"))
        spec = card.contract.criterion(ident) if ident is not None else None
        if ident is not None and spec is None:
            problems.append(
                Problem(
                    path=path("criteria", i, "id"),
                    code="criterion_unknown",
                    message=(
                        f"{card.contract.id} has no criterion {ident!r}; reproduce the ids exactly"
                        f" ({_ids_for(card)})"
                    ),
                )
            )
        elif (
            spec is not None
            and card.evaluator in card.contract.evaluators
            and spec.evaluator != card.evaluator
        ):
            problems.append(
                Problem(
                    path=path("criteria", i, "id"),
                    code="criterion_other_evaluator",
                    message=(
                        f"{ident} is assigned to {spec.evaluator}, not {card.evaluator}; only"
                        f" {spec.evaluator}'s verdict counts"
                    ),
                )
            )
    return problems


def _ids_for(card: Card) -> str:
    assert card.contract is not None
    own = (
        card.contract.criteria_for(card.evaluator)
        if card.evaluator in card.contract.evaluators
        else []
    )
    return ", ".join(c.id for c in own or card.contract.all_criteria())


def _missing_criteria(card: Card) -> list[Problem]:
    assert card.contract is not None
    if card.evaluator not in card.contract.evaluators:
        return []
    given = {text(c.get("id")) for _, c in entries(card.data.get("criteria"))}
    return [
        Problem(
            path="/criteria",
            code="criterion_missing",
            message=(
                f"criterion {c.id} ({_short(c.criterion)}) is assigned to {card.evaluator} but has"
                " no verdict; "
                f'add {{"id": "{c.id}", "pass": …, "evidence": …}}'
            ),
        )
        for c in card.contract.criteria_for(card.evaluator)
        if c.id not in given
    ]


def _short(sentence: str, limit: int = 60) -> str:
    return sentence if len(sentence) <= limit else sentence[: limit - 1] + "…"


def _rubric_ref(card: Card) -> list[Problem]:
    assert card.contract is not None
    rubric = obj(card.data.get("rubric"))
    ref, version = text(rubric.get("ref")), text(rubric.get("version"))
    problems = []
    if ref is not None and ref.casefold() != card.contract.rubric_ref.casefold():
        problems.append(
            Problem(
                path="/rubric/ref",
                code="rubric_mismatch",
                message=(
                    f"the contract is scored with {card.contract.rubric_ref}, not {ref}; score with"
                    " the contract's rubric"
                ),
            )
        )
    if version is not None and version != card.contract.rubric_version:
        problems.append(
            Problem(
                path="/rubric/version",
                code="rubric_version_changed",
                message=(
                    f"rubric version {version} differs from the contract's"
                    f" {card.contract.rubric_version}; scores will not be compared across versions"
                ),
            )
        )
    return problems


def _antipatterns(card: Card) -> list[Problem]:
    assert card.contract is not None
    allowed = {a.id for a in card.contract.antipatterns} | REFEREE_ANTIPATTERNS
    listed = ", ".join(sorted(allowed))
    return [
        Problem(
            path=path("antipatterns_detected", i, "id"),
            code="antipattern_unknown",
            message=(
                f"antipattern {found['id']!r} is not one the contract or referee defines; use one"
                f" of: {listed}"
            ),
        )
        for i, found in entries(card.data.get("antipatterns_detected"))
        if isinstance(found.get("id"), str) and found["id"] and found["id"] not in allowed
    ]


def _thresholds(card: Card) -> list[Problem]:
    assert card.contract is not None
    if card.format != "tenpoint":
        return []
    domains = obj(card.data.get("domains"))
    problems = []
    for domain, wanted in card.contract.thresholds.items():
        if domain in domains and not isinstance(obj(domains[domain]).get("dimensions"), dict):
            continue  # the schema has reported it; listing each dimension again adds nothing
        scored = obj(obj(domains.get(domain)).get("dimensions"))
        for name, threshold in wanted.items():
            problems += _threshold_problems(domain, name, threshold, scored.get(name))
    return problems


def _threshold_problems(domain: str, name: str, threshold: float, dim: object) -> list[Problem]:
    at = ("domains", domain, "dimensions", name)
    if not isinstance(dim, dict):
        return [
            Problem(
                path=path(*at),
                code="dimension_missing",
                message=(
                    f"the contract sets a threshold of {threshold:g} for {domain}.{name}; score it"
                ),
            )
        ]
    stated = dim.get("threshold")
    if stated is None:
        return [
            Problem(
                path=path(*at, "threshold"),
                code="threshold_missing",
                message=(
                    f'state the contract\'s threshold for {domain}.{name}: "threshold":'
                    f" {threshold:g}"
                ),
            )
        ]
    if is_number(stated) and float(stated) != float(threshold):
        return [
            Problem(
                path=path(*at, "threshold"),
                code="threshold_mismatch",
                message=(
                    f"the contract's threshold for {domain}.{name} is {threshold:g}, not"
                    f" {stated:g}; use {threshold:g}"
                ),
            )
        ]
    return []


def _unthresholded(card: Card) -> list[Problem]:
    assert card.contract is not None
    if card.format != "tenpoint":
        return []
    problems = []
    for domain, body in obj(card.data.get("domains")).items():
        wanted = card.contract.thresholds.get(domain, {})
        extra = [name for name in obj(obj(body).get("dimensions")) if name not in wanted]
        if extra:
            problems.append(
                Problem(
                    path=path("domains", domain, "dimensions"),
                    code="dimensions_without_thresholds",
                    message=_unthresholded_message(domain, extra, bool(wanted)),
                )
            )
    return problems


def _unthresholded_message(domain: str, extra: list[str], domain_has_thresholds: bool) -> str:
    names = ", ".join(extra)
    if domain_has_thresholds:
        return (
            f"the contract sets no threshold for {domain}: {names}; they are reported but cannot"
            " fail the task"
        )
    return (
        f'the contract sets no thresholds for {domain}, so it is evidence-only: use "dimensions":'
        f" {{}} (scored: {names})"
    )
