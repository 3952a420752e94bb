"""The signing key: kept outside the repository and outside `.referee/`, never reachable by the code
under test.

Where it lives: `$REFEREE_KEY` (the key itself, for CI secrets), else a file in the user's data
directory, `$XDG_DATA_HOME/referee/signing.key` (default `~/.local/share/referee/signing.key`),
created on first use with mode 0600 in a folder of mode 0700. The sandbox masks that folder, and
`.referee/` holds no key at all: a store copied or read by someone else carries nothing to forge
signatures with.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["KEY_ENV", "KeySource", "default_key_file"]

KEY_ENV = "REFEREE_KEY"
_MIN_KEY_CHARS = 16


def default_key_file(env: Mapping[str, str]) -> Path:
    """The user's key file for an environment (XDG data directory, else ~/.local/share).

    An environment that names neither (a partial one, as tests build) falls back to this
    process's own.
    """
    if "XDG_DATA_HOME" not in env and "HOME" not in env:
        env = os.environ
    data = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME") or Path.home()) / ".local/share")
    return Path(data).expanduser() / "referee" / "signing.key"


@dataclass(frozen=True)
class KeySource:
    """Where the key comes from: a value given in the environment, else a file."""

    file: Path
    value: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> KeySource:
        return cls(file=default_key_file(env), value=env.get(KEY_ENV) or None)

    def load(self) -> bytes:
        """The key's bytes; the file is created (owner-only) on first use.

        Raises:
            ValueError: REFEREE_KEY is set but too short to be a key.
        """
        if self.value is not None:
            if len(self.value) < _MIN_KEY_CHARS:
                raise ValueError(f"{KEY_ENV} must hold at least {_MIN_KEY_CHARS} characters")
            return self.value.encode("utf-8")
        if not self.file.exists():
            self.file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            try:
                fd = os.open(self.file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:  # another referee process created it meanwhile
                pass
            else:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(secrets.token_hex(32))
        return self.file.read_text(encoding="utf-8").strip().encode("ascii")
