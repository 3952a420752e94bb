"""Hold-out files: a hold-out criterion's tests, kept out of the generator's reach.

vault   where the files live (beside the signing key, masked in the sandbox, with a signed manifest;
        or a team store's database)
entry   add_holdout_files: copy files into the vault, warn where the generator could still read them
"""

from referee.tools.holdouts.entry import add_holdout_files, holdout_problems
from referee.tools.holdouts.vault import (
    BUNDLE_CONTRACT,
    BUNDLE_FILES,
    FolderSource,
    HoldoutFile,
    HoldoutSource,
    HoldoutVault,
    StoredVault,
    Vault,
    holdout_source,
    store_vault,
    tree_path,
)

__all__ = [
    "BUNDLE_CONTRACT",
    "BUNDLE_FILES",
    "FolderSource",
    "HoldoutFile",
    "HoldoutSource",
    "HoldoutVault",
    "StoredVault",
    "Vault",
    "add_holdout_files",
    "holdout_problems",
    "holdout_source",
    "store_vault",
    "tree_path",
]
