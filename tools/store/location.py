"""Where the store lives: `.referee/` at the repository root, or REFEREE_HOME."""

from __future__ import annotations

from pathlib import Path

from referee.tools.repo.info import repository_root


def store_home(root: Path, referee_home: str | None) -> Path:
    """REFEREE_HOME when set, else `<repository root>/.referee` (or `<root>/.referee` outside
    git)."""
    if referee_home:
        return Path(referee_home).expanduser().resolve()
    return (repository_root(root) or root.resolve()) / ".referee"
