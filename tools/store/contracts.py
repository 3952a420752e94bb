"""Stored contracts: insert with a collision suffix, fetch, list."""

from __future__ import annotations

import json

from sqlalchemy.exc import SQLAlchemyError

from referee.tools.errors import NotFound
from referee.tools.models.contract import Contract, ContractConfig
from referee.tools.store.clones import record_roots, roots_of
from referee.tools.store.db import Store, Tx


def insert_contract(
    store: Store, contract: Contract, config: ContractConfig | None = None
) -> Contract:
    """Store a new contract (and the configuration it is judged with); an id already taken gets
    -2, -3 … appended."""
    base = contract.id
    roots = roots_of(contract)
    with store.transaction() as conn:
        taken = {
            row[0]
            for row in conn.execute(
                "SELECT id FROM contracts WHERE id = ? OR id LIKE ?", (base, base + "-%")
            )
        }
        ident, n = base, 1
        while ident in taken:
            n += 1
            ident = f"{base}-{n}"
        stored = contract.model_copy(update={"id": ident})
        store.insert(conn, "contracts", _columns(stored))
        _insert_config(store, conn, stored, config)
        record_roots(store, conn, ident, roots)
    return stored


def contract_ids(store: Store) -> list[str]:
    return [row["id"] for row in store.query("SELECT id FROM contracts ORDER BY created_at, id")]


def load_contract(store: Store, contract_id: str, path: str = "/contract_id") -> Contract:
    """Fetch a stored contract or raise NotFound naming the known ids' whereabouts."""
    row = store.query_one("SELECT * FROM contracts WHERE id = ?", (contract_id,))
    if row is None:
        raise NotFound(
            "contract", contract_id, path=path, hint="create it with create_contract first"
        )
    store.verified("contracts", row, f"stored contract {contract_id}")
    return Contract.model_validate(json.loads(row["body"]))


def contract_exists(store: Store, contract_id: str) -> bool:
    return store.query_one("SELECT 1 FROM contracts WHERE id = ?", (contract_id,)) is not None


def load_config(store: Store, contract: Contract) -> ContractConfig | None:
    """The configuration stored with a contract, when its row verifies and its digest is the
    contract's (None for a contract stored without one)."""
    row = store.query_one("SELECT * FROM contract_config WHERE contract_id = ?", (contract.id,))
    if row is None or contract.config_digest is None:
        return None
    store.verified("contract_config", row, f"the configuration of contract {contract.id}")
    if row["digest"] != contract.config_digest:
        return None
    return ContractConfig.model_validate(json.loads(row["body"]))


def replace_contract(
    store: Store, contract: Contract, config: ContractConfig | None = None
) -> None:
    """Overwrite a stored contract (import of an exported YAML with the same id)."""
    roots = roots_of(contract)
    try:
        with store.transaction() as conn:
            conn.execute("DELETE FROM contracts WHERE id = ?", (contract.id,))
            conn.execute("DELETE FROM contract_config WHERE contract_id = ?", (contract.id,))
            store.insert(conn, "contracts", _columns(contract))
            _insert_config(store, conn, contract, config)
            record_roots(store, conn, contract.id, roots)
    except SQLAlchemyError as exc:  # pragma: no cover - disk full or locked for too long
        raise RuntimeError(f"could not store contract {contract.id}: {exc}") from exc


def _insert_config(
    store: Store, conn: Tx, contract: Contract, config: ContractConfig | None
) -> None:
    if config is None or contract.config_digest is None:
        return
    body = config.model_dump_json(by_alias=True)
    row = {"contract_id": contract.id, "digest": contract.config_digest, "body": body}
    store.insert(conn, "contract_config", row)


def _columns(contract: Contract) -> dict[str, str]:
    return {
        "id": contract.id,
        "created_at": contract.created_at,
        "goal": contract.goal,
        "body": contract.model_dump_json(by_alias=True),
    }
