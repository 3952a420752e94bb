from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

from referee.tools.settings import Settings
from referee.tools.store import Store, store_home


def test_store_lives_at_the_repository_root_even_from_a_subfolder(repo: Path) -> None:
    sub = repo / "pkg" / "deep"
    sub.mkdir(parents=True)
    assert store_home(sub, None) == repo.resolve() / ".referee"


def test_referee_home_overrides_the_location(repo: Path, tmp_path: Path) -> None:
    assert (
        Settings.build([repo], env={"REFEREE_HOME": str(tmp_path / "elsewhere")}).home
        == tmp_path / "elsewhere"
    )


def test_store_creates_its_own_gitignore_so_git_sees_nothing(repo: Path) -> None:
    Store(repo / ".referee").close()
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True
    ).stdout
    assert status == ""


def test_database_uses_write_ahead_logging(repo: Path) -> None:
    Store(repo / ".referee").close()
    conn = sqlite3.connect(repo / ".referee" / "referee.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
