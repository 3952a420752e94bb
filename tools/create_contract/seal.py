"""The seal of an exported contract: an HMAC with referee's key over the contract and its
configuration.

`config_digest` is a plain SHA-256: whoever edits the rubric in an exported file can compute the
digest of the edited one too, so the digest tells an accident from the configuration, never a
forgery from it. The seal is keyed with the signing key that already seals the store's rows
(store/keys.py, outside the repository and masked from the sandbox), so only a referee holding
that key can write a file that verifies. What a file alone proves is therefore bounded by who
holds the key: a file read with another key (another machine, a CI without the same REFEREE_KEY)
cannot be told from an edited one, and is refused as well.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from referee.tools.errors import Problem
from referee.tools.models.contract import Contract, ContractConfig

__all__ = ["SEAL_KEY", "contract_seal", "seal_problems"]

SEAL_KEY = "seal"
"""The field of an exported file that holds its seal."""

_PURPOSE = "referee exported contract v1"


def contract_seal(key: bytes, contract: Contract, config: ContractConfig | None) -> str:
    """The HMAC-SHA256 of a contract and its configuration as parsed (canonical JSON), so a file's
    YAML layout, comments or key order do not matter, and every field its models keep does."""
    body: list[Any] = [
        _PURPOSE,
        contract.model_dump(mode="json", by_alias=True),
        config.model_dump(mode="json", by_alias=True) if config is not None else None,
    ]
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def seal_problems(
    key: bytes, seal: object, contract: Contract, config: ContractConfig | None
) -> list[Problem]:
    """Why a file's contract and configuration cannot be taken as referee exported them: a seal
    that does not verify, or a configuration without one (none for a hand-written contract)."""
    if seal is None:
        if config is None:
            return []  # a contract written by hand claims no configuration fixed by referee
        message = (
            "the file carries a configuration (config) but no seal: nothing shows referee"
            " exported it; export the contract again with `referee contract export`"
        )
        return [Problem(path=f"/{SEAL_KEY}", code="contract_unsealed", message=message)]
    expected = contract_seal(key, contract, config)
    if isinstance(seal, str) and hmac.compare_digest(seal, expected):
        return []
    message = (
        "the file's seal does not verify with this referee's key: the contract or its"
        " configuration was edited after export, or another key sealed it (set REFEREE_KEY to"
        " the exporting key, or export the contract again here)"
    )
    return [Problem(path=f"/{SEAL_KEY}", code="contract_seal_mismatch", message=message)]
