"""Files that go where the rows go: a team store keeps its runs' artifacts, its hold-out files and
its screenshot baselines in its database, sealed and verified like its rows, so another home on
the same store reads them; the embedded store keeps them in its folders, as before."""

from __future__ import annotations

import hashlib
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from postgres import Cluster, raw_sql
from runs import CORPUS

from referee.tools.browser.baselines import Baseline, StoredBaselines, store_baselines
from referee.tools.evidence import full_evidence, screenshot_of
from referee.tools.evidence.recorder import LOG_LIMIT, EvidenceRecorder
from referee.tools.evidence.redact import Redactor
from referee.tools.evidence.signing import sign
from referee.tools.holdouts import StoredVault, Vault, store_vault
from referee.tools.models import Evaluation
from referee.tools.store import Store, StoreTampered, StoreUnavailable, load_run, runs_for, save_run
from referee.tools.store import files as store_files
from referee.tools.store.db import Tx
from referee.tools.store.files import FILE_LIMIT, file_bytes, local_run_file, put_file, run_file

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
LONG_LOG = "collected 3 items\n" + "a line the inline copy cuts\n" * 4000
TRACE = b"PK\x03\x04 a trace as Playwright writes one"


def blob_count(store: Store) -> int:
    row = store.query_one("SELECT COUNT(*) AS n FROM blobs")
    return int(row["n"]) if row else 0


def test_a_file_is_kept_once_by_its_digest_and_reads_back_on_both_backends(
    repo: Path, store_url: str | None
) -> None:
    store = Store(repo / ".referee", url=store_url)
    with store.transaction() as tx:
        first = put_file(store, tx, PNG)
        again = put_file(store, tx, PNG)
    assert first == again == hashlib.sha256(PNG).hexdigest()
    assert blob_count(store) == 1
    assert file_bytes(store, first, "the image") == PNG
    with pytest.raises(StoreTampered, match="is missing from the store"):
        file_bytes(store, "0" * 64, "a file never stored")
    with store.transaction() as tx, pytest.raises(ValueError):
        put_file(store, tx, b"x" * (FILE_LIMIT + 1))  # callers cap; the store refuses the rest
    store.close()


@pytest.mark.parametrize(
    "edit",
    [
        "UPDATE blobs SET body = %s",  # other bytes, the digest and MAC left as they were
        "UPDATE blobs SET size = 1",  # the row's MAC covers the size
        "UPDATE blobs SET sha256 = 'f' || substr(sha256, 2)",  # a row moved to another digest
    ],
)
def test_a_blob_edited_in_the_database_is_store_tampered_on_both_backends(
    repo: Path, store_url: str | None, edit: str
) -> None:
    store = Store(repo / ".referee", url=store_url)
    with store.transaction() as tx:
        digest = put_file(store, tx, PNG)
    params: tuple[object, ...] = (PNG.replace(b"PNG", b"GIF"),) if "%s" in edit else ()
    raw_sql(store.home, store_url, edit, params)
    with pytest.raises(StoreTampered) as caught:
        file_bytes(store, digest, "the baseline plan")
    assert caught.value.problems[0].code == "store_tampered"
    store.close()


def filed_run(store: Store, run_id: str, tmp: Path) -> Evaluation:
    """A signed run whose evidence names real files: a long log, a screenshot, and a hold-out
    criterion's log (sealed: kept outside the repository)."""
    recorder = EvidenceRecorder(
        run_id,
        store.run_artifacts(run_id),
        Redactor(),
        lambda: datetime.now(UTC),
        inline_limit=1024,
        sealed=(store.sealed / run_id, {"AC-F-002"}),
    )
    shot, trace = tmp / "page.png", tmp / "AC-F-001.trace.zip"
    shot.write_bytes(PNG)
    trace.write_bytes(TRACE)
    recorder.record(tool="tests", summary="3 passed", stdout=LONG_LOG, criterion_id="AC-F-001")
    recorder.record(
        tool="browser",
        summary="shown",
        stdout="ok",
        extra_artifacts=[shot, trace],
        criterion_id="AC-F-001",
    )
    recorder.record(
        tool="tests", summary="1 passed", stdout="the hold-out's own words", criterion_id="AC-F-002"
    )
    doc = json.loads((CORPUS / "run.json").read_text(encoding="utf-8"))
    doc["evaluation"].update(run_id=run_id)
    doc["evaluation"]["criteria"][1]["holdout"] = True
    evaluation = Evaluation.model_validate(doc["evaluation"])
    signature = sign(store.key, evaluation, recorder.items)
    evaluation.signature = evaluation.draft_scorecard.signature = signature
    save_run(store, evaluation, recorder.items, signature, "2026-03-25T12:05:00+00:00")
    return evaluation


