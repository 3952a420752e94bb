"""Contracts as files: YAML (or JSON) in, YAML out, so CI can work from a committed contract."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from referee.tools.create_contract.seal import SEAL_KEY, seal_problems
from referee.tools.errors import InvalidInput, Problem, RefereeError, problems_from_validation
from referee.tools.models.contract import Contract, ContractConfig

_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present

_EXPORTED_MARKERS = ("id", "acceptance_criteria", "rubric_version")
CONFIG_KEY = "config"
"""An exported file carries the contract's fixed configuration (rubric, allowlist) under this key,
so CI judges with what the orchestrator stored, not with what the pull request's tree holds."""


class ContractFileError(RefereeError):
    """A contract file that cannot be read or parsed at all."""


@dataclass(frozen=True)
class ContractFile:
    """Either a create_contract request or a complete (exported) contract."""

    request: dict[str, Any] | None = None
    contract: Contract | None = None
    config: ContractConfig | None = None


def read_contract_file(path: Path, *, key: bytes | None) -> ContractFile:
    """Parse a contract file; an exported contract (it has an id) is returned whole.

    Args:
        path: The file.
        key: referee's signing key, which must verify an exported file's seal (see `seal`);
            None only where the file comes from a place the caller trusts for itself.

    Raises:
        ContractFileError: unreadable file, YAML syntax error, not a mapping.
        InvalidInput: an exported contract that does not validate (every problem listed).
    """
    data = _load_mapping(path)
    if all(key in data for key in _EXPORTED_MARKERS):
        contract, config = parse_exported(data, key=key)
        return ContractFile(contract=contract, config=config)
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


def contract_from_text(text: str, name: str) -> tuple[Contract, ContractConfig | None]:
    """An exported contract and its configuration from its text (a file read from git).

    Its seal is not checked: the gate reads the text from the protected base branch, which is
    what it trusts, and runs with a key of its own that no exported file was sealed with.

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
    return parse_exported(data)


def parse_contract(data: dict[str, Any]) -> Contract:
    """Validate a complete contract document (evaluator view)."""
    return parse_exported(data)[0]


def parse_exported(
    data: dict[str, Any], *, key: bytes | None = None
) -> tuple[Contract, ContractConfig | None]:
    """Validate an exported contract and the configuration it carries (refused when its digest
    is not the contract's, or, given referee's key, when the file's seal does not verify)."""
    data = dict(data)
    raw_config = data.pop(CONFIG_KEY, None)
    seal = data.pop(SEAL_KEY, None)
    try:
        contract = Contract.model_validate(data)
        config = ContractConfig.model_validate(raw_config) if raw_config is not None else None
    except ValidationError as exc:
        raise InvalidInput(problems_from_validation(exc)) from exc
    from referee.tools.create_contract.config import config_digest  # config imports the repo

    if config is not None and config_digest(config) != contract.config_digest:
        # An exported file is plain text anyone can edit: a configuration that is not the one
        # the contract was created with is refused, never used in its place.
        message = (
            "the configuration in the file does not match the contract's config_digest: it was"
            " edited after export; export the contract again"
        )
        raise InvalidInput(
            [Problem(path="/config", code="config_digest_mismatch", message=message)]
        )
    if key is not None and (problems := seal_problems(key, seal, contract, config)):
        raise InvalidInput(problems)
    return contract, config


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
    """A complete contract from a file, without its configuration and unsealed (the gate's
    hold-out bundle, which it checks against the base branch's contract)."""
    return load_exported_file(path, key=None)[0]


def load_exported_file(path: Path, *, key: bytes | None) -> tuple[Contract, ContractConfig | None]:
    """A complete contract and the configuration exported with it, from a file (its seal
    verified with `key`; see `read_contract_file`)."""
    parsed = read_contract_file(path, key=key)
    if parsed.contract is None:
        raise ContractFileError(
            f"{path} is a contract request, not an exported contract; export one with `referee"
            " contract export ID`"
        )
    return parsed.contract, parsed.config


def to_yaml(doc: dict[str, Any]) -> str:
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
