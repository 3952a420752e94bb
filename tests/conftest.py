"""Shared fixtures: a clean environment, real git repositories in tmp_path, settings."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from gitrepo import make_repo
from postgres import Cluster, postgres_bin, start_cluster
from projects import SAMPLE_ENV

from referee.tools.settings import Settings
from referee.tools.store import Store

# CI sets this: a test that would skip (no Chromium, no node, no go …) fails instead, so no gap
# hides behind a missing tool. Read once, before `clean_environ` clears REFEREE_* for each test.
NO_SKIP = os.environ.get("REFEREE_NO_SKIP") == "1"
# The machine's temp folder, before each test gets its own: the PostgreSQL cluster lives there,
# in a folder its server user can enter (pytest's own temp folders are the tester's only).
SESSION_TMP = tempfile.gettempdir()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    if NO_SKIP and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, where nothing may be skipped: {report.longrepr}"


@pytest.fixture(scope="session")
def data_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The user data folder of the test session: the signing key lives here, not in ~."""
    return tmp_path_factory.mktemp("data-home")


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch: pytest.MonkeyPatch, data_home: Path) -> None:
    for name in list(os.environ):
        if name.startswith("REFEREE_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_DATA_HOME", str(data_home))
    # The sample projects' suites run on this interpreter, whose test extras register pytest
    # plugins; hypothesis's imports all of hypothesis at every session's end (about a second per
    # child pytest, several per evaluation), and no sample project uses them.
    for name, value in SAMPLE_ENV.items():
        monkeypatch.setenv(name, value)


@pytest.fixture(autouse=True)
def own_tmpdir(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every test has a temp folder of its own: nothing a test makes or looks for in "the" temp
    folder meets another test's, or another referee process's on the same machine."""
    folder = tmp_path_factory.mktemp("tmpdir")
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    return folder


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    """A throwaway PostgreSQL cluster for the session (tests/postgres.py)."""
    if postgres_bin() is None:
        pytest.skip("PostgreSQL is not installed: scripts/setup.sh with EXTRAS=[test] installs it")
    cluster = start_cluster(Path(tempfile.mkdtemp(prefix="referee-pg-", dir=SESSION_TMP)))
    yield cluster
    cluster.stop()


@pytest.fixture
def postgres_url(postgres: Cluster) -> str:
    """A fresh database of the session's cluster."""
    return postgres.database()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest) -> str | None:
    """The store's database, once per backend: None (the embedded SQLite) or a PostgreSQL URL."""
    if request.param == "sqlite":
        return None
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


@pytest.fixture
def settings(repo: Path) -> Settings:
    return Settings.build([repo], env=dict(SAMPLE_ENV))


@pytest.fixture
def store(settings: Settings) -> Store:
    """The store `settings` names (a module with another layout defines its own `store`)."""
    return Store(settings.home)