def test_a_team_run_s_files_are_read_from_another_home_after_the_first_is_gone(
    tmp_path: Path, postgres_url: str
) -> None:
    alice = Store(tmp_path / "alice" / ".referee", url=postgres_url)
    filed_run(alice, "R-files", tmp_path)
    alice.close()
    shutil.rmtree(alice.home)  # her machine is gone: her artifacts and her vault with it
    shutil.rmtree(alice.vault)
    bob = Store(tmp_path / "bob" / ".referee", url=postgres_url)
    stored = load_run(bob, "R-files")
    assert len(stored.evidence["E1"].stdout) < len(LONG_LOG)  # the inline copy is capped
    assert full_evidence(bob, "R-files", "E1")["stdout"] == LONG_LOG  # the log is whole
    assert screenshot_of(bob, "R-files", "E2") == PNG
    assert full_evidence(bob, "R-files", "E3")["stdout"] == "the hold-out's own words"
    # As files on bob's machine: the screenshot in his folder of the run, the hold-out's log in
    # his vault (outside the repository), never under his `.referee/`.
    [shot] = [a for a in stored.evidence["E2"].artifacts if a.endswith(".png")]
    local = local_run_file(bob, "R-files", shot, sealed=False)
    assert local is not None and local.read_bytes() == PNG
    assert local.is_relative_to(bob.artifacts / "R-files")
    [log] = stored.evidence["E3"].artifacts
    sealed = local_run_file(bob, "R-files", log, sealed=True)
    assert sealed is not None and sealed.is_relative_to(bob.vault)
    assert not list(bob.home.rglob("E3.*"))
    bob.close()


def test_an_embedded_store_keeps_its_run_files_in_its_folders(repo: Path, tmp_path: Path) -> None:
    store = Store(repo / ".referee")
    filed_run(store, "R-local", tmp_path)
    assert blob_count(store) == 0  # the embedded database never holds a file
    assert full_evidence(store, "R-local", "E1")["stdout"] == LONG_LOG
    assert (store.artifacts / "R-local" / "E1.stdout.log").is_file()
    assert (store.sealed / "R-local" / "E3.stdout.log").is_file()
    assert not (store.artifacts / "R-local" / "E3.stdout.log").exists()
    store.close()


def test_a_team_run_file_edited_in_the_database_is_store_tampered(
    tmp_path: Path, postgres_url: str
) -> None:
    store = Store(tmp_path / "home", url=postgres_url)
    filed_run(store, "R-edit", tmp_path)
    raw_sql(
        store.home,
        postgres_url,
        "UPDATE blobs SET body = %s WHERE size = %s",
        (PNG.replace(b"PNG", b"GIF"), len(PNG)),
    )
    with pytest.raises(StoreTampered, match="differs from what referee stored"):
        screenshot_of(store, "R-edit", "E2")
    raw_sql(store.home, postgres_url, "UPDATE run_files SET sha256 = %s", ("0" * 64,))
    with pytest.raises(StoreTampered, match="does not verify"):
        full_evidence(store, "R-edit", "E1")
    store.close()


def test_a_lost_connection_while_a_run_s_files_are_written_leaves_no_half_run(
    tmp_path: Path, postgres: Cluster, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path / "home", url=postgres_url)
    kept = store_files.put_file
    calls = []

    def cut_on_the_second_file(store_: Store, tx: Tx, data: bytes) -> str:
        calls.append(len(data))
        if len(calls) == 2:  # the server ends this very connection between two files
            pid = tx.execute("SELECT pg_backend_pid() AS pid").fetchone()
            with postgres.admin() as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid["pid"],))  # type: ignore[index]
        return kept(store_, tx, data)

    monkeypatch.setattr(store_files, "put_file", cut_on_the_second_file)
    with pytest.raises(StoreUnavailable):
        filed_run(store, "R-cut", tmp_path)
    monkeypatch.setattr(store_files, "put_file", kept)
    assert runs_for(store, "SC-login-form-20260325") == []
    assert store.query("SELECT * FROM evidence") == []
    assert store.query("SELECT * FROM run_files") == [] and blob_count(store) == 0
    filed_run(store, "R-again", tmp_path)  # the next call connects again and stores it whole
    assert full_evidence(store, "R-again", "E1")["stdout"] == LONG_LOG
    store.close()


