"""One Settings object, built once at the edge (CLI flags, environment) and passed down."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from referee.tools.repo.info import repository_root
from referee.tools.store.keys import KeySource
from referee.tools.store.location import STORE_URL_ENV, holdout_base, store_home, vault_root

DEFAULT_MEMORY_MB = 2048
"""The memory a check's processes may hold together unless the check or the server says
otherwise: room for a JVM or Node test run, not for a test that hoards the machine."""


@dataclass(frozen=True)
class Settings:
    """Everything referee's cores need to know about where and how they run."""

    roots: tuple[Path, ...]
    home: Path
    allow_hosts: tuple[str, ...] = ()
    result_budget: int = 16 * 1024
    report_limit: int = 64 * 1024 * 1024
    """Largest test report (bytes, all files of one run) referee reads; above it: unscored."""
    memory_mb: int | None = DEFAULT_MEMORY_MB
    """The memory limit (MiB) of a check that sets none (`memory_mb`); None: no limit."""
    env: Mapping[str, str] = field(default_factory=dict)
    key: KeySource | None = None
    holdout_dir: Path | None = None
    """A folder of hold-out files given by the caller (CI's `--holdout-dir`), used instead of
    the vault: its files, at their tree paths, serve every hold-out criterion."""
    trusted_environment: bool = False
    """The installed environments in the tree are the runner's own (CI installed them after the
    checkout), so they are not compared with the contract's creation."""
    pace_canaries: bool = True
    """A served canary answers after as long as its run took, with the same progress steps: a
    judge cannot tell it by an instant answer (tests switch it off)."""
    min_canary_recall: float = 0.8
    """The canary recall below which calibration_report flags a judge
    (REFEREE_MIN_CANARY_RECALL)."""
    store_url: str | None = None
    """A team store (`postgresql://…`, `--store` or REFEREE_STORE_URL) instead of the embedded
    SQLite in `home`. A secret: it never reaches a check's environment (sandbox/profile.py,
    process/run.py), a report or a log (messages name `Store.where`, without the password)."""

    @property
    def holdout_base(self) -> Path:
        """Where hold-out vaults live: `$REFEREE_HOLDOUTS`, else beside the signing key."""
        return holdout_base(self.env)

    @property
    def vault_root(self) -> Path:
        """This store's hold-out vault (one per store, so two repositories never mix)."""
        return vault_root(self.env, self.home)

    @property
    def key_source(self) -> KeySource:
        """Where the signing key comes from (REFEREE_KEY, else the user's data directory)."""
        return self.key or KeySource.from_env(self.env)

    @property
    def key_file(self) -> Path:
        return self.key_source.file

    @property
    def repo(self) -> Path:
        """The default repository: the git work tree of the first root (or the root itself)."""
        return repository_root(self.roots[0]) or self.roots[0]

    @classmethod
    def build(
        cls,
        roots: Sequence[str | Path] = (),
        *,
        home: str | Path | None = None,
        allow_hosts: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        memory_mb: int | None = DEFAULT_MEMORY_MB,
        store: str | None = None,
    ) -> Settings:
        """Settings from flags and an environment (REFEREE_HOME, REFEREE_STORE_URL; the rest is
        passed on as `env`)."""
        env = dict(os.environ if env is None else env)
        resolved = tuple(Path(r).expanduser().resolve() for r in roots) or (
            (cwd or Path.cwd()).resolve(),
        )
        location = str(home) if home else env.get("REFEREE_HOME")
        return cls(
            roots=resolved,
            home=store_home(resolved[0], location),
            allow_hosts=tuple(allow_hosts),
            memory_mb=memory_mb or None,
            env=env,
            key=KeySource.from_env(env),
            min_canary_recall=_fraction(env.get("REFEREE_MIN_CANARY_RECALL"), 0.8),
            store_url=store or env.get(STORE_URL_ENV) or None,
        )


def _fraction(text: str | None, default: float) -> float:
    """A share between 0 and 1 from the environment; anything else leaves the default."""
    try:
        value = float(text) if text else default
    except ValueError:
        return default
    return value if 0.0 <= value <= 1.0 else default
