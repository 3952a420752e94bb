"""A scorecard as the validation rules see it: the raw object plus what it resolves to.

The rules read the raw JSON object, not a parsed model, so that a scorecard with schema errors is
still checked against the contract and the evidence: every problem is reported at once. Accessors
here skip parts of the wrong type (the schema has already reported those).
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard

from referee.tools.errors import Problem, pointer
from referee.tools.models.common import ScorecardFormat
from referee.tools.models.contract import Contract
from referee.tools.models.rubric import Rubric
from referee.tools.rubrics import RubricSet

FormatChoice = Literal["auto", "referee", "tenpoint"]
Where = tuple[Any, ...]


@dataclass(frozen=True)
class ScoredDimension:
    """One scored dimension of either format (tenpoint keys are "domain.dimension")."""

    key: str
    where: Where
    score: float
    threshold: float | None


@dataclass(frozen=True)
class Card:
    """A scorecard with its format, contract, rubric and resolved evaluator."""

    data: dict[str, Any]
    format: ScorecardFormat
    contract: Contract | None
    rubric: Rubric | None
    evaluator: str | None
    problems: list[Problem] = field(default_factory=list)
    run_rubric: Rubric | None = None
    """The rubric referee's runs of the contract score on (the contract's), whatever the format."""

    @property
    def ref_field(self) -> str:
        return "contract_ref" if self.format == "referee" else "task_id"

    @property
    def contract_ref(self) -> str | None:
        return text(self.data.get(self.ref_field))

    @property
    def iteration(self) -> int | None:
        value = self.data.get("iteration", 1 if self.format == "tenpoint" else None)
        return value if is_int(value) else None

    @functools.cached_property
    def scored(self) -> list[ScoredDimension]:
        # Several rules and the arithmetic read the same dimensions: walk the object once.
        return _scored(self)

    @property
    def scale(self) -> str:
        if self.format == "tenpoint":
            return "tenpoint"
        return self.rubric.scale.kind if self.rubric else "integer"


def detect_format(data: dict[str, Any]) -> ScorecardFormat | None:
    """Return the format a scorecard object is written in, or None when neither fits.

    Args:
        data: A scorecard object.

    Returns:
        "tenpoint" (task_id or domains), "referee" (contract_ref or dimensions), or None.
    """
    if "task_id" in data or "domains" in data:
        return "tenpoint"
    if "contract_ref" in data or "dimensions" in data:
        return "referee"
    return None


def build_card(
    data: dict[str, Any], fmt: ScorecardFormat, contract: Contract | None, rubrics: RubricSet
) -> Card:
    """Resolve a scorecard's rubric and evaluator, noting what cannot be resolved.

    Args:
        data: The scorecard object.
        fmt: Its format.
        contract: The contract it is validated against, if any.
        rubrics: The rubrics available.

    Returns:
        The card, with rubric_unknown / evaluator_missing problems when those cannot be found.
    """
    problems: list[Problem] = []
    rubric = _rubric(data, contract, rubrics, problems) if fmt == "referee" else None
    evaluator = _evaluator(data, fmt, contract, problems)
    return Card(
        data=data,
        format=fmt,
        contract=contract,
        rubric=rubric,
        evaluator=evaluator,
        problems=problems,
        run_rubric=rubrics.get(contract.rubric_ref) if contract is not None else rubric,
    )


def _rubric(
    data: dict[str, Any], contract: Contract | None, rubrics: RubricSet, problems: list[Problem]
) -> Rubric | None:
    known = ", ".join(rubrics.names())
    if contract is not None:
        found = rubrics.get(contract.rubric_ref)
        if found is None:
            problems.append(
                Problem(
                    path="/rubric",
                    code="rubric_unknown",
                    message=(
                        f"the contract's rubric {contract.rubric_ref} is not available here (known:"
                        f" {known}); commit it to .referee/rubrics/ at the contract's base"
                    ),
                )
            )
        return found
    ref = text(obj(data.get("rubric")).get("ref"))
    if ref is not None:
        found = rubrics.get(ref)
        if found is None:
            problems.append(
                Problem(
                    path="/rubric/ref",
                    code="rubric_unknown",
                    message=f"no rubric named {ref!r} (known: {known}); use one of them",
                )
            )
        return found
    return _rubric_by_keys(data, rubrics, problems)


def _rubric_by_keys(
    data: dict[str, Any], rubrics: RubricSet, problems: list[Problem]
) -> Rubric | None:
    keys = set(obj(data.get("dimensions")))
    found = next(
        (rubrics.rubrics[n] for n in rubrics.names() if set(rubrics.rubrics[n].weights()) == keys),
        None,
    )
    if found is None:
        problems.append(
            Problem(
                path="/rubric",
                code="rubric_unknown",
                message=(
                    "the rubric cannot be determined: name it in rubric.ref (e.g. FEATURE_BACKEND)"
                    " or validate against the contract"
                ),
            )
        )
    return found


def _evaluator(
    data: dict[str, Any], fmt: ScorecardFormat, contract: Contract | None, problems: list[Problem]
) -> str | None:
    stated = text(data.get("evaluator"))
    if stated is not None or fmt == "referee" or contract is None:
        return stated
    if len(contract.evaluators) == 1:
        return contract.evaluators[0]
    provider = text(data.get("provider"))
    if provider in contract.evaluators:
        return provider
    owners = _owners(data, contract)
    if len(owners) == 1:
        return owners[0]
    why = (
        f"its criteria belong to {' and '.join(owners)}"
        if owners
        else "its criteria name no criterion of the contract"
    )
    problems.append(
        Problem(
            path="/evaluator",
            code="evaluator_missing",
            message=(
                f"the contract has several evaluators ({', '.join(contract.evaluators)}) and {why};"
                ' add "evaluator" naming yours'
            ),
        )
    )
    return None


def _owners(data: dict[str, Any], contract: Contract) -> list[str]:
    """The evaluators owning the criteria a card scores, in the contract's order."""
    ids = {text(c.get("id")) for _, c in entries(data.get("criteria"))}
    owning = {c.evaluator for c in contract.all_criteria() if c.id in ids}
    return [e for e in contract.evaluators if e in owning]


