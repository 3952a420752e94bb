"""referee's storage: the embedded SQLite (WAL) or a team's PostgreSQL, plus an artifacts folder.

Its names load on first use: the CLI's commands that open no database (`referee validate CARD
--contract FILE`, `--version`) do not pay for SQLAlchemy and the drivers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.tools.store.backend import shown_url, url_secrets
    from referee.tools.store.clones import clone_of
    from referee.tools.store.contracts import (
        contract_exists,
        contract_ids,
        insert_contract,
        load_config,
        load_contract,
        replace_contract,
    )
    from referee.tools.store.db import Store
    from referee.tools.store.integrity import StoreKeyMismatch, StoreTampered, StoreUnavailable
    from referee.tools.store.keys import KeySource
    from referee.tools.store.location import store_home
    from referee.tools.store.migrations import MIGRATIONS, SCHEMA_VERSION
    from referee.tools.store.runs import (
        StoredRun,
        claim_iteration,
        claimed_iteration,
        evaluated_trees,
        latest_iteration,
        load_evidence,
        load_run,
        release_claim,
        run_index,
        runs_for,
        save_run,
        tree_iteration,
    )
    from referee.tools.store.scorecards import (
        StoredScorecard,
        load_scorecard,
        save_scorecard,
        scorecards_for,
    )
    from referee.tools.store.transfer import export_store, import_store

_EXPORTS = {
    "shown_url": ".backend",
    "url_secrets": ".backend",
    "clone_of": ".clones",
    "contract_exists": ".contracts",
    "contract_ids": ".contracts",
    "insert_contract": ".contracts",
    "load_config": ".contracts",
    "load_contract": ".contracts",
    "replace_contract": ".contracts",
    "Store": ".db",
    "StoreKeyMismatch": ".integrity",
    "StoreTampered": ".integrity",
    "StoreUnavailable": ".integrity",
    "KeySource": ".keys",
    "store_home": ".location",
    "MIGRATIONS": ".migrations",
    "SCHEMA_VERSION": ".migrations",
    "StoredRun": ".runs",
    "claim_iteration": ".runs",
    "claimed_iteration": ".runs",
    "evaluated_trees": ".runs",
    "latest_iteration": ".runs",
    "load_evidence": ".runs",
    "load_run": ".runs",
    "release_claim": ".runs",
    "run_index": ".runs",
    "runs_for": ".runs",
    "save_run": ".runs",
    "tree_iteration": ".runs",
    "StoredScorecard": ".scorecards",
    "load_scorecard": ".scorecards",
    "save_scorecard": ".scorecards",
    "scorecards_for": ".scorecards",
    "export_store": ".transfer",
    "import_store": ".transfer",
}
__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "KeySource",
    "Store",
    "StoreKeyMismatch",
    "StoreTampered",
    "StoreUnavailable",
    "StoredRun",
    "StoredScorecard",
    "claim_iteration",
    "claimed_iteration",
    "clone_of",
    "contract_exists",
    "contract_ids",
    "evaluated_trees",
    "export_store",
    "import_store",
    "insert_contract",
    "latest_iteration",
    "load_config",
    "load_contract",
    "load_evidence",
    "load_run",
    "load_scorecard",
    "release_claim",
    "replace_contract",
    "run_index",
    "runs_for",
    "save_run",
    "save_scorecard",
    "scorecards_for",
    "shown_url",
    "store_home",
    "tree_iteration",
    "url_secrets",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name], __name__), name)
