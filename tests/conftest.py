"""Shared fixtures: a clean environment, real git repositories in tmp_path, settings."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gitrepo import make_repo

from referee.tools.settings import Settings


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("REFEREE_"):
            monkeypatch.delenv(name)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


@pytest.fixture
def settings(repo: Path) -> Settings:
    return Settings.build([repo], env={})
