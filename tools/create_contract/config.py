"""The configuration a contract is judged with, fixed when the orchestrator writes it.

A rubric and the secret check's allowlist are read from the repository once, at creation, stored
with the contract and named by a digest in it (`config_digest`). Every later step (evaluate,
validate, aggregate, report, the CI gate) takes them from there: the generator can rewrite
`.referee/rubrics/` or `.gitleaks.toml` in the tree it hands in, and that changes nothing.

At creation they are read from the contract's base commit (git's objects), never from the
working tree: an untracked, ignored, staged or edited file there may be what the generator of an
earlier round left behind, and the orchestrator's configuration is what it committed. Only a
plain folder, which has no commit, is read from disk.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from referee.tools.models.contract import ConfigFile, Contract, ContractConfig
from referee.tools.models.rubric import Rubric
from referee.tools.repo import GitError, RepoInfo, blobs_at
from referee.tools.rubrics import RubricSet, builtin_rubrics, rubrics_at

if TYPE_CHECKING:
    from referee.tools.store import Store

__all__ = [
    "allowlist_at",
    "config_digest",
    "config_for",
    "contract_rubrics",
    "fixed_rubrics",
    "rubrics_at",
]

_ALLOWLIST_LIMIT = 256 * 1024


def config_for(
    rubric: Rubric, repo: RepoInfo | None, base: str | None, created: float | None = None
) -> ContractConfig:
    """The configuration of a contract being created: its rubric, the repository's allowlist file
    as the base commit holds it (a plain folder: as it is now), and the moment of creation."""
    allowlist = None
    if repo is not None:
        allowlist = (
            (allowlist_at(repo.root, base) if base else None)
            if repo.is_git
            else _allowlist_on_disk(repo.root)
        )
    return ContractConfig(rubric=rubric, allowlist=allowlist, created=created)


def allowlist_at(repo: Path, commit: str) -> ConfigFile | None:
    """The allowlist file committed at `commit` (the first of CONFIG_NAMES it holds)."""
    from referee.tools.static.allowlist import CONFIG_NAMES  # the secret engine loads lazily

    try:
        found = blobs_at(repo, commit, list(CONFIG_NAMES))
    except GitError:
        return None
    for name in CONFIG_NAMES:
        data = found.get(name)
        if data is None or len(data) > _ALLOWLIST_LIMIT:
            continue
        try:
            return ConfigFile(name=name, text=data.decode("utf-8"))
        except UnicodeDecodeError:
            continue
    return None


def config_digest(config: ContractConfig) -> str:
    """sha256 of the configuration's canonical JSON."""
    text = json.dumps(config.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def contract_rubrics(store: Store, contract: Contract) -> RubricSet:
    """The rubrics a contract is judged with, from the configuration stored with it."""
    from referee.tools.store import load_config  # the store's modules load when one is used

    return fixed_rubrics(contract, load_config(store, contract))


def fixed_rubrics(contract: Contract, config: ContractConfig | None) -> RubricSet:
    """The rubrics a stored contract is judged with: the built-ins, with the contract's own
    rubric as it was stored; without a stored configuration (a contract stored before referee
    kept one), a user rubric is read from the contract's base commit, never the working tree."""
    found = RubricSet(rubrics=dict(builtin_rubrics()))
    if config is not None and config_digest(config) == contract.config_digest:
        found.rubrics = {
            k: v for k, v in found.rubrics.items() if k.casefold() != _folded(contract)
        }
        found.rubrics[config.rubric.name] = config.rubric
        return found
    if found.get(contract.rubric_ref) is None and contract.repo and contract.base_commit:
        found.rubrics.update(rubrics_at(Path(contract.repo), contract.base_commit).rubrics)
    return found


def _folded(contract: Contract) -> str:
    return contract.rubric_ref.casefold()


def _allowlist_on_disk(root: Path) -> ConfigFile | None:
    from referee.tools.static.allowlist import CONFIG_NAMES  # the secret engine loads lazily

    for name in CONFIG_NAMES:
        path = root / name
        try:
            if path.is_symlink() or not path.is_file() or path.stat().st_size > _ALLOWLIST_LIMIT:
                continue
            return ConfigFile(name=name, text=path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    return None
