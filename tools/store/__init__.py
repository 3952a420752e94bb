"""referee's embedded storage (SQLite in WAL mode plus an artifacts folder)."""

from .contracts import contract_exists, contract_ids, insert_contract, load_contract, replace_contract
from .db import Store
from .location import repository_root, store_home

__all__ = [
    "Store", "contract_exists", "contract_ids", "insert_contract", "load_contract", "replace_contract",
    "repository_root", "store_home",
]
