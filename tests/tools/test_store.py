from __future__ import annotations

import json
import sqlite3
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from postgres import Cluster, raw_sql
from runs import CORPUS

from referee.server.cli import main
from referee.tools.create_contract.files import load_contract_file
from referee.tools.models import Contract, EvidenceItem
from referee.tools.settings import Settings
from referee.tools.store import (
    Store,
    StoreKeyMismatch,
    StoreTampered,
    StoreUnavailable,
    export_store,
    import_store,
    insert_contract,
    load_contract,
    load_run,
    runs_for,
    save_run,
    save_scorecard,
    scorecards_for,
    store_home,
)
from referee.tools.store.aggregates import aggregates_for, save_aggregate
from referee.tools.store.db import SCHEMA_VERSION, Tx
from referee.tools.store.integrity import row_mac
from referee.tools.store.schema import AUTO_IDS


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


# --- both backends: the embedded SQLite and a team's PostgreSQL (the `store_url` fixture) -------


def sample_contract(repo: Path) -> Contract:
    return load_contract_file(CORPUS / "contract.yaml").model_copy(update={"repo": str(repo)})


def test_rows_round_trip_on_both_backends(repo: Path, store_url: str | None) -> None:
    store = Store(repo / ".referee", url=store_url)
    stored = insert_contract(store, sample_contract(repo))
    again = insert_contract(store, sample_contract(repo))
    assert again.id == f"{stored.id}-2"
    assert load_contract(store, stored.id).goal == stored.goal
    first, replaced = save_scorecard(store, **card_fields(store, 1))
    second, replaced = save_scorecard(store, **card_fields(store, 1))
    assert replaced and second > first
    [active] = scorecards_for(store, CID)
    assert active.id == second
    assert [c.superseded_by for c in scorecards_for(store, CID, history=True)] == [
        second,
        None,
    ]
    assert (
        save_aggregate(
            store,
            contract_id=CID,
            iteration=1,
            decision="REVISE",
            body={"a": "é"},
            created_at="2026-03-25T12:00:00Z",
        )
        > 0
    )
    assert [a.body for a in aggregates_for(store, CID)] == [{"a": "é"}]
    store.close()


CID = "SC-login-form-20260325"


def card_fields(store: Store, iteration: int) -> dict[str, object]:
    return {
        "contract_id": CID,
        "evaluator": "judge",
        "iteration": iteration,
        "format": "json",
        "body": {"verdict": "REVISE"},
        "computed": {"verdict": "REVISE"},
        "run_id": None,
        "stored_at": "2026-03-25T12:00:00Z",
    }


def test_a_row_edited_outside_referee_is_store_tampered_on_both_backends(
    repo: Path, store_url: str | None
) -> None:
    store = Store(repo / ".referee", url=store_url)
    insert_contract(store, sample_contract(repo))
    raw_sql(store.home, store_url, "UPDATE contracts SET body = replace(body, 'login', 'logout')")
    with pytest.raises(StoreTampered, match=f"stored contract {CID} does not verify"):
        load_contract(store, CID)
    store.close()


@pytest.mark.parametrize(
    "planted",
    [
        "CREATE VIEW everything AS SELECT * FROM runs",
        "CREATE TABLE extra (x TEXT)",
        "CREATE INDEX sneaky ON runs (tree)",
    ],
)
def test_an_object_referee_never_creates_is_refused_on_both_backends(
    repo: Path, store_url: str | None, planted: str
) -> None:
    Store(repo / ".referee", url=store_url).close()
    store = Store(repo / ".referee", url=store_url)
    raw_sql(store.home, store_url, planted)
    store.close()
    with pytest.raises(StoreTampered, match="holds objects referee never creates"):
        Store(repo / ".referee", url=store_url)


def test_a_trigger_planted_while_a_store_is_open_stops_the_next_write(
    repo: Path, store_url: str | None
) -> None:
    store = Store(repo / ".referee", url=store_url)
    if store_url is None:
        trigger = "CREATE TRIGGER evil AFTER INSERT ON scorecards BEGIN SELECT 1; END"
    else:
        raw_sql(
            store.home,
            store_url,
            "CREATE FUNCTION evil() RETURNS trigger LANGUAGE plpgsql AS"
            " $$ BEGIN RETURN NEW; END $$",
        )
        trigger = (
            "CREATE TRIGGER evil AFTER INSERT ON scorecards FOR EACH ROW EXECUTE FUNCTION evil()"
        )
    raw_sql(store.home, store_url, trigger)
    with pytest.raises(StoreTampered, match="trigger 'evil'"):
        save_scorecard(store, **card_fields(store, 1))
    store.close()


def test_a_store_opened_with_another_key_says_so_in_one_line(
    repo: Path, store_url: str | None
) -> None:
    Store(repo / ".referee", key=b"the team's key, shared", url=store_url).close()
    with pytest.raises(StoreKeyMismatch) as caught:
        Store(repo / ".referee", key=b"somebody else's key", url=store_url)
    assert caught.value.problems[0].code == "store_wrong_key"
    assert "\n" not in caught.value.summary and "REFEREE_KEY" in caught.value.summary
    Store(repo / ".referee", key=b"the team's key, shared", url=store_url).close()