def test_a_huge_artifact_is_capped_not_stored_whole(
    tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path / "home", url=postgres_url)
    huge = tmp_path / "trace.zip"
    with huge.open("wb") as out:  # 48 MiB of binary, written sparse
        out.write(b"PK\x03\x04")
        out.truncate(48 * 1024 * 1024)
    recorder = EvidenceRecorder(
        "R-huge", store.run_artifacts("R-huge"), Redactor(), lambda: datetime.now(UTC)
    )
    item = recorder.record(tool="browser", summary="traced", extra_artifacts=[huge])
    [kept] = item.artifacts
    assert LOG_LIMIT < Path(kept).stat().st_size < LOG_LIMIT + 100  # its head and tail
    assert b"bytes cut by referee" in Path(kept).read_bytes()[LOG_LIMIT // 2 :][:100]
    # What reaches the database is capped too, whatever the file grew to after it was recorded.
    monkeypatch.setattr(store_files, "FILE_LIMIT", 4096)
    with store.transaction() as tx:
        store_files.keep_run_files(store, tx, "R-huge", [item])
    data = run_file(store, "R-huge", kept)
    assert data is not None and len(data) <= 4096
    row = store.query_one("SELECT size FROM run_files")
    assert row is not None and row["size"] == Path(kept).stat().st_size  # what it was
    store.close()


def test_a_team_store_s_hold_outs_are_its_database_s_and_verified(
    tmp_path: Path, postgres_url: str
) -> None:
    alice = Store(tmp_path / "alice", url=postgres_url)
    vault = store_vault(alice)
    assert isinstance(vault, StoredVault)
    added, total = vault.add("SC-1", [("tests/test_h.py", b"def test_h(): ...\n")], None, "t1")
    assert total == 1 and added[0][1] is False
    added, total = vault.add("SC-1", [("tests/test_h.py", b"def test_h(): pass\n")], "AC-H", "t2")
    assert total == 1 and added[0][1] is True  # replaced
    bob = Store(tmp_path / "bob", url=postgres_url)
    theirs = store_vault(bob)
    assert theirs.names("SC-1") == ["tests/test_h.py"]
    assert theirs.texts("SC-1") == ["def test_h(): pass\n"]
    layer = theirs.lay("SC-1", "AC-H", tmp_path / "layer")
    assert layer is not None and (layer / "tests/test_h.py").read_bytes() == b"def test_h(): pass\n"
    assert theirs.lay("SC-1", "AC-OTHER", tmp_path / "other") is None  # its own criterion only
    raw_sql(bob.home, postgres_url, "UPDATE blobs SET body = %s", (b"def test_h(): assert 1\n",))
    with pytest.raises(StoreTampered):
        theirs.lay("SC-1", "AC-H", tmp_path / "again")
    alice.close()
    bob.close()


def test_an_embedded_store_s_vault_stays_beside_the_key(repo: Path) -> None:
    store = Store(repo / ".referee")
    vault = store_vault(store)
    assert isinstance(vault, Vault) and vault.root == store.vault
    store.close()


def test_a_team_store_s_baselines_are_its_database_s_and_verified(
    tmp_path: Path, postgres_url: str
) -> None:
    alice = Store(tmp_path / "alice", url=postgres_url)
    made = Baseline(
        "SC-1", "AC-1", "plan", hashlib.sha256(PNG).hexdigest(), "R1", "delivered", "t", PNG
    )
    store_baselines(alice).save(made)
    bob = Store(tmp_path / "bob", url=postgres_url)
    theirs = store_baselines(bob)
    assert isinstance(theirs, StoredBaselines)
    assert theirs.load("SC-1", "AC-1", "plan") == made
    assert theirs.names("SC-1") == [("AC-1", "plan")]
    assert theirs.load("SC-1", "AC-1", "other") is None
    assert not (alice.home / "baselines").exists()
    with pytest.raises(ValueError):
        theirs.save(Baseline("SC-1", "AC-1", "plan", "0" * 64, "R1", "by hand", "t", PNG))
    raw_sql(bob.home, postgres_url, "UPDATE baselines SET how = 'accepted by hand'")
    with pytest.raises(StoreTampered, match="does not verify"):
        theirs.load("SC-1", "AC-1", "plan")
    alice.close()
    bob.close()


def test_a_baseline_s_image_edited_in_the_database_is_refused(
    tmp_path: Path, postgres_url: str
) -> None:
    store = Store(tmp_path / "home", url=postgres_url)
    made = Baseline(
        "SC-1", "AC-1", "plan", hashlib.sha256(PNG).hexdigest(), "R1", "delivered", "t", PNG
    )
    store_baselines(store).save(made)
    raw_sql(store.home, postgres_url, "UPDATE blobs SET body = %s", (PNG[:-1] + b"\x00",))
    with pytest.raises(StoreTampered):
        store_baselines(store).load("SC-1", "AC-1", "plan")
    store.close()


def files_of_every_kind(store: Store, tmp: Path) -> None:
    """A run with its files, a hold-out file and a baseline, in `store`."""
    filed_run(store, "R-files", tmp)
    store_vault(store).add("SC-1", [("tests/test_h.py", b"def test_h(): pass\n")], "AC-H", "t")
    made = Baseline(
        "SC-1", "AC-1", "plan", hashlib.sha256(PNG).hexdigest(), "R-files", "delivered", "t", PNG
    )
    store_baselines(store).save(made)


@pytest.mark.slow
def test_an_embedded_store_s_files_move_to_the_team_store_and_back(
    repo: Path, tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from referee.server.cli import main
    from referee.tools.create_contract.files import load_contract_file
    from referee.tools.store import insert_contract

    local = Store(repo / ".referee")
    contract = load_contract_file(CORPUS / "contract.yaml").model_copy(
        update={"id": "SC-1", "repo": str(repo)}
    )
    insert_contract(local, contract)
    files_of_every_kind(local, tmp_path)
    local.close()
    dump, back = tmp_path / "local.json", tmp_path / "team.json"
    cli = ["--root", str(repo)]
    assert main([*cli, "store", "export", str(dump)]) == 0
    tables = json.loads(dump.read_text(encoding="utf-8"))["tables"]
    assert {t for t in ("blobs", "run_files", "holdout_files", "baselines") if tables[t]} == {
        "blobs",
        "run_files",
        "holdout_files",
        "baselines",
    }
    team = ["--home", str(tmp_path / "ci"), "--store", postgres_url]
    assert main([*cli, *team, "store", "import", str(dump)]) == 0
    assert main([*cli, *team, "store", "import", str(dump)]) == 0  # idempotent
    assert "imported 0 rows" in capsys.readouterr().out.splitlines()[-1]
    shutil.rmtree(local.home)  # nothing is read from the first machine from here on
    shutil.rmtree(local.vault)
    shared = Store(tmp_path / "ci", url=postgres_url)
    assert full_evidence(shared, "R-files", "E1")["stdout"] == LONG_LOG
    assert store_vault(shared).texts("SC-1") == ["def test_h(): pass\n"]
    assert store_baselines(shared).load("SC-1", "AC-1", "plan").png == PNG  # type: ignore[union-attr]
    shared.close()
    assert main([*cli, *team, "store", "export", str(back)]) == 0
    fresh = tmp_path / "fresh"
    assert main([*cli, "--home", str(fresh), "store", "import", str(back)]) == 0
    again = Store(fresh)
    assert blob_count(again) == 0  # an embedded store keeps files in its folders
    assert full_evidence(again, "R-files", "E1")["stdout"] == LONG_LOG
    assert full_evidence(again, "R-files", "E3")["stdout"] == "the hold-out's own words"
    assert (again.sealed / "R-files" / "E3.stdout.log").is_file()  # in its vault's folder
    assert not list(fresh.rglob("E3.*"))  # never under the repository's .referee/
    assert store_vault(again).texts("SC-1") == ["def test_h(): pass\n"]
    assert store_baselines(again).load("SC-1", "AC-1", "plan").png == PNG  # type: ignore[union-attr]
    again.close()
    assert main([*cli, "--home", str(fresh), "store", "import", str(back)]) == 0
    assert "imported 0 rows" in capsys.readouterr().out.splitlines()[-1]


@pytest.mark.slow
def test_an_export_sealed_with_another_key_is_re_sealed_only_with_that_key_given(
    tmp_path: Path,
    postgres_url: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from referee.server.cli import main
    from referee.tools.evidence.signing import verify
    from referee.tools.store import export_store, import_store, save_scorecard, scorecards_for
    from referee.tools.store.integrity import StoreKeyMismatch

    mine = Store(tmp_path / "mine", key=b"my own key, sixteen+")
    evaluation = filed_run(mine, "R-files", tmp_path)
    old = load_run(mine, "R-files").signature
    card = {"run_id": "R-files", "signature": old, "verdict": "ACCEPT"}
    save_scorecard(
        mine,
        contract_id=evaluation.contract_ref,
        evaluator="judge",
        iteration=1,
        format="json",
        body=card,
        computed={},
        run_id="R-files",
        stored_at="t",
    )
    document = export_store(mine)
    mine.close()
    dump = tmp_path / "mine.json"
    dump.write_text(json.dumps(document), encoding="utf-8")
    key_file = tmp_path / "mine.key"
    key_file.write_text("my own key, sixteen+\n", encoding="utf-8")
    team_key = "the team's key, a CI secret of 32+ chars"
    cli = ["--home", str(tmp_path / "team"), "--store", postgres_url, "store", "import", str(dump)]
    monkeypatch.setenv("REFEREE_KEY", team_key)
    assert main(cli) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "store_wrong_key" in err and "--from-key-file" in err
    wrong = tmp_path / "wrong.key"
    wrong.write_text("somebody else's key\n", encoding="utf-8")
    assert main([*cli, "--from-key-file", str(wrong)]) == 2
    assert "store_wrong_key" in capsys.readouterr().err
    assert main([*cli, "--from-key-file", str(key_file)]) == 0
    assert main([*cli, "--from-key-file", str(key_file)]) == 0  # idempotent, re-sealed alike
    assert "imported 0 rows" in capsys.readouterr().out.splitlines()[-1]
    team = Store(tmp_path / "team", key=team_key.encode(), url=postgres_url)
    stored = load_run(team, "R-files")  # every row verifies with the team's key
    assert stored.signature != old
    assert verify(team.key, stored.evaluation, list(stored.evidence.values()), stored.signature)
    assert stored.evaluation.signature == stored.signature
    [kept] = scorecards_for(team, evaluation.contract_ref)
    assert kept.body["signature"] == stored.signature  # the card still rests on its run
    assert full_evidence(team, "R-files", "E1")["stdout"] == LONG_LOG
    # An export edited on the way does not verify with the key it names.
    document["tables"]["runs"][0]["iteration"] = 9
    with pytest.raises(StoreTampered):
        import_store(team, document, source_key=b"my own key, sixteen+")
    with pytest.raises(StoreKeyMismatch):
        import_store(team, document)
    team.close()


def test_a_store_of_schema_4_migrates_to_keep_files_on_both_backends(
    repo: Path, store_url: str | None
) -> None:
    from referee.tools.store import SCHEMA_VERSION

    Store(repo / ".referee", url=store_url).close()
    for table in ("blobs", "run_files", "holdout_files", "baselines"):
        raw_sql(repo / ".referee", store_url, f"DROP TABLE {table}")
    raw_sql(
        repo / ".referee", store_url, "UPDATE meta SET value = '4' WHERE key = 'schema_version'"
    )
    store = Store(repo / ".referee", url=store_url)  # opening runs the step it has not had
    assert store.schema_version() == SCHEMA_VERSION == 5
    with store.transaction() as tx:
        assert file_bytes(store, put_file(store, tx, PNG), "a file") == PNG
    assert store.migrate() == []
    store.close()


def test_a_team_run_s_trace_opens_in_the_viewer_of_another_home(
    tmp_path: Path, postgres_url: str
) -> None:
    from referee.tools.create_contract.files import load_contract_file
    from referee.tools.errors import NotFound
    from referee.tools.store import insert_contract
    from referee.tools.view.traces import trace_file

    alice = Store(tmp_path / "alice" / ".referee", url=postgres_url)
    contract = load_contract_file(CORPUS / "contract.yaml")
    insert_contract(alice, contract.model_copy(update={"repo": str(tmp_path)}))
    filed_run(alice, "R-files", tmp_path)
    alice.close()
    shutil.rmtree(alice.home)
    bob = Store(tmp_path / "bob" / ".referee", url=postgres_url)
    served = trace_file(bob, "trace/R-files/E2.zip", "evaluator")
    assert served.path.read_bytes() == TRACE
    assert served.path.is_relative_to((bob.artifacts / "R-files").resolve())
    with pytest.raises(NotFound):
        trace_file(bob, "trace/R-files/E3.zip", "evaluator")  # the hold-out's item kept none
    bob.close()
