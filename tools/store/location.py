"""Where the store lives (`.referee/` at the repository root, or REFEREE_HOME), and where its
hold-out vault lives (outside the repository)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from referee.tools.repo.info import repository_root
from referee.tools.store.keys import default_key_file

STORE_URL_ENV = "REFEREE_STORE_URL"
"""The variable naming a team store (postgresql://…); unset, the embedded SQLite serves."""


def store_home(root: Path, referee_home: str | None) -> Path:
    """REFEREE_HOME when set, else `<repository root>/.referee` (or `<root>/.referee` outside
    git)."""
    if referee_home:
        return Path(referee_home).expanduser().resolve()
    return (repository_root(root) or root.resolve()) / ".referee"


def holdout_base(env: Mapping[str, str]) -> Path:
    """Where hold-out vaults live: `$REFEREE_HOLDOUTS`, else beside the signing key (outside every
    repository; the sandbox masks it)."""
    named = env.get("REFEREE_HOLDOUTS")
    return (
        Path(named).expanduser().resolve() if named else default_key_file(env).parent / "holdouts"
    )


def vault_root(env: Mapping[str, str], home: Path) -> Path:
    """The hold-out vault of the store at `home` (one per store, so repositories never mix)."""
    return holdout_base(env) / hashlib.sha256(str(home.resolve()).encode("utf-8")).hexdigest()[:16]