def test_a_new_store_is_at_the_latest_schema_and_migrate_changes_nothing(
    repo: Path, store_url: str | None
) -> None:
    store = Store(repo / ".referee", url=store_url)
    assert store.schema_version() == SCHEMA_VERSION
    assert store.migrate() == []
    store.close()


_SCHEMA_2 = """
CREATE TABLE contracts (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, goal TEXT NOT NULL,
    body TEXT NOT NULL, mac TEXT);
CREATE TABLE contract_config (contract_id TEXT PRIMARY KEY, digest TEXT NOT NULL,
    body TEXT NOT NULL, mac TEXT);
CREATE TABLE runs (run_id TEXT PRIMARY KEY, contract_id TEXT NOT NULL, evaluator TEXT,
    iteration INTEGER NOT NULL, created_at TEXT NOT NULL, tree TEXT, commit_sha TEXT,
    body TEXT NOT NULL, signature TEXT NOT NULL, mac TEXT);
CREATE INDEX runs_by_contract ON runs (contract_id, iteration);
CREATE TABLE evidence (run_id TEXT NOT NULL, evidence_id TEXT NOT NULL, body TEXT NOT NULL,
    mac TEXT, PRIMARY KEY (run_id, evidence_id));
CREATE TABLE scorecards (id INTEGER PRIMARY KEY AUTOINCREMENT, contract_id TEXT NOT NULL,
    evaluator TEXT NOT NULL, iteration INTEGER NOT NULL, format TEXT NOT NULL,
    variant TEXT NOT NULL DEFAULT 'original', stored_at TEXT NOT NULL, run_id TEXT,
    body TEXT NOT NULL, computed TEXT NOT NULL, superseded_by INTEGER, mac TEXT);
CREATE INDEX scorecards_by_contract ON scorecards (contract_id, iteration, evaluator);
CREATE TABLE aggregates (id INTEGER PRIMARY KEY AUTOINCREMENT, contract_id TEXT NOT NULL,
    iteration INTEGER NOT NULL, decision TEXT NOT NULL, created_at TEXT NOT NULL,
    body TEXT NOT NULL, mac TEXT);
CREATE TABLE calibration (id INTEGER PRIMARY KEY AUTOINCREMENT, scorecard_id INTEGER NOT NULL,
    verdict TEXT NOT NULL, note TEXT NOT NULL, created_at TEXT NOT NULL, mac TEXT);
CREATE TABLE captures (run_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, cwd TEXT NOT NULL,
    started_at TEXT NOT NULL, last_at TEXT NOT NULL, items INTEGER NOT NULL DEFAULT 0, mac TEXT);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema_version', '2');
"""


def test_a_store_of_schema_2_migrates_and_its_rows_still_verify(repo: Path) -> None:
    home = repo / ".referee"
    home.mkdir()
    with sqlite3.connect(home / "referee.db") as conn:
        conn.executescript(_SCHEMA_2)
    key = b"a key of at least sixteen characters"
    # A row sealed as schema 2 sealed it: every column but the MAC, in the table's order.
    contract = sample_contract(repo)
    row = {
        "id": contract.id,
        "created_at": contract.created_at,
        "goal": contract.goal,
        "body": contract.model_dump_json(by_alias=True),
    }
    mac = row_mac(key, "contracts", list(row), row)
    with sqlite3.connect(home / "referee.db") as conn:
        conn.execute("INSERT INTO contracts VALUES (?, ?, ?, ?, ?)", (*row.values(), mac))
    store = Store(home, key=key)
    assert store.schema_version() == SCHEMA_VERSION
    assert load_contract(store, contract.id).goal == contract.goal
    store.close()


def test_a_lost_connection_mid_run_is_a_clear_error_and_stores_nothing(
    repo: Path, postgres: Cluster, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from runs import record_run

    from referee.tools.store import runs as runs_module

    store = Store(repo / ".referee", url=postgres_url)
    contract = insert_contract(store, sample_contract(repo))
    saved = runs_module.save_evidence

    def cut_then_save(store_: Store, conn: Tx, run_id: str, item: EvidenceItem) -> None:
        # The server ends this very connection between the run's row and its evidence.
        pid = conn.execute("SELECT pg_backend_pid() AS pid").fetchone()
        with postgres.admin() as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid["pid"],))  # type: ignore[index]
        saved(store_, conn, run_id, item)

    monkeypatch.setattr(runs_module, "save_evidence", cut_then_save)
    with pytest.raises(StoreUnavailable) as caught:
        record_run_with_evidence(store, contract)
    assert caught.value.problems[0].code == "store_unavailable"
    assert "nothing of this call was stored" in caught.value.summary
    monkeypatch.setattr(runs_module, "save_evidence", saved)
    assert runs_for(store, contract.id) == []  # the run's row went with its transaction
    record_run(store, contract, "judge", 1)  # and the store works again on a new connection
    assert len(runs_for(store, contract.id)) == 1
    store.close()


