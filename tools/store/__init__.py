"""referee's embedded storage (SQLite in WAL mode plus an artifacts folder)."""

from .contracts import contract_exists, contract_ids, insert_contract, load_contract, replace_contract
from .db import Store
from .location import repository_root, store_home
from .runs import StoredRun, latest_iteration, next_iteration, load_evidence, load_run, runs_for, save_run
from .scorecards import StoredScorecard, load_scorecard, save_scorecard, scorecards_for

__all__ = [
    "Store", "contract_exists", "contract_ids", "insert_contract", "load_contract", "replace_contract",
    "repository_root", "store_home", "StoredRun", "latest_iteration", "next_iteration", "load_evidence", "load_run", "runs_for",
    "save_run", "StoredScorecard", "load_scorecard", "save_scorecard", "scorecards_for",
]