# Reading the raw object


def obj(value: Any) -> dict[str, Any]:
    """Return the value when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def entries(value: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (index, item) for the object items of a JSON array (nothing when it is not one)."""
    for i, item in enumerate(value if isinstance(value, list) else []):
        if isinstance(item, dict):
            yield i, item


def text(value: Any) -> str | None:
    """Return the value when it is a string, else None."""
    return value if isinstance(value, str) else None


def blank(value: Any) -> bool:
    """Return True for a missing, non-string or whitespace-only text."""
    return not isinstance(value, str) or not value.strip()


def is_int(value: Any) -> TypeGuard[int]:
    """True for a JSON integer (a bool is not one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> TypeGuard[int | float]:
    """True for a finite JSON number (a bool is not one)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def path(*parts: Any) -> str:
    return pointer(*parts)


def scored_dimensions(card: Card) -> list[ScoredDimension]:
    """Return the dimensions that carry a numeric score, in the order written.

    Args:
        card: The scorecard.

    Returns:
        Canonical dimensions keyed by their key; tenpoint ones by "domain.dimension", with the
        threshold that applies (the contract's when it sets one, else the stated one).
    """
    return card.scored


def _scored(card: Card) -> list[ScoredDimension]:
    if card.format == "referee":
        return [
            ScoredDimension(key, ("dimensions", key), float(d["score"]), None)
            for key, d in obj(card.data.get("dimensions")).items()
            if isinstance(d, dict) and is_number(d.get("score"))
        ]
    return list(_tenpoint_dimensions(card))


def _tenpoint_dimensions(card: Card) -> Iterator[ScoredDimension]:
    contract_thresholds = card.contract.thresholds if card.contract else {}
    for domain, body in obj(card.data.get("domains")).items():
        for name, dim in obj(obj(body).get("dimensions")).items():
            if not isinstance(dim, dict) or not is_number(dim.get("score")):
                continue
            stated = dim.get("threshold") if is_number(dim.get("threshold")) else None
            threshold = contract_thresholds.get(domain, {}).get(name, stated)
            yield ScoredDimension(
                f"{domain}.{name}",
                ("domains", domain, "dimensions", name),
                float(dim["score"]),
                threshold,
            )


_SEPARATORS = re.compile(r"[\s\-.]+")


def dimension_key(name: str) -> str:
    """A dimension's name as referee compares it: `Security`, ` security `, `se\u200bcurity`,
    `ｓｅｃｕｒｉｔｙ` and `code-quality` are `security` and `code_quality` (compatibility
    forms folded, invisible format characters dropped, case folded, separators as `_`)."""
    folded = unicodedata.normalize("NFKC", name)
    visible = "".join(c for c in folded if unicodedata.category(c) != "Cf")
    return _SEPARATORS.sub("_", visible.casefold()).strip("_")


def tenpoint_place(card: Card, score: float) -> float | None:
    """Where a 1–10 score of a dimension named as one of the run rubric's lies on that rubric's
    scale (1 is its minimum, 10 its maximum), or None without a rubric."""
    rubric = card.run_rubric
    if rubric is None:
        return None
    low, high = rubric.scale.min, rubric.scale.max
    return low + (score - 1) / 9 * (high - low)


def rubric_dimensions(card: Card) -> dict[str, str]:
    """The run rubric's dimension keys by their compared form."""
    rubric = card.run_rubric
    return {dimension_key(d.key): d.key for d in rubric.dimensions} if rubric else {}


def below_threshold(card: Card, dim: ScoredDimension) -> bool:
    """Return True when a dimension is weak enough to need guidance.

    0–3 scales: below 2; unit scales: below 0.6; tenpoint: below its threshold.
    """
    if card.format == "tenpoint":
        return dim.threshold is not None and dim.score < dim.threshold
    return dim.score < (0.6 if card.scale == "unit" else 2)


def failed_criteria(card: Card) -> list[str]:
    """Return the ids of criteria marked pass: false."""
    return [
        str(c.get("id")) for _, c in entries(card.data.get("criteria")) if c.get("pass") is False
    ]


def detected_antipatterns(card: Card) -> list[str]:
    """Return the ids of detected antipatterns (a bare string entry still says one was detected)."""
    found = card.data.get("antipatterns_detected")
    return (
        [str(a.get("id")) if isinstance(a, dict) else str(a) for a in found if a]
        if isinstance(found, list)
        else []
    )


def spec_defect(card: Card) -> bool:
    """Return True when the scorecard flags a spec defect."""
    return obj(card.data.get("spec_defect")).get("detected") is True