def record_run_with_evidence(store: Store, contract: Contract) -> None:
    from runs import corpus_run

    corpus_run(store, "4b825dc642cb6eb9a060e54bf8d69288fbee4904", {"contract_ref": contract.id})


def test_the_url_names_no_password_in_messages(repo: Path, postgres: Cluster) -> None:
    url = f"postgresql://referee:hunter2-secret@127.0.0.1:{postgres.port}/no_such_database"
    with pytest.raises(StoreUnavailable) as caught:
        Store(repo / ".referee", url=url)
    assert "hunter2" not in caught.value.summary
    assert "no_such_database" in caught.value.summary


def rich_store(repo: Path, url: str | None) -> Store:
    """A store holding a row of every kind: a contract, runs with evidence (one item sealed),
    a superseded and an active scorecard, a human verdict, an aggregate, a captured session."""
    from runs import corpus_run

    from referee.tools.calibration import record_human_verdict
    from referee.tools.evidence.capture import CapturedCall, record_call
    from referee.tools.evidence.redact import Redactor

    store = Store(repo / ".referee", url=url)
    contract = insert_contract(store, sample_contract(repo))
    run_id, _ = corpus_run(store, "4b825dc642cb6eb9a060e54bf8d69288fbee4904")
    stored = load_run(store, run_id)
    item = next(iter(stored.evidence.values())).model_copy(
        update={"id": "E99", "holdout": True, "stdout": "the hold-out's own words"}
    )
    evaluation = stored.evaluation.model_copy(update={"run_id": "R-sealed"})
    save_run(store, evaluation, [item], stored.signature, "2026-03-25T12:06:00+00:00")
    save_scorecard(store, **card_fields(store, 1))
    second, _ = save_scorecard(store, **card_fields(store, 1))
    record_human_verdict(second, "accept", "fine", store=store, now=lambda: datetime.now(UTC))
    save_aggregate(
        store,
        contract_id=contract.id,
        iteration=1,
        decision="REVISE",
        body={"why": "é"},
        created_at="2026-03-25T12:00:00Z",
    )
    call = CapturedCall(
        session_id="s1",
        cwd=str(repo),
        tool="Bash",
        command="ls",
        stdout="a",
        stderr="",
        exit_code=0,
    )
    record_call(store, call, Redactor([]), lambda: datetime.now(UTC))
    return store


def content(document: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """An export's rows without what a store assigns itself (ids and the MACs over them)."""
    found = {}
    for table, rows in document["tables"].items():
        drop = {"mac", "id", "superseded_by", "scorecard_id"} if table in AUTO_IDS else set()
        found[table] = [{k: v for k, v in r.items() if k not in drop} for r in rows]
    return found


def test_a_local_store_moves_to_the_team_store_and_back_without_loss(
    repo: Path,
    tmp_path: Path,
    postgres_url: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("REFEREE_KEY", "the team's key, a CI secret of 32+ chars")
    local = rich_store(repo, None)
    before = export_store(local)
    local.close()
    assert {t: len(r) for t, r in before["tables"].items() if r}.keys() >= {
        "contracts",
        "runs",
        "evidence",
        "scorecards",
        "calibration",
        "aggregates",
        "captures",
        "sealed_evidence",
        "contract_repos",
    }
    dump, back = tmp_path / "local.json", tmp_path / "team.json"
    cli = ["--root", str(repo)]
    assert main([*cli, "store", "export", str(dump)]) == 0
    assert main([*cli, "--store", postgres_url, "store", "import", str(dump)]) == 0
    assert main([*cli, "--store", postgres_url, "store", "import", str(dump)]) == 0  # idempotent
    assert "0 rows" in capsys.readouterr().out.splitlines()[-1]
    assert main([*cli, "--store", postgres_url, "store", "export", str(back)]) == 0
    team = json.loads(back.read_text(encoding="utf-8"))
    assert content(team) == content(before)
    fresh = tmp_path / "fresh"
    assert main([*cli, "--home", str(fresh), "store", "import", str(back)]) == 0
    again = Store(fresh)
    assert content(export_store(again)) == content(before)
    assert load_run(again, "R-sealed").evidence["E99"].stdout == "the hold-out's own words"
    [active] = scorecards_for(again, CID)
    assert [c.superseded_by for c in scorecards_for(again, CID, history=True)] == [active.id, None]
    again.close()


def test_an_export_edited_on_the_way_is_refused(
    repo: Path, tmp_path: Path, postgres_url: str
) -> None:
    store = rich_store(repo, None)
    document = export_store(store)
    store.close()
    document["tables"]["aggregates"][0]["decision"] = "DELIVER"
    team = Store(tmp_path / "team", key=store.key, url=postgres_url)
    with pytest.raises(StoreTampered, match="does not verify"):
        import_store(team, document)
    other = Store(tmp_path / "other", key=b"another key of sixteen+")
    with pytest.raises(StoreKeyMismatch):
        import_store(other, document)
    team.close()
    other.close()
