"""Contracts as files: YAML (or JSON) in, YAML out, so CI can work from a committed contract."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from referee.tools.errors import InvalidInput, RefereeError, problems_from_validation
from referee.tools.models.contract import Contract

_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present

_EXPORTED_MARKERS = ("id", "acceptance_criteria", "rubric_version")


class ContractFileError(RefereeError):
    """A contract file that cannot be read or parsed at all."""


@dataclass(frozen=True)
class ContractFile:
    """Either a create_contract request or a complete (exported) contract."""

    request: dict[str, Any] | None = None
    contract: Contract | None = None


def read_contract_file(path: Path) -> ContractFile:
    """Parse a contract file; an exported contract (it has an id) is returned whole.

    Raises:
        ContractFileError: unreadable file, YAML syntax error, not a mapping.
        InvalidInput: an exported contract that does not validate (every problem listed).
    """
    data = _load_mapping(path)
    if all(key in data for key in _EXPORTED_MARKERS):
        return ContractFile(contract=parse_contract(data))
    return ContractFile(request=flatten_request(data))


def _load_mapping(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ContractFileError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return _mapping(text, str(path), as_json=path.suffix == ".json")


def _mapping(text: str, name: str, *, as_json: bool) -> dict[str, Any]:
    try:
        data = json.loads(text) if as_json else yaml.load(text, Loader=_SAFE_LOADER)
    except (yaml.YAMLError, json.JSONDecodeError) as exc:
        kind = "JSON" if as_json else "YAML"
        raise ContractFileError(f"{name} is not valid {kind}: {exc}") from exc
    if not isinstance(data, dict):
        raise ContractFileError(
            f"{name} must hold a mapping of contract fields, not {type(data).__name__}"
        )
    return data


def contract_from_text(text: str, name: str) -> Contract:
    """An exported contract from its text (a file read from git, not from disk).

    Raises:
        ContractFileError: not YAML/JSON, not a mapping, or a request rather than an exported
            contract.
        InvalidInput: an exported contract that does not validate (every problem listed).
    """
    data = _mapping(text, name, as_json=name.endswith(".json"))
    if not all(key in data for key in _EXPORTED_MARKERS):
        raise ContractFileError(
            f"{name} is a contract request, not an exported contract; export one with `referee"
            " contract export ID`"
        )
    return parse_contract(data)


def parse_contract(data: dict[str, Any]) -> Contract:
    """Validate a complete contract document (evaluator view)."""
    try:
        return Contract.model_validate(data)
    except ValidationError as exc:
        raise InvalidInput(problems_from_validation(exc)) from exc


def flatten_request(data: dict[str, Any]) -> dict[str, Any]:
    """Accept the contract's nested layout (scope, acceptance_criteria) as create_contract
    fields."""
    flat = dict(data)
    scope = flat.pop("scope", None)
    if isinstance(scope, dict):
        flat.update({k: v for k, v in scope.items() if k in ("in_scope", "out_of_scope")})
    criteria = flat.pop("acceptance_criteria", None)
    if isinstance(criteria, dict):
        flat.update({k: v for k, v in criteria.items() if k in ("functional", "quality")})
    return flat


def load_contract_file(path: Path) -> Contract:
    """A complete contract from a file (for validation in CI without a database)."""
    parsed = read_contract_file(path)
    if parsed.contract is None:
        raise ContractFileError(
            f"{path} is a contract request, not an exported contract; export one with `referee"
            " contract export ID`"
        )
    return parsed.contract


def to_yaml(doc: dict[str, Any]) -> str:
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
